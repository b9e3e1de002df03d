// The configuration loader's directives: `if` conditions, `use` templates and `include` files.
// HTCONDOR: introduction-to-configuration "Conditionals", "Configuration Templates",
// "Including Configuration from Elsewhere".
#include <errno.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/config/internal.h"
#include "policy/config/loader.h"
#include "policy/config/template_args.h"
#include "policy/config/text.h"
#include "policy/config/typed.h"

namespace kite::config {
namespace {

using internal::dir_of;
using internal::excerpt;
using internal::iequals;
using internal::is_digit;
using internal::is_name_char;
using internal::is_space;
using internal::match_paren;
using internal::meta_substitute;
using internal::MetaArgs;
using internal::trim;
using internal::upper;

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

}  // namespace

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
    bool word = !t.empty() && parse_bool_word(t, &r);  // true/yes/t/1, false/no/f/0
    if (t.empty()) {
      r = false;
    } else if (!word && end && *end == '\0') {
      r = d != 0;
    } else if (!word) {
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
  bool command = false;
  std::string into;  // `into <cache-file>`: read the file instead when it exists
  std::string_view opts = trim(rest.substr(0, colon));
  while (!opts.empty()) {
    size_t sp = 0;
    while (sp < opts.size() && !is_space(opts[sp])) ++sp;
    std::string_view w = opts.substr(0, sp);
    if (iequals(w, "ifexist")) {
      ifexist = true;
    } else if (iequals(w, "command")) {
      command = true;
    } else if (iequals(w, "into")) {
      opts = trim(opts.substr(sp));
      size_t end = 0;
      while (end < opts.size() && !is_space(opts[end])) ++end;
      Status est = cfg.expand(opts.substr(0, end), &into);
      if (!est.ok || into.empty()) {
        return Status::Error(o.where(line) + ": 'include ... into' names no cache file");
      }
      sp = end;
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
  if (path.back() == '|' || command) {
    // HTCONDOR: config.cpp Open_macro_source: `include : COMMAND |` (or `include command :`)
    // reads the command's output as configuration text named after the command.
    if (path.back() == '|')
      path = std::string(trim(std::string_view(path).substr(0, path.size() - 1)));
    // HTCONDOR: "If that file exists, it will be read and the command line will not be
    // executed. If that file does not exist, the output of the command line will be written
    // into it" (by the cache writer the caller gives: the configuration language only reads).
    struct stat cache;
    if (!into.empty() && ::stat(into.c_str(), &cache) == 0) {
      st = load_path(into, false);
      if (!st.ok) return Status::Error(o.where(line) + ": include: " + st.message);
      return Status::Ok();
    }
    if (!cfg.runner_) {
      return Status::Error(o.where(line) + ": include: running '" + path +
                           "' is not supported here (the agent, kite cm and the kite commands "
                           "that read their configuration run configuration commands; use the "
                           "'into FILE' form with a file one of them wrote)");
    }
    std::string text;
    st = cfg.runner_(path, &text);
    if (!st.ok && ifexist) return Status::Ok();  // "unless the ifexist keyword is also specified"
    if (!st.ok) return Status::Error(o.where(line) + ": include: " + path + ": " + st.message);
    if (!into.empty() && cfg.cache_writer_) {
      st = cfg.cache_writer_(into, text);
      if (!st.ok) return Status::Error(o.where(line) + ": include: " + into + ": " + st.message);
    }
    if (include_depth >= kMaxIncludeDepth) {
      return Status::Error(o.where(line) + ": include: includes nested too deeply");
    }
    Origin inner;
    inner.file = path;
    inner.text = text;
    ++include_depth;
    st = parse(inner);
    --include_depth;
    if (!st.ok) return Status::Error(o.where(line) + ": include: " + st.message);
    return Status::Ok();
  }
  if (path.front() != '/' && o.file.find('/') != std::string::npos) {
    path = dir_of(o.file) + "/" + path;
  }
  st = load_path(path, ifexist);
  if (!st.ok) return Status::Error(o.where(line) + ": include: " + st.message);
  return Status::Ok();
}

}  // namespace kite::config
