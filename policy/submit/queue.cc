// The queue statement: its forms (queue, queue N, queue [N] VAR in (...), queue [N] VARS from
// (...) or FILE, queue [N] VAR matching [files|dirs] PATTERN...), optional [slice], items.
#include "policy/submit/queue.h"

#include <strings.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/config/internal.h"
#include "policy/submit/macros.h"
#include "policy/submit/path_match.h"

namespace kite::submit {
namespace {

using config::internal::trim;

constexpr size_t kMaxItems = 10000000;
constexpr size_t kMaxFromFile = 256u << 20;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// Position of the keyword `kw` as a whole word in `s`, or npos.
size_t find_word(std::string_view s, std::string_view kw) {
  for (size_t i = 0; i + kw.size() <= s.size(); ++i) {
    if ((i == 0 || is_blank(s[i - 1])) && strncasecmp(s.data() + i, kw.data(), kw.size()) == 0 &&
        (i + kw.size() == s.size() || is_blank(s[i + kw.size()]) || s[i + kw.size()] == '(' ||
         s[i + kw.size()] == '[')) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Splits on any of `seps`, trimming, dropping empty pieces.
std::vector<std::string> split(std::string_view s, const char* seps) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || std::strchr(seps, s[i])) {
      std::string_view piece = trim(s.substr(begin, i - begin));
      if (!piece.empty()) out.emplace_back(piece);
      begin = i + 1;
    }
  }
  return out;
}

// One line of a `from` list split into `n` fields as condor_submit splits a row: cut at the
// first comma, blank or tab, trim blanks (not commas) around the cut; the last field takes
// the rest of the line. So "1 , 2" gives "1", "" and "2" for three variables.
std::vector<std::string> fields(std::string_view line, size_t n) {
  std::vector<std::string> out;
  std::string_view rest = trim(line);
  while (out.size() + 1 < n) {
    size_t cut = rest.find_first_of(", \t");
    if (cut == std::string_view::npos) break;
    std::string_view field = rest.substr(0, cut);
    while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
    out.emplace_back(field);
    rest = rest.substr(cut + 1);
    while (!rest.empty() && (rest[0] == ' ' || rest[0] == '\t')) rest.remove_prefix(1);
  }
  out.emplace_back(rest);
  while (out.size() < n) out.emplace_back();
  return out;
}

// The lines of a queue statement's list (`text` holds them joined by '\n'): for a
// parenthesised list, lines after the first that start with '#' are comments and an empty
// first line is no line, nor is the closing line's (empty) text before its ')'; every
// line is trimmed.
std::vector<std::string_view> list_lines(std::string_view text, bool paren) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '\n') continue;
    std::string_view line = trim(text.substr(begin, i - begin));
    bool first = begin == 0;
    bool closing = i == text.size() && !first;  // what the ')' line holds before the ')'
    begin = i + 1;
    if (paren && (first || closing) && line.empty()) continue;
    if (paren && !first && !line.empty() && line[0] == '#') continue;
    out.push_back(line);
  }
  return out;
}

// The lines of an item file, trimmed; a final line end makes no extra line.
std::vector<std::string_view> file_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t nl = std::min(text.find('\n', begin), text.size());
    out.push_back(trim(text.substr(begin, nl - begin)));
    begin = nl + 1;
  }
  return out;
}

// `[start:end:step]` (Python slice) applied to `items`; false on a malformed slice.
bool apply_slice(std::string_view slice, std::vector<std::vector<std::string>>* items,
                 std::vector<int>* rows) {
  long v[3] = {0, 0, 1};
  bool given[3] = {false, false, false};
  size_t part = 0;
  std::string_view s = slice;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != ':') continue;
    if (part > 2) return false;
    std::string t(trim(s.substr(begin, i - begin)));
    if (!t.empty()) {
      char* end = nullptr;
      v[part] = std::strtol(t.c_str(), &end, 10);
      if (*end != '\0' || t.size() > 9) return false;
      given[part] = true;
    }
    ++part;
    begin = i + 1;
  }
  if (v[2] <= 0) return false;
  long n = static_cast<long>(items->size());
  auto norm = [n](long x) { return x < 0 ? std::max(0L, n + x) : std::min(n, x); };
  long from = given[0] ? norm(v[0]) : 0;
  long to = given[1] ? norm(v[1]) : n;
  std::vector<std::vector<std::string>> out;
  std::vector<int> kept;
  for (long i = from; i < to; i += v[2]) {
    out.push_back(std::move((*items)[i]));
    kept.push_back((*rows)[i]);
  }
  *items = std::move(out);
  *rows = std::move(kept);
  return true;
}

}  // namespace

Status read_text_file(const std::string& path, size_t limit, std::string* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  }
  // Only regular files: a FIFO or a terminal would wait forever, a device never end.
  if (!S_ISREG(st.st_mode)) return Status::Error(path + " is not a regular file");
  if (static_cast<size_t>(st.st_size) > limit) {
    return Status::Error(path + " is larger than " + std::to_string(limit >> 20) + " MiB");
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::Error("cannot open " + path + ": " + std::strerror(errno));
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && out->size() <= limit) out->append(buf, n);
  std::fclose(f);
  if (out->size() > limit) {
    return Status::Error(path + " is larger than " + std::to_string(limit >> 20) + " MiB");
  }
  return Status::Ok();
}

bool queue_list_open(std::string_view text) {
  size_t open = text.find('(');
  return open != std::string_view::npos && text.find(')', open) == std::string_view::npos;
}

namespace {

// The items of `queue ... from FILE`: the file's text.
Status queue_file(const std::string& given, const std::string& cwd, std::string* text) {
  std::string path = given[0] == '/' ? given : cwd + "/" + given;
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return Status::Error("can't open file " + given + ": " + std::strerror(errno));
  }
  Status st = read_text_file(path, kMaxFromFile, text);
  if (!st.ok) return Status::Error("can't open file " + given + ": " + st.message);
  if (text->find('\0') != std::string::npos) return Status::Error("a NUL byte in " + path);
  return Status::Ok();
}

// The items of `queue ... from COMMAND |`: what the command prints (condor_submit runs it).
Status queue_command_output(const std::string& given, const config::Config::CommandRunner& run,
                            std::string* text) {
  std::string command(trim(std::string_view(given).substr(0, given.size() - 1)));
  if (command.empty()) return Status::Error("queue from names no command before '|'");
  if (!run)
    return Status::Error("queue from " + command + " |: running a command is not supported here");
  Status st = run(command, text);
  if (!st.ok) return Status::Error("queue from " + command + " |: " + st.message);
  if (text->size() > kMaxFromFile)
    return Status::Error("queue from " + command + " |: too much output");
  if (text->find('\0') != std::string::npos) {
    return Status::Error("a NUL byte in the output of " + command);
  }
  return Status::Ok();
}

}  // namespace

Status parse_queue(std::string_view text, const std::string& cwd,
                   const config::Config::CommandRunner& run, QueueSpec* out) {
  *out = QueueSpec{};
  std::string_view t = trim(text);
  const char* kind = nullptr;
  size_t at = std::string_view::npos;
  for (const char* kw : {"in", "from", "matching"}) {
    size_t p = find_word(t, kw);
    if (p < at) {
      at = p;
      kind = kw;
    }
  }
  std::string_view head = trim(t.substr(0, at));
  if (!kind) {
    out->count = std::string(head);
    return Status::Ok();
  }
  // head: [count] [var[, var...]]
  std::vector<std::string> words = split(head, ", \t");
  if (!words.empty() && !valid_macro_name(words[0])) {
    size_t sp = head.find_first_of(" \t");
    out->count = std::string(head.substr(0, sp));
    words = split(sp == std::string_view::npos ? "" : head.substr(sp), ", \t");
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (!valid_macro_name(words[i])) {
      // condor_submit reads what is not a variable list as part of the count.
      return Status::Error("Invalid Queue count expression (invalid queue variable name '" +
                           words[i] + "')");
    }
    out->vars.push_back(words[i]);
  }
  if (out->vars.empty()) out->vars.push_back("Item");
  out->has_items = true;
  std::string_view rest = trim(t.substr(at + std::strlen(kind)));
  int want = 0;  // matching: 0 files and directories, 1 files, 2 directories
  if (std::strcmp(kind, "matching") == 0) {
    for (int w = 1; w <= 2; ++w) {
      const char* word = w == 1 ? "files" : "dirs";
      if (find_word(rest, word) == 0) {
        want = w;
        rest = trim(rest.substr(std::strlen(word)));
      }
    }
  }
  std::string slice;
  if (!rest.empty() && rest[0] == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) return Status::Error("Invalid [::] statement");
    slice = std::string(rest.substr(1, close - 1));
    rest = trim(rest.substr(close + 1));
  }
  std::string_view list = rest;
  bool paren = !rest.empty() && rest[0] == '(';
  if (paren) {
    // A list over several lines ends at its last line, which starts with ')'; condor_submit
    // ignores the rest of that line.
    size_t last_nl = rest.rfind('\n');
    size_t close = last_nl == std::string_view::npos ? rest.rfind(')') : rest.find(')', last_nl);
    if (close == std::string_view::npos) return Status::Error("queue list has no closing ')'");
    if (last_nl == std::string_view::npos && !trim(rest.substr(close + 1)).empty()) {
      return Status::Error("unexpected text after the queue list's ')'");
    }
    list = rest.substr(1, close - 1);
  }
  if (list.find('\0') != std::string_view::npos) return Status::Error("a NUL byte in the items");
  std::string kw(kind);
  // condor_submit reads the lines after a queue line's '(' up to a line starting with ')',
  // skipping lines that start with '#'; the first line's text after '(' counts only when
  // not empty. Lines of a `from FILE` are all items, as read.
  std::vector<std::string_view> lines = list_lines(list, paren);
  if (kw == "in") {
    for (std::string_view line : lines) {
      for (std::string& item : split(line, ", \t")) out->items.push_back({std::move(item)});
    }
  } else if (kw == "from") {
    std::string file_text;
    if (!paren) {
      std::string given(trim(list));
      if (given.empty()) return Status::Error("queue from names no file or list");
      Status st = given.back() == '|' ? queue_command_output(given, run, &file_text)
                                      : queue_file(given, cwd, &file_text);
      if (!st.ok) return st;
      lines = file_lines(file_text);
    }
    for (std::string_view line : lines) {
      if (out->items.size() >= kMaxItems) return Status::Error("too many queue items");
      // An empty row (no fields) is resolved after the slice, below.
      out->items.push_back(line.empty() ? std::vector<std::string>()
                                        : fields(line, out->vars.size()));
    }
  } else {  // matching: glob patterns
    std::vector<std::string> pats;
    for (std::string_view line : lines) {
      for (std::string& p : split(line, ", \t")) pats.push_back(std::move(p));
    }
    if (pats.empty()) return Status::Error("queue matching names no pattern");
    for (const std::string& p : pats) {
      std::string full = p[0] == '/' ? p : cwd + "/" + p;
      for (std::string name : match_paths(full, kMaxItems - out->items.size())) {
        bool dir = !name.empty() && name.back() == '/';
        if ((want == 1 && dir) || (want == 2 && !dir)) continue;
        if (dir) name.pop_back();
        if (p[0] != '/') name = name.substr(cwd.size() + 1);
        out->items.push_back({name});
      }
    }
  }
  for (size_t i = 0; i < out->items.size(); ++i) out->rows.push_back(static_cast<int>(i));
  if (!slice.empty() && !apply_slice(slice, &out->items, &out->rows)) {
    return Status::Error("Invalid [::] statement");
  }
  // An empty row sets no variable: they keep the values of the row queued before it
  // (condor_submit's SubmitStepFromQArgs::select_rowdata assigns only the fields a row
  // splits into), or stay empty.
  for (size_t i = 0; i < out->items.size(); ++i) {
    if (out->items[i].empty() && i > 0) out->items[i] = out->items[i - 1];
    out->items[i].resize(out->vars.size());
  }
  return Status::Ok();
}

}  // namespace kite::submit
