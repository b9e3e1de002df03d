// The configuration language: reads HTCondor-syntax config text (assignments, `\` continuations,
// @=tag blocks, include, if/elif/else/endif, use templates, error/warning) into a macro table,
// and expands $(NAME), $(NAME:default), $ENV(X) on lookup. Errors are values naming file and line.
// HTCONDOR: admin-manual/introduction-to-configuration (25.x).
#include "policy/config/config.h"

#include <dirent.h>
#include <errno.h>
#include <pcre2.h>
#include <strings.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/config/internal.h"
#include "policy/config/macro_functions.h"
#include "policy/config/random.h"
#include "policy/config/typed.h"

namespace kite::config {
namespace {

constexpr int kMaxIncludeDepth = 16;
constexpr int kMaxTemplateDepth = 16;
constexpr int kMaxExpandDepth = 64;
constexpr size_t kMaxValueBytes = 1 << 20;   // a value (after self-reference expansion)
constexpr size_t kMaxExpandBytes = 1 << 20;  // the result of expanding one macro
constexpr size_t kMaxFileBytes = 16 << 20;
constexpr size_t kMaxExpandWork = 16 << 20;  // characters scanned to expand one macro
constexpr size_t kMaxFinishWork = 64 << 20;  // ... and to check a whole configuration

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::string_view internal::trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

namespace {

using internal::trim;

bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

// Index of the ')' matching the '(' at `open`, or npos.
size_t match_paren(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Printable excerpt of user text for messages.
std::string excerpt(std::string_view s) {
  std::string r;
  for (char c : s.substr(0, 60)) r += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > 60) r += "...";
  return r;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Reads a whole file; on failure returns errno (0 on success).
int read_text(const std::string& path, std::string* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (!S_ISREG(st.st_mode)) return EINVAL;  // no devices or FIFOs: they can block or never end
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return errno;
  out->clear();
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out->append(buf, n);
    if (out->size() > kMaxFileBytes) {
      std::fclose(f);
      return EFBIG;
    }
  }
  int err = std::ferror(f) ? EIO : 0;
  std::fclose(f);
  return err;
}

// Arguments of a template use: "Name(a, b, c)". Trimmed items plus where each starts in `raw`,
// because $(N+) is the raw text from argument N to the end.
struct MetaArgs {
  std::string raw;  // trimmed text between the parentheses
  std::vector<std::string> items;
  std::vector<size_t> starts;

  explicit MetaArgs(std::string_view text) : raw(trim(text)) {
    if (raw.empty()) return;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i <= raw.size(); ++i) {
      char c = i < raw.size() ? raw[i] : ',';
      if (c == '(') ++depth;
      if (c == ')' && depth > 0) --depth;
      if (c == ',' && (depth == 0 || i == raw.size())) {
        std::string_view item(raw.data() + begin, i - begin);
        size_t lead = item.size() - ltrim(item).size();
        starts.push_back(begin + lead);
        items.emplace_back(trim(item));
        begin = i + 1;
      }
    }
  }
  std::string item(size_t n) const { return n >= 1 && n <= items.size() ? items[n - 1] : ""; }
  std::string from(size_t n) const {
    if (n < 1 || n > items.size()) return "";
    return std::string(trim(std::string_view(raw).substr(starts[n - 1])));
  }
};

// Replaces $(0) $(0?) $(0#) $(N) $(N?) $(N+) $(N:def) $(N+:def) in a template body.
std::string meta_substitute(std::string_view body, const MetaArgs& args, int depth = 0) {
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] == '$' && i + 2 < body.size() && body[i + 1] == '(' && is_digit(body[i + 2])) {
      size_t close = match_paren(body, i + 1);
      if (close != std::string_view::npos) {
        std::string_view in = body.substr(i + 2, close - i - 2);
        size_t k = 0;
        unsigned n = 0;
        while (k < in.size() && is_digit(in[k]) && n < 100) n = n * 10 + (in[k++] - '0');
        char mod = 0;
        if (k < in.size() && (in[k] == '?' || in[k] == '#' || in[k] == '+')) mod = in[k++];
        bool has_def = k < in.size() && in[k] == ':';
        if (k == in.size() || has_def) {
          std::string_view def = has_def ? in.substr(k + 1) : std::string_view();
          std::string val;
          if (mod == '?') {
            val = (n == 0 ? !args.raw.empty() : !args.item(n).empty()) ? "1" : "0";
          } else if (mod == '#') {
            val = std::to_string(args.items.size());
          } else if (n == 0 || mod == '+') {
            val = n == 0 ? args.raw : args.from(n);
          } else {
            val = args.item(n);
          }
          if (val.empty() && has_def && depth < 8) val = meta_substitute(def, args, depth + 1);
          out += val;
          i = close + 1;
          continue;
        }
      }
    }
    out += body[i++];
  }
  return out;
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// Lookup and expansion.

namespace {

struct Expander {
  const Config& cfg;
  std::vector<std::string> stack;  // upper-cased names being expanded (cycle detection)
  Status err;
  size_t work = 0;  // characters scanned: bounds the cost of pathological configurations
  size_t work_limit = kMaxExpandWork;

  bool fail(std::string msg) {
    if (err.ok) err = Status::Error(std::move(msg));
    return false;
  }

  bool expand(std::string_view text, std::string& out, int depth);
  bool expand_name(std::string_view name, std::string_view def, bool has_def, std::string& out,
                   int depth);
  bool expand_entry(const Entry& e, std::string& out, int depth);
  bool expand_function(std::string_view fn, std::string_view args, std::string& out, int depth);
};

bool Expander::expand_name(std::string_view name, std::string_view def, bool has_def,
                           std::string& out, int depth) {
  Entry e;
  if (cfg.lookup(name, &e)) return expand_entry(e, out, depth);
  if (has_def) return expand(def, out, depth + 1);
  return true;
}

// A defined macro's value, expanded, with reference cycles reported.
bool Expander::expand_entry(const Entry& e, std::string& out, int depth) {
  std::string key = upper(e.name);
  for (const std::string& s : stack) {
    if (s == key) {
      std::string chain;
      for (const std::string& t : stack) chain += t + " -> ";
      return fail("macro " + e.name + " refers to itself (" + chain + key + ")");
    }
  }
  stack.push_back(key);
  bool ok = expand(e.value, out, depth + 1);
  stack.pop_back();
  return ok;
}

// The function macros' view of the configuration (policy/config/macro_functions.h).
class ExpanderArgs final : public internal::MacroArgs {
 public:
  ExpanderArgs(Expander& ex, int depth) : ex_(ex), depth_(depth) {}
  bool value(std::string_view text, bool or_literal, std::string* out) override {
    std::string_view name = trim(text);
    Entry e;
    if (valid_name(name) && ex_.cfg.lookup(name, &e)) return ex_.expand_entry(e, *out, depth_ + 1);
    return or_literal && ex_.expand(text, *out, depth_ + 1);
  }
  bool failed() const override { return !ex_.err.ok; }

 private:
  Expander& ex_;
  int depth_;
};

bool Expander::expand_function(std::string_view fn, std::string_view args, std::string& out,
                               int depth) {
  if (internal::is_macro_function(fn)) {
    // As HTCondor reads them: each argument is a macro name or literal text, expanded once by
    // the function itself (formats are not expanded).
    ExpanderArgs view(*this, depth);
    std::string msg;
    if (internal::macro_function(fn, args, view, &out, &msg)) return true;
    if (!msg.empty()) return fail(msg);
    return err.ok ? fail("$" + std::string(fn) + "(" + std::string(args) + ") failed") : false;
  }
  std::string a;
  if (!expand(args, a, depth + 1)) return false;
  if (fn == "ENV") {
    size_t colon = a.find(':');
    std::string var(trim(std::string_view(a).substr(0, colon)));
    const char* v = var.empty() ? nullptr : std::getenv(var.c_str());
    if (v) {
      out += v;
    } else if (colon != std::string::npos) {
      out += a.substr(colon + 1);
    } else {
      out += "UNDEFINED";
    }
    return true;
  }
  MetaArgs list(a);
  if (fn == "RANDOM_CHOICE") {
    if (!list.items.empty()) out += list.items[random_below(list.items.size())];
    return true;
  }
  // RANDOM_INTEGER(min, max [, step])
  long long lo = std::strtoll(list.item(1).c_str(), nullptr, 10);
  long long hi = std::strtoll(list.item(2).c_str(), nullptr, 10);
  long long step = list.items.size() >= 3 ? std::strtoll(list.item(3).c_str(), nullptr, 10) : 1;
  if (step <= 0) step = 1;
  if (hi < lo) std::swap(lo, hi);
  // Number of values lo, lo + step, ... <= hi; 0 stands for 2^64 (the whole range, step 1).
  uint64_t span = (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / step + 1;
  long long v = static_cast<long long>(static_cast<uint64_t>(lo) + random_below(span) * step);
  out += std::to_string(v);
  return true;
}

bool Expander::expand(std::string_view text, std::string& out, int depth) {
  if (depth > kMaxExpandDepth) return fail("macro expansion nested too deeply");
  size_t i = 0;
  while (i < text.size()) {
    if (out.size() > kMaxExpandBytes) return fail("macro expansion larger than 1 MiB");
    if (++work > work_limit) return fail("macro expansion too costly (more than 16M steps)");
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    if (text[i + 1] == '$') {  // $$(...) is for the startd/submit side: left as written
      out += "$$";
      i += 2;
      continue;
    }
    if (text[i + 1] == '(') {
      size_t close = match_paren(text, i + 1);
      if (close == std::string_view::npos) {
        out += c;
        ++i;
        continue;
      }
      std::string_view body = text.substr(i + 2, close - i - 2);
      size_t colon = body.find(':');
      std::string_view name = body.substr(0, colon);
      bool has_def = colon != std::string_view::npos;
      std::string_view def = has_def ? body.substr(colon + 1) : std::string_view();
      if (valid_name(name)) {
        if (!expand_name(name, def, has_def, out, depth)) return false;
      } else if (name.find("$(") != std::string_view::npos) {
        // $($(X)): expand the inner reference, then look up the name it produced.
        std::string inner;
        if (!expand(body, inner, depth + 1)) return false;
        std::string ref = "$(" + inner + ")";
        std::string_view rb(inner);
        size_t c2 = rb.find(':');
        if (valid_name(rb.substr(0, c2))) {
          if (!expand_name(rb.substr(0, c2), c2 == std::string_view::npos ? "" : rb.substr(c2 + 1),
                           c2 != std::string_view::npos, out, depth)) {
            return false;
          }
        } else {
          out += ref;
        }
      } else {
        out.append(text.data() + i, close + 1 - i);
      }
      i = close + 1;
      continue;
    }
    // $FUNC(...): ENV, RANDOM_INTEGER, RANDOM_CHOICE and macro_functions.h's; other names are
    // left as written.
    size_t k = i + 1;
    while (k < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_')) {
      ++k;
    }
    std::string_view fn = text.substr(i + 1, k - i - 1);
    if (k < text.size() && text[k] == '(' &&
        (fn == "ENV" || fn == "RANDOM_INTEGER" || fn == "RANDOM_CHOICE" ||
         internal::is_macro_function(fn))) {
      size_t close = match_paren(text, k);
      if (close != std::string_view::npos) {
        if (!expand_function(fn, text.substr(k + 1, close - k - 1), out, depth)) return false;
        i = close + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return true;
}

}  // namespace

Config::Config(std::string subsystem) : subsystem_(upper(subsystem)) {
  set_detected("SUBSYSTEM", subsystem_);
}

void Config::set_detected(const std::string& name, const std::string& value) {
  Entry& e = table_[upper(name)];
  if (e.name.empty()) e.name = name;
  e.value = value;
  e.source = "<Detected>";
  e.is_default = false;
}

bool Config::lookup(std::string_view name, Entry* out) const {
  std::string key = upper(name);
  if (key.find('.') == std::string::npos) {
    auto it = table_.find(subsystem_ + "." + key);
    if (it != table_.end()) {
      *out = it->second;
      return true;
    }
  }
  auto it = table_.find(key);
  if (it != table_.end()) {
    *out = it->second;
    return true;
  }
  if (const internal::Default* d = internal::default_find(name)) {
    *out = Entry{d->name, d->value, "<Default>", true};
    return true;
  }
  return false;
}

Status Config::expand(std::string_view text, std::string* out) const {
  Expander ex{*this, {}, Status::Ok()};
  out->clear();
  if (!ex.expand(text, *out, 0)) {
    out->clear();
    return ex.err;
  }
  return Status::Ok();
}

bool Config::get(std::string_view name, std::string* value, Status* err) const {
  Entry e;
  if (!lookup(name, &e)) return false;
  Expander ex{*this, {upper(e.name)}, Status::Ok()};
  value->clear();
  if (!ex.expand(e.value, *value, 0)) {
    value->clear();
    if (err) *err = Status::Error(e.source + ": " + ex.err.message);
  }
  return true;
}

bool Config::lookup_slot(std::string_view name, int slot, int slot_type, Entry* out) const {
  std::string n(name);
  if (slot > 0 && lookup("SLOT" + std::to_string(slot) + "_" + n, out)) return true;
  if (slot_type > 0 && lookup("SLOT_TYPE_" + std::to_string(slot_type) + "_" + n, out)) {
    return true;
  }
  return lookup(n, out);
}

bool Config::lookup_vanilla(std::string_view name, bool vanilla, int slot, int slot_type,
                            Entry* out) const {
  if (vanilla && lookup_slot(std::string(name) + "_VANILLA", slot, slot_type, out)) return true;
  return lookup_slot(name, slot, slot_type, out);
}

std::vector<Entry> Config::entries() const {
  std::vector<Entry> all;
  for (const auto& kv : table_) all.push_back(kv.second);
  int n = 0;
  const internal::Default* d = internal::defaults_all(&n);
  for (int i = 0; i < n; ++i) {
    if (table_.find(upper(d[i].name)) == table_.end()) {
      all.push_back(Entry{d[i].name, d[i].value, "<Default>", true});
    }
  }
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
    return strcasecmp(a.name.c_str(), b.name.c_str()) < 0;
  });
  return all;
}

Status Config::finish() const {
  Expander ex{*this, {}, Status::Ok()};
  ex.work_limit = kMaxFinishWork;
  for (const auto& kv : table_) {
    std::string v;
    ex.stack.assign(1, kv.first);
    if (!ex.expand(kv.second.value, v, 0)) {
      if (ex.work > ex.work_limit) {
        return Status::Error(kv.second.source + ": configuration too costly to expand");
      }
      return Status::Error(kv.second.source + ": " + ex.err.message);
    }
  }
  return Status::Ok();
}

// ----------------------------------------------------------------------------------------------
// Loading.

/// Where the text being parsed comes from: a file, or a template used from a file line.
struct Origin {
  std::string file;
  int outer_line = 0;  // templates: the line of the file's `use`
  std::string meta;    // templates: "use POLICY:DESKTOP"
  std::string_view text;

  std::string where(int index) const {  // index: 0-based physical line
    char buf[64];
    if (meta.empty()) {
      std::snprintf(buf, sizeof buf, ", line %d", index + 1);
      return file + buf;
    }
    std::snprintf(buf, sizeof buf, ", line %d, ", outer_line);
    return file + buf + meta + "+" + std::to_string(index);
  }
};

struct Config::Loader {
  Config& cfg;
  int include_depth = 0;
  int template_depth = 0;

  explicit Loader(Config& c) : cfg(c) {}

  Status parse(const Origin& o);
  Status assign(const Origin& o, int line, std::string_view name, std::string value);
  Status do_use(const Origin& o, int line, std::string_view rest);
  Status do_include(const Origin& o, int line, std::string_view rest);
  Status eval_if(const Origin& o, int line, std::string_view cond, bool* result);
  bool lookup_parse_time(std::string_view name, std::string* raw);
  Status load_path(const std::string& path, bool missing_ok);
};

// The parser sees HTCondor's param table but not Kite's fallbacks, so `if defined` and
// self-references behave exactly as in HTCondor.
bool Config::Loader::lookup_parse_time(std::string_view name, std::string* raw) {
  auto it = cfg.table_.find(upper(name));
  if (it != cfg.table_.end()) {
    *raw = it->second.value;
    return true;
  }
  const internal::Default* d = internal::default_find(name);
  if (d && d->matchable) {
    *raw = d->value;
    return true;
  }
  return false;
}

Status Config::Loader::assign(const Origin& o, int line, std::string_view name, std::string value) {
  // A macro's references to itself are replaced now by its current raw value ("A = $(A)b").
  std::string key = upper(name);
  size_t dot = key.find('.');
  std::string base = dot == std::string::npos ? "" : key.substr(dot + 1);
  if (value.find("$(") != std::string::npos) {
    std::string out;
    std::string_view v(value);
    size_t i = 0;
    while (i < v.size()) {
      if (v[i] == '$' && i + 1 < v.size() && v[i + 1] == '(' && (i == 0 || v[i - 1] != '$')) {
        size_t close = match_paren(v, i + 1);
        if (close != std::string_view::npos) {
          std::string_view body = v.substr(i + 2, close - i - 2);
          size_t colon = body.find(':');
          std::string ref = upper(body.substr(0, colon));
          if (ref == key || (!base.empty() && ref == base)) {
            std::string cur;
            if (!lookup_parse_time(ref, &cur) && colon != std::string_view::npos) {
              cur = std::string(body.substr(colon + 1));
            }
            out += cur;
            if (out.size() > kMaxValueBytes) {
              return Status::Error(o.where(line) + ": value of " + std::string(name) +
                                   " is larger than 1 MiB");
            }
            i = close + 1;
            continue;
          }
        }
      }
      out += v[i++];
    }
    value = std::move(out);
  }
  if (value.size() > kMaxValueBytes) {
    return Status::Error(o.where(line) + ": value of " + std::string(name) +
                         " is larger than 1 MiB");
  }
  auto it = cfg.table_.find(key);
  if (it == cfg.table_.end()) {
    // Setting an unset macro to exactly its default keeps it at <Default>, as HTCondor does.
    const internal::Default* d = internal::default_find(name);
    if (d && d->matchable && value == d->value) return Status::Ok();
    cfg.table_[key] = Entry{std::string(name), std::move(value), o.where(line), false};
  } else {
    it->second.value = std::move(value);
    it->second.source = o.where(line);
    it->second.is_default = false;
  }
  return Status::Ok();
}

Status Config::Loader::eval_if(const Origin& o, int line, std::string_view cond, bool* result) {
  std::string_view c = trim(cond);
  bool neg = false;
  if (!c.empty() && c.front() == '!') {
    neg = true;
    c = trim(c.substr(1));
  }
  size_t sp = 0;
  while (sp < c.size() && !is_space(c[sp])) ++sp;
  std::string_view word = c.substr(0, sp);
  std::string_view rest = trim(c.substr(sp));
  bool r = false;
  if (iequals(word, "defined")) {
    if (rest.empty() || rest.find_first_of(" \t") != std::string_view::npos) {
      return Status::Error(o.where(line) + ": 'if defined' needs exactly one macro name");
    }
    std::string raw;
    r = lookup_parse_time(rest, &raw) && !raw.empty();
  } else if (iequals(word, "version")) {
    size_t k = 0;
    while (k < rest.size() && std::strchr("<>=!", rest[k])) ++k;
    std::string_view op = rest.substr(0, k);
    std::string_view ver = trim(rest.substr(k));
    int want[3] = {0, 0, 0};
    int parts = 0;
    size_t p = 0;
    while (parts < 3 && p < ver.size() && is_digit(ver[p])) {
      long n = 0;
      while (p < ver.size() && is_digit(ver[p]) && n < 1000000) n = n * 10 + (ver[p++] - '0');
      want[parts++] = static_cast<int>(n);
      if (p < ver.size() && ver[p] == '.') ++p;
    }
    if (parts < 2 || p != ver.size()) {
      return Status::Error(o.where(line) + ": bad version '" + excerpt(ver) +
                           "' in if (expected x.y or x.y.z)");
    }
    int cmp = 0;  // compare only as many components as given ("8.2.3 == 8.2")
    for (int i = 0; i < parts && cmp == 0; ++i) {
      cmp = kCompatVersion[i] < want[i] ? -1 : (kCompatVersion[i] > want[i] ? 1 : 0);
    }
    if (op == "==")
      r = cmp == 0;
    else if (op == "!=")
      r = cmp != 0;
    else if (op == ">=")
      r = cmp >= 0;
    else if (op == "<=")
      r = cmp <= 0;
    else if (op == ">")
      r = cmp > 0;
    else if (op == "<")
      r = cmp < 0;
    else
      return Status::Error(o.where(line) + ": bad version comparison '" + excerpt(op) + "'");
  } else {
    std::string v;
    Status st = cfg.expand(c, &v);
    if (!st.ok) return Status::Error(o.where(line) + ": " + st.message);
    std::string_view t = trim(v);
    char* end = nullptr;
    std::string tmp(t);
    double d = tmp.empty() ? 0 : std::strtod(tmp.c_str(), &end);
    if (t.empty()) {
      r = false;
    } else if (parse_bool_word(t, &r)) {
    } else if (end && *end == '\0') {
      r = d != 0;
    } else {
      return Status::Error(o.where(line) + ": if condition '" + excerpt(c) +
                           "' is not a simple boolean (true/false/yes/no/number, defined NAME, "
                           "version OP x.y)");
    }
  }
  *result = neg ? !r : r;
  return Status::Ok();
}

Status Config::Loader::do_use(const Origin& o, int line, std::string_view rest) {
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) {
    return Status::Error(o.where(line) + ": expected 'use CATEGORY : TEMPLATE'");
  }
  std::string_view cat = trim(rest.substr(0, colon));
  if (!internal::template_category_known(cat)) {
    return Status::Error(o.where(line) + ": unknown template category '" + excerpt(cat) +
                         "' (expected POLICY, FEATURE, ROLE or SECURITY)");
  }
  std::string_view list = trim(rest.substr(colon + 1));
  if (list.empty())
    return Status::Error(o.where(line) + ": 'use " + upper(cat) + "' names no template");
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (is_space(list[i]) || list[i] == ',')) ++i;
    if (i >= list.size()) break;
    size_t b = i;
    while (i < list.size() && (is_name_char(list[i]) || list[i] == '-')) ++i;
    std::string_view name = list.substr(b, i - b);
    while (i < list.size() && is_space(list[i])) ++i;
    std::string_view args;
    bool has_args = false;
    if (i < list.size() && list[i] == '(') {
      size_t close = match_paren(list, i);
      if (close == std::string_view::npos) {
        return Status::Error(o.where(line) + ": unbalanced parentheses in 'use " + upper(cat) +
                             " : " + excerpt(list) + "'");
      }
      args = list.substr(i + 1, close - i - 1);
      has_args = true;
      i = close + 1;
    }
    if (name.empty()) {
      return Status::Error(o.where(line) + ": bad template name in 'use " + upper(cat) + " : " +
                           excerpt(list) + "'");
    }
    const internal::Template* t = internal::template_find(cat, name);
    if (!t) {
      return Status::Error(o.where(line) + ": unknown template 'use " + upper(cat) + ":" +
                           excerpt(name) + "'");
    }
    if (template_depth >= kMaxTemplateDepth) {
      return Status::Error(o.where(line) + ": templates nested too deeply");
    }
    MetaArgs margs(has_args ? args : std::string_view());
    std::string body = meta_substitute(t->body, margs);
    Origin sub;
    sub.file = o.file;
    sub.outer_line = o.meta.empty() ? line + 1 : o.outer_line;
    sub.meta = std::string("use ") + t->category + ":" + t->name;
    sub.text = body;
    ++template_depth;
    Status st = parse(sub);
    --template_depth;
    if (!st.ok) return st;
  }
  return Status::Ok();
}

Status Config::Loader::load_path(const std::string& path, bool missing_ok) {
  std::string text;
  int err = read_text(path, &text);
  if (err == ENOENT && missing_ok) return Status::Ok();
  if (err != 0) return Status::Error("cannot read " + path + ": " + std::strerror(err));
  if (include_depth >= kMaxIncludeDepth) {
    return Status::Error(path + ": includes nested too deeply");
  }
  cfg.files_.push_back(path);
  Origin o;
  o.file = path;
  o.text = text;
  ++include_depth;
  Status st = parse(o);
  --include_depth;
  return st;
}

Status Config::Loader::do_include(const Origin& o, int line, std::string_view rest) {
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) {
    return Status::Error(o.where(line) + ": expected 'include [ifexist] : FILE'");
  }
  bool ifexist = false;
  std::string_view opts = trim(rest.substr(0, colon));
  while (!opts.empty()) {
    size_t sp = 0;
    while (sp < opts.size() && !is_space(opts[sp])) ++sp;
    std::string_view w = opts.substr(0, sp);
    if (iequals(w, "ifexist")) {
      ifexist = true;
    } else if (iequals(w, "command") || iequals(w, "into")) {
      return Status::Error(o.where(line) + ": 'include command' is not supported by Kite");
    } else {
      return Status::Error(o.where(line) + ": unknown include option '" + excerpt(w) + "'");
    }
    opts = trim(opts.substr(sp));
  }
  std::string path;
  Status st = cfg.expand(trim(rest.substr(colon + 1)), &path);
  if (!st.ok) return Status::Error(o.where(line) + ": " + st.message);
  path = std::string(trim(path));
  if (path.empty()) return Status::Error(o.where(line) + ": include names no file");
  if (path.back() == '|') {
    return Status::Error(o.where(line) + ": including a command's output is not supported by Kite");
  }
  if (path.front() != '/' && o.file.find('/') != std::string::npos) {
    path = dir_of(o.file) + "/" + path;
  }
  st = load_path(path, ifexist);
  if (!st.ok) return Status::Error(o.where(line) + ": include: " + st.message);
  return Status::Ok();
}

Status Config::Loader::parse(const Origin& o) {
  // Physical lines.
  std::vector<std::string_view> lines;
  {
    std::string_view t = o.text;
    size_t b = 0;
    for (size_t i = 0; i <= t.size(); ++i) {
      if (i == t.size() || t[i] == '\n') {
        std::string_view l = t.substr(b, i - b);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (i < t.size() || !l.empty()) lines.push_back(l);
        b = i + 1;
      }
    }
  }
  struct Frame {
    bool parent_active;
    bool taken;
    bool in_else;
    int line;
  };
  std::vector<Frame> ifs;
  std::vector<bool> branch_on;  // parallel to ifs: is the current branch selected

  size_t k = 0;
  while (k < lines.size()) {
    int start = static_cast<int>(k);
    std::string_view first = ltrim(lines[k]);
    ++k;
    if (first.empty() || first.front() == '#') continue;
    // Join `\` continuations; comment lines inside a continuation are dropped.
    std::string logical(first);
    while (true) {
      std::string_view r = trim(logical);
      if (r.empty() || r.back() != '\\') break;
      logical.resize(static_cast<size_t>(r.data() - logical.data()) + r.size() - 1);
      while (k < lines.size() && !ltrim(lines[k]).empty() && ltrim(lines[k]).front() == '#') ++k;
      if (k >= lines.size()) break;
      logical += ltrim(lines[k]);
      ++k;
    }
    std::string_view t = trim(logical);
    bool on = branch_on.empty() || branch_on.back();

    // Leading token: a keyword or a macro name.
    size_t e = 0;
    while (e < t.size() && !is_space(t[e]) && t[e] != '=' && t[e] != ':' &&
           !(t[e] == '@' && e + 1 < t.size() && t[e + 1] == '=')) {
      ++e;
    }
    std::string_view tok = t.substr(0, e);
    std::string_view after = ltrim(t.substr(e));
    bool is_assign = !after.empty() && (after.front() == '=' ||
                                        (after.size() > 1 && after[0] == '@' && after[1] == '='));

    if (is_assign && after.front() == '@') {
      // NAME @=tag ... @tag
      std::string_view tag = trim(after.substr(2));
      if (tag.empty() || tag.find_first_of(" \t") != std::string_view::npos) {
        return Status::Error(o.where(start) + ": bad multi-line value marker '@=" + excerpt(tag) +
                             "'");
      }
      std::string value;
      int nlines = 0;
      bool closed = false;
      while (k < lines.size()) {
        std::string_view l = lines[k++];
        std::string_view lt = trim(l);
        if (lt.size() == tag.size() + 1 && lt.front() == '@' && lt.substr(1) == tag) {
          closed = true;
          break;
        }
        if (nlines++ > 0) value += '\n';
        value.append(l);
        if (value.size() > kMaxValueBytes) {
          return Status::Error(o.where(start) + ": value of " + std::string(tok) +
                               " is larger than 1 MiB");
        }
      }
      if (!closed) {
        return Status::Error(o.where(start) + ": multi-line value '" + excerpt(tok) + " @=" +
                             std::string(tag) + "' has no closing '@" + std::string(tag) + "'");
      }
      if (!on) continue;
      if (!valid_name(tok)) {
        return Status::Error(o.where(start) + ": invalid macro name '" + excerpt(tok) + "'");
      }
      Status st = assign(o, start, tok, value);
      if (!st.ok) return st;
      continue;
    }

    if (!is_assign) {
      std::string_view kw = tok;
      if (!kw.empty() && kw.front() == '@' && (iequals(kw, "@use") || iequals(kw, "@include"))) {
        kw.remove_prefix(1);
      }
      if (iequals(kw, "if")) {
        bool r = false;
        if (on) {
          Status st = eval_if(o, start, after, &r);
          if (!st.ok) return st;
        }
        ifs.push_back({on, r, false, start});
        branch_on.push_back(on && r);
        continue;
      }
      if (iequals(kw, "elif")) {
        if (ifs.empty()) return Status::Error(o.where(start) + ": elif without if");
        Frame& f = ifs.back();
        if (f.in_else) return Status::Error(o.where(start) + ": elif after else");
        bool r = false;
        if (f.parent_active && !f.taken) {
          Status st = eval_if(o, start, after, &r);
          if (!st.ok) return st;
        }
        branch_on.back() = f.parent_active && !f.taken && r;
        f.taken = f.taken || r;
        continue;
      }
      if (iequals(kw, "else")) {
        if (ifs.empty()) return Status::Error(o.where(start) + ": else without if");
        Frame& f = ifs.back();
        if (f.in_else) return Status::Error(o.where(start) + ": second else for the same if");
        if (!after.empty()) {
          return Status::Error(o.where(start) + ": unexpected text after else: '" + excerpt(after) +
                               "'");
        }
        f.in_else = true;
        branch_on.back() = f.parent_active && !f.taken;
        f.taken = true;
        continue;
      }
      if (iequals(kw, "endif")) {
        if (ifs.empty()) return Status::Error(o.where(start) + ": endif without if");
        ifs.pop_back();
        branch_on.pop_back();
        continue;
      }
      if (!on) continue;
      if (iequals(kw, "use")) {
        Status st = do_use(o, start, after);
        if (!st.ok) return st;
        continue;
      }
      if (iequals(kw, "include")) {
        Status st = do_include(o, start, after);
        if (!st.ok) return st;
        continue;
      }
      if (iequals(kw, "error") || iequals(kw, "warning")) {
        std::string_view msg = after;
        if (!msg.empty() && msg.front() == ':') msg = trim(msg.substr(1));
        std::string m = o.where(start) + ": " + upper(kw) + ": " + std::string(msg);
        if (iequals(kw, "error")) return Status::Error(m);
        cfg.warnings_.push_back(m);
        continue;
      }
      if (!t.empty() && t.front() == '[') continue;  // "[section]" lines are ignored
      return Status::Error(o.where(start) + ": syntax error: expected 'NAME = value', got '" +
                           excerpt(t) + "'");
    }
    if (!on) continue;
    if (!valid_name(tok)) {
      return Status::Error(o.where(start) + ": invalid macro name '" + excerpt(tok) + "'");
    }
    Status st = assign(o, start, tok, std::string(trim(after.substr(1))));
    if (!st.ok) return st;
  }
  if (!ifs.empty()) {
    return Status::Error(o.where(ifs.back().line) + ": if without matching endif");
  }
  return Status::Ok();
}

Status Config::load_string(std::string_view text, const std::string& name) {
  Loader l(*this);
  Origin o;
  o.file = name;
  o.text = text;
  return l.parse(o);
}

Status Config::load_file(const std::string& path) {
  Loader l(*this);
  return l.load_path(path, false);
}

Status Config::load_dir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return Status::Error("cannot read directory " + dir + ": " + std::strerror(errno));
  }
  std::vector<std::string> names;
  while (struct dirent* de = readdir(d)) {
    std::string n = de->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());

  std::string pattern;
  Status st = expand("$(LOCAL_CONFIG_DIR_EXCLUDE_REGEXP)", &pattern);
  if (!st.ok) return st;
  pcre2_code* re = nullptr;
  if (!pattern.empty()) {
    int errcode = 0;
    PCRE2_SIZE erroff = 0;
    re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(), 0, &errcode,
                       &erroff, nullptr);
    if (!re) return Status::Error("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP is not a valid regex");
  }
  pcre2_match_data* md = re ? pcre2_match_data_create_from_pattern(re, nullptr) : nullptr;
  Status result = Status::Ok();
  for (const std::string& n : names) {
    if (re && pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(n.c_str()), n.size(), 0, 0, md,
                          nullptr) >= 0) {
      continue;
    }
    std::string path = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + n;
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    result = load_file(path);
    if (!result.ok) break;
  }
  if (md) pcre2_match_data_free(md);
  if (re) pcre2_code_free(re);
  return result;
}

Status Config::load_main(const std::string& path, bool must_exist) {
  set_detected("CONFIG_ROOT", dir_of(path));
  Loader l(*this);
  Status st = l.load_path(path, !must_exist);
  if (!st.ok) return st;
  std::string dir;
  st = expand("$(LOCAL_CONFIG_DIR)", &dir);
  if (!st.ok) return st;
  dir = std::string(trim(dir));
  if (!dir.empty()) {
    st = load_dir(dir);
    if (!st.ok) return st;
  }
  return finish();
}

}  // namespace kite::config
