// Built-in regular-expression functions on PCRE2: regexp, regexpMember,
// regexps, replace, replaceAll and stringList_regexpMember. The last compiled
// pattern is cached per thread, since policy expressions match the same
// pattern again and again.
// HTCONDOR: classad-builtin-functions "regexp" ... "stringList_regexpMember".
#include <pcre2.h>

#include <string>
#include <string_view>

#include "policy/classad/functions.h"
#include "policy/classad/stringlist_tokens.h"

namespace kite::classad {

namespace {

// Patterns and targets are C strings in the reference: they end at a NUL.
std::string_view cstr(std::string_view s) {
  size_t nul = s.find('\0');
  return nul == std::string_view::npos ? s : s.substr(0, nul);
}

// One compiled pattern (or the fact that it does not compile).
struct RegexCache {
  std::string pattern;
  uint32_t options = 0;
  bool filled = false;
  pcre2_code* code = nullptr;
  pcre2_match_data* match = nullptr;

  ~RegexCache() { clear(); }
  void clear() {
    if (match) pcre2_match_data_free(match);
    if (code) pcre2_code_free(code);
    match = nullptr;
    code = nullptr;
  }
};

// The compiled form of `pattern`; false if it is not a valid expression.
bool regex_compile(std::string_view pattern, uint32_t options, pcre2_code** code,
                   pcre2_match_data** match) {
  static thread_local RegexCache cache;
  pattern = cstr(pattern);
  if (!cache.filled || cache.options != options || cache.pattern != pattern) {
    cache.clear();
    cache.pattern.assign(pattern);
    cache.options = options;
    cache.filled = true;
    int err;
    PCRE2_SIZE err_offset;
    cache.code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(cache.pattern.data()),
                               cache.pattern.size(), options, &err, &err_offset, nullptr);
    if (cache.code) cache.match = pcre2_match_data_create_from_pattern(cache.code, nullptr);
  }
  *code = cache.code;
  *match = cache.match;
  return cache.code != nullptr && cache.match != nullptr;
}

// Options of regexp/regexps/replace/replaceAll/regexpMember: the reference
// looks for lower-case letters only ("I" is ignored, as its results show).
struct MatchOptions {
  uint32_t pcre = 0;
  bool full_target = false;  // 'f': return the whole target with substitutions
  bool find_all = false;     // 'g': substitute every match
};

MatchOptions parse_options(std::string_view opts, bool substituting) {
  MatchOptions m;
  auto has = [&](char c) { return opts.find(c) != std::string_view::npos; };
  if (has('i')) m.pcre |= PCRE2_CASELESS;
  if (has('m')) m.pcre |= PCRE2_MULTILINE;
  if (has('s')) m.pcre |= PCRE2_DOTALL;
  if (has('x')) m.pcre |= PCRE2_EXTENDED;
  if (substituting) {
    m.full_target = has('f');
    m.find_all = has('g');
  }
  return m;
}

// Matches `pattern` against `target`; with `replace` set, builds the
// substitution text (backslash-digit inserts a group). Mirrors the
// reference's loop, including how it steps over empty matches (which makes
// a global replace of a pattern matching empty at the end an error).
void regex_run(std::string_view pattern, std::string_view target, const std::string_view* replace,
               const MatchOptions& opt, Value& out) {
  pcre2_code* code;
  pcre2_match_data* md;
  if (!regex_compile(pattern, opt.pcre, &code, &md)) {
    out = Value::error();
    return;
  }
  target = cstr(target);
  auto subject = reinterpret_cast<PCRE2_SPTR>(target.data());
  size_t idx = 0;
  bool empty_match = false;
  std::string output;
  int status;
  do {
    uint32_t flags = empty_match ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
    status = pcre2_match(code, subject, target.size(), idx, flags, md, nullptr);
    if (empty_match && status == PCRE2_ERROR_NOMATCH) {
      // Step over one character after an empty match.
      output += idx < target.size() ? target[idx] : '\0';
      ++idx;
      empty_match = false;
      status = 0;
      continue;
    }
    if (status >= 0 && replace) {
      PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
      if (opt.full_target && ov[0] >= idx) output.append(target.substr(idx, ov[0] - idx));
      std::string_view rep = cstr(*replace);
      for (size_t r = 0; r < rep.size(); ++r) {
        if (rep[r] == '\\' && r + 1 < rep.size() && rep[r + 1] >= '0' && rep[r + 1] <= '9') {
          int group = rep[++r] - '0';
          if (group >= status) {
            out = Value::error();
            return;
          }
          if (ov[2 * group] != PCRE2_UNSET && ov[2 * group + 1] >= ov[2 * group]) {
            output.append(target.substr(ov[2 * group], ov[2 * group + 1] - ov[2 * group]));
          }
        } else {
          output += rep[r];
        }
      }
      idx = ov[1];
      if (ov[0] == ov[1]) empty_match = true;
    }
  } while (status >= 0 && opt.find_all);

  if (status < 0 && status != PCRE2_ERROR_NOMATCH) {
    out = Value::error();
  } else if (!replace) {
    out = Value::boolean(status >= 0);
  } else {
    if (opt.full_target && idx < target.size()) output.append(target.substr(idx));
    out = Value::string(output);
  }
}

// Evaluates `n` arguments and applies the shared ERROR-then-UNDEFINED rule of
// the regex family; the optional last one (`opt_index`, or -1) must then be a
// string. False (with `out` set) when the call is decided already.
bool eval_args(const CallExpr& call, EvalContext& ctx, Value* v, int opt_index, Value& out) {
  for (uint32_t i = 0; i < call.nargs; ++i) ctx.eval(call.args[i], v[i]);
  for (uint32_t i = 0; i < call.nargs; ++i) {
    if (v[i].is_error()) {
      out = Value::error();
      return false;
    }
  }
  for (uint32_t i = 0; i < call.nargs; ++i) {
    if (v[i].is_undefined()) {
      out = Value::undefined();
      return false;
    }
  }
  if (opt_index >= 0 && !v[opt_index].is_string()) {
    out = Value::error();
    return false;
  }
  return true;
}

// HTCONDOR: classad-builtin-functions "regexp"
void fn_regexp(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 2 && call.nargs != 3) {
    out = Value::error();
    return;
  }
  Value v[3];
  if (!eval_args(call, ctx, v, call.nargs == 3 ? 2 : -1, out)) return;
  if (!v[0].is_string() || !v[1].is_string()) {
    out = Value::error();
    return;
  }
  MatchOptions opt = parse_options(call.nargs == 3 ? v[2].as_string() : "", false);
  regex_run(v[0].as_string(), v[1].as_string(), nullptr, opt, out);
}

// HTCONDOR: classad-builtin-functions "regexps", "replace", "replaceall"
// (replace adds the 'f' option, replaceAll 'f' and 'g').
template <bool kFull, bool kAll>
void fn_subst(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 3 && call.nargs != 4) {
    out = Value::error();
    return;
  }
  Value v[4];
  if (!eval_args(call, ctx, v, call.nargs == 4 ? 3 : -1, out)) return;
  if (!v[0].is_string() || !v[1].is_string() || !v[2].is_string()) {
    out = Value::error();
    return;
  }
  MatchOptions opt = parse_options(call.nargs == 4 ? v[3].as_string() : "", true);
  opt.full_target |= kFull;
  opt.find_all |= kAll;
  std::string_view rep = v[2].as_string();
  regex_run(v[0].as_string(), v[1].as_string(), &rep, opt, out);
}

// HTCONDOR: classad-builtin-functions "regexpMember": TRUE on the first
// matching string; a non-string, non-UNDEFINED item before that is ERROR;
// otherwise UNDEFINED if an item was UNDEFINED, else FALSE. (An invalid
// pattern simply matches nothing, as in the reference.)
void fn_regexp_member(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 2 && call.nargs != 3) {
    out = Value::error();
    return;
  }
  Value v[3];
  if (!eval_args(call, ctx, v, call.nargs == 3 ? 2 : -1, out)) return;
  if (!v[0].is_string() || !v[1].is_list()) {
    out = Value::error();
    return;
  }
  MatchOptions opt = parse_options(call.nargs == 3 ? v[2].as_string() : "", false);
  bool saw_undefined = false;
  Value item, matched;
  for (const Expr* e : v[1].as_list()->items) {
    ctx.eval(e, item);
    if (!item.is_string()) {
      if (!item.is_undefined()) {
        out = Value::error();
        return;
      }
      saw_undefined = true;
      continue;
    }
    regex_run(v[0].as_string(), item.as_string(), nullptr, opt, matched);
    if (matched.is_boolean() && matched.as_boolean()) {
      out = Value::boolean(true);
      return;
    }
  }
  out = saw_undefined ? Value::undefined() : Value::boolean(false);
}

// HTCONDOR: classad-builtin-functions "stringList_regexpMember": every
// argument must be a string; options here also accept upper case.
void fn_stringlist_regexp_member(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 2 || call.nargs > 4) {
    out = Value::error();
    return;
  }
  Value v[4];
  for (uint32_t i = 0; i < call.nargs; ++i) ctx.eval(call.args[i], v[i]);
  for (uint32_t i = 0; i < call.nargs; ++i) {
    if (!v[i].is_string()) {
      out = Value::error();
      return;
    }
  }
  uint32_t options = 0;
  if (call.nargs == 4) {
    for (char c : cstr(v[3].as_string())) {
      switch (c) {
        case 'i':
        case 'I': options |= PCRE2_CASELESS; break;
        case 'm':
        case 'M': options |= PCRE2_MULTILINE; break;
        case 's':
        case 'S': options |= PCRE2_DOTALL; break;
        case 'x':
        case 'X': options |= PCRE2_EXTENDED; break;
        default: break;
      }
    }
  }
  pcre2_code* code;
  pcre2_match_data* md;
  if (!regex_compile(v[0].as_string(), options, &code, &md)) {
    out = Value::error();
    return;
  }
  StringTokens tokens(v[1].as_string(), call.nargs >= 3 ? v[2].as_string() : ", ");
  std::string_view item;
  bool any = false, matched = false;
  while (tokens.next(item)) {
    any = true;
    if (pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(item.data()), item.size(), 0, 0, md,
                    nullptr) > 0) {
      matched = true;
      break;
    }
  }
  out = any ? Value::boolean(matched) : Value::undefined();
}

}  // namespace

FunctionTable functions_regex() {
  static const FunctionEntry k[] = {
      {"regexp", fn_regexp},
      {"regexps", fn_subst<false, false>},
      {"replace", fn_subst<true, false>},
      {"replaceAll", fn_subst<true, true>},
      {"regexpMember", fn_regexp_member},
      {"stringList_regexpMember", fn_stringlist_regexp_member},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
