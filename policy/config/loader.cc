// The configuration loader's statements: assignments (with self-references replaced at once
// and values equal to a built-in default kept at the default), keywords, `if` blocks.
// HTCONDOR: admin-manual/introduction-to-configuration (25.x).
#include <cstdio>

#include "policy/config/internal.h"
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

}  // namespace kite::config
