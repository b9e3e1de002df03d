// The configuration loader's statements: assignments (with self-references replaced at once
// and values equal to a built-in default kept at the default), keywords, `if` blocks.
// HTCONDOR: admin-manual/introduction-to-configuration (25.x).
#include <cstdio>
#include <cstring>
#include <vector>

#include "policy/config/internal.h"
#include "policy/config/line_reader.h"
#include "policy/config/loader.h"
#include "policy/config/text.h"

namespace kite::config {

using internal::excerpt;
using internal::iequals;
using internal::is_space;
using internal::ltrim;
using internal::match_paren;
using internal::trim;
using internal::upper;
using internal::valid_name;

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
  // SUBSYS.NAME = $(NAME) refers to itself only for this configuration's own subsystem.
  std::string base = dot == std::string::npos || key.compare(0, dot, cfg.subsystem_) != 0 ||
                             dot != cfg.subsystem_.size()
                         ? ""
                         : key.substr(dot + 1);
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
    // The comparison is exact but for true/false in any case (`SUSPEND = FALSE` stays "False").
    const internal::Default* d = internal::default_find(name);
    if (d && d->matchable && internal::same_as_default(d->value, value)) return Status::Ok();
    cfg.table_[key] = Entry{std::string(name), std::move(value), o.where(line), false};
  } else {
    it->second.value = std::move(value);
    it->second.source = o.where(line);
    it->second.is_default = false;
  }
  return Status::Ok();
}

namespace {

// An assignment operator after a macro name: '=', ':' (HTCondor's old form, read as '='), '@'
// for @=tag, '+' for += (with `sep`, doubled or not, for +,= +;= +|= +&= +*= and +&&= ...).
struct Op {
  char kind = 0;
  char sep = 0;
  bool doubled = false;
  std::string_view rest;  // the text after the operator
};

bool parse_op(std::string_view after, Op* op) {
  if (after.empty()) return false;
  char c = after.front();
  if (c == '=' || c == ':') {
    *op = Op{c, 0, false, trim(after.substr(1))};
    return true;
  }
  if (c == '@' && after.size() > 1 && after[1] == '=') {
    *op = Op{'@', 0, false, trim(after.substr(2))};
    return true;
  }
  if (c != '+') return false;
  size_t k = 1;
  Op o{'+', 0, false, {}};
  if (k < after.size() && std::strchr(",;|&*", after[k]) && after[k] != '\0') {
    o.sep = after[k++];
    if (k < after.size() && after[k] == o.sep) o.doubled = true, ++k;
  }
  if (k >= after.size() || after[k] != '=') return false;
  o.rest = trim(after.substr(k + 1));
  *op = o;
  return true;
}

// Where the macro name of a statement ends: at a blank or an operator.
size_t name_end(std::string_view t) {
  size_t e = 0;
  while (e < t.size() && !is_space(t[e]) && t[e] != '=' && t[e] != ':' && t[e] != '+' &&
         !(t[e] == '@' && e + 1 < t.size() && t[e + 1] == '=')) {
    ++e;
  }
  return e;
}

bool is_keyword(std::string_view kw) {
  for (const char* k : {"if", "elif", "else", "endif", "use", "include", "error", "warning"}) {
    if (iequals(kw, k)) return true;
  }
  return false;
}

}  // namespace

// `if` nesting: which branch of each open `if` is being read.
struct Config::Loader::IfStack {
  struct Frame {
    bool parent_active;
    bool taken;
    bool in_else;
    bool on;  // the current branch is read
    int line;
  };
  std::vector<Frame> frames;
  bool on() const { return frames.empty() || frames.back().on; }
};

Status Config::Loader::parse(const Origin& o) {
  internal::LineReader reader(o.text);
  IfStack ifs;
  std::string statement;
  int start = 0;
  while (reader.next(&statement, &start)) {
    std::string_view t = statement;
    // HTCondor ignores a ':' that starts a line of an if body (or an `:if`), so that older
    // parsers skip the line.
    if (!t.empty() && t.front() == ':' &&
        (!ifs.frames.empty() ||
         (t.size() >= 3 && iequals(t.substr(1, 2), "if") && (t.size() == 3 || is_space(t[3]))))) {
      t = ltrim(t.substr(1));
    }
    size_t e = name_end(t);
    std::string_view tok = t.substr(0, e);
    std::string_view after = ltrim(t.substr(e));
    std::string_view kw = tok;
    if (iequals(kw, "@use") || iequals(kw, "@include")) kw.remove_prefix(1);
    Op op;
    bool assign_op = parse_op(after, &op);

    if (assign_op && op.kind == '@') {
      Status st = assign_block(o, start, tok, op.rest, reader, ifs.on());
      if (!st.ok) return st;
      continue;
    }
    if (is_keyword(kw) && !(assign_op && op.kind != ':')) {
      Status st = keyword(o, start, kw, after, &ifs);
      if (!st.ok) return st;
      continue;
    }
    if (!ifs.on()) continue;
    if (!assign_op) {
      if (!t.empty() && t.front() == '[') continue;  // "[section]" lines are ignored
      return Status::Error(o.where(start) + ": syntax error: expected 'NAME = value', got '" +
                           excerpt(t) + "'");
    }
    if (!valid_name(tok)) {
      return Status::Error(o.where(start) + ": invalid macro name '" + excerpt(tok) + "'");
    }
    std::string value(op.rest);
    if (op.kind == ':' && !iequals(tok, "RunBenchmarks")) {
      // Read as '=', with the warning HTCondor gives (RunBenchmarks is grandfathered in).
      cfg.warnings_.push_back(o.where(start) +
                              ": obsolete use of ':' for parameter assignment at " +
                              std::string(tok) + " : " + excerpt(op.rest));
    }
    if (op.kind == '+') {
      // NAME += v appends to a non-empty value: "old v", "old,v" (+,=), "old && v" (+&&=).
      std::string cur;
      if (lookup_parse_time(tok, &cur) && !cur.empty()) {
        if (!op.sep) {
          cur += ' ';
        } else if (op.doubled) {
          cur += std::string(" ") + op.sep + op.sep + " ";
        } else {
          cur += op.sep;
        }
        value = cur + value;
      }
    }
    Status st = assign(o, start, tok, std::move(value));
    if (!st.ok) return st;
  }
  if (!ifs.frames.empty()) {
    return Status::Error(o.where(ifs.frames.back().line) + ": if without matching endif");
  }
  return Status::Ok();
}

// NAME @=tag, its lines, @tag: read even in a skipped branch, assigned only in a read one.
Status Config::Loader::assign_block(const Origin& o, int start, std::string_view name,
                                    std::string_view tag, internal::LineReader& reader, bool on) {
  if (tag.empty() || tag.find_first_of(" \t") != std::string_view::npos) {
    return Status::Error(o.where(start) + ": bad multi-line value marker '@=" + excerpt(tag) + "'");
  }
  std::string value;
  bool too_big = false;
  if (!reader.block(tag, kMaxValueBytes, &value, &too_big)) {
    if (too_big) {
      return Status::Error(o.where(start) + ": value of " + std::string(name) +
                           " is larger than 1 MiB");
    }
    return Status::Error(o.where(start) + ": multi-line value '" + excerpt(name) +
                         " @=" + std::string(tag) + "' has no closing '@" + std::string(tag) + "'");
  }
  if (!on) return Status::Ok();
  if (!valid_name(name)) {
    return Status::Error(o.where(start) + ": invalid macro name '" + excerpt(name) + "'");
  }
  return assign(o, start, name, std::move(value));
}

// if/elif/else/endif (always followed, to keep the nesting), use/include/error/warning (in a
// branch that is read).
Status Config::Loader::keyword(const Origin& o, int start, std::string_view kw,
                               std::string_view after, IfStack* ifs) {
  auto& frames = ifs->frames;
  bool on = ifs->on();
  if (iequals(kw, "if")) {
    bool r = false;
    if (on) {
      Status st = eval_if(o, start, after, &r);
      if (!st.ok) return st;
    }
    frames.push_back({on, r, false, on && r, start});
    return Status::Ok();
  }
  if (iequals(kw, "elif")) {
    if (frames.empty()) return Status::Error(o.where(start) + ": elif without if");
    IfStack::Frame& f = frames.back();
    if (f.in_else) return Status::Error(o.where(start) + ": elif after else");
    bool r = false;
    if (f.parent_active && !f.taken) {
      Status st = eval_if(o, start, after, &r);
      if (!st.ok) return st;
    }
    f.on = f.parent_active && !f.taken && r;
    f.taken = f.taken || r;
    return Status::Ok();
  }
  if (iequals(kw, "else")) {
    if (frames.empty()) return Status::Error(o.where(start) + ": else without if");
    IfStack::Frame& f = frames.back();
    if (f.in_else) return Status::Error(o.where(start) + ": second else for the same if");
    if (!after.empty()) {
      return Status::Error(o.where(start) + ": unexpected text after else: '" + excerpt(after) +
                           "'");
    }
    f.in_else = true;
    f.on = f.parent_active && !f.taken;
    f.taken = true;
    return Status::Ok();
  }
  if (iequals(kw, "endif")) {
    if (frames.empty()) return Status::Error(o.where(start) + ": endif without if");
    frames.pop_back();
    return Status::Ok();
  }
  if (!on) return Status::Ok();
  if (iequals(kw, "use")) return do_use(o, start, after);
  if (iequals(kw, "include")) return do_include(o, start, after);
  // error / warning
  std::string_view msg = after;
  if (!msg.empty() && msg.front() == ':') msg = trim(msg.substr(1));
  std::string m = o.where(start) + ": " + upper(kw) + ": " + std::string(msg);
  if (iequals(kw, "error")) return Status::Error(m);
  cfg.warnings_.push_back(m);
  return Status::Ok();
}

}  // namespace kite::config
