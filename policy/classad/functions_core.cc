// Core built-ins: the type predicates (isUndefined, isError, ...), the lazy
// ifThenElse, eval, unparse, unresolved, evalInEachContext, countMatches and
// userMap (with no maps configured, as on a Kite node).
// HTCONDOR: classad-builtin-functions "isUndefined", "ifThenElse", "eval",
// "unparse", "unresolved", "evalInEachContext", "countMatches", "userMap".
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <pcre2.h>
#include <strings.h>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/expr.h"
#include "policy/classad/functions.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/classad/value.h"

namespace kite::classad {

// Defined in functions_math.cc.
Value builtin_to_string(const Value& v);

namespace {

// ---- type predicates ----

template <ValueType T>
void fn_is_type(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  out = Value::boolean(v.type() == T);
}

// HTCONDOR: classad-builtin-functions "ifThenElse": lazy; a boolean or
// number picks a branch (non-zero is true), UNDEFINED gives UNDEFINED and
// anything else ERROR.
void fn_ifthenelse(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 3) {
    out = Value::error();
    return;
  }
  Value c;
  ctx.eval(call.args[0], c);
  bool take;
  switch (c.type()) {
    case ValueType::kBoolean: take = c.as_boolean(); break;
    case ValueType::kInteger: take = c.as_integer() != 0; break;
    case ValueType::kReal: take = c.as_real() != 0.0; break;
    case ValueType::kUndefined: out = Value::undefined(); return;
    default: out = Value::error(); return;
  }
  ctx.eval(call.args[take ? 1 : 2], out);
}

// HTCONDOR: classad-builtin-functions "eval": the argument's string form is
// parsed and evaluated in the current scope; unparsable text is ERROR.
void fn_eval(const CallExpr& call, EvalContext& ctx, Value& out) {
  // Nesting bound: eval() can build ever-deeper expressions from strings.
  thread_local int depth = 0;
  if (call.nargs != 1 || depth > 64) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  Value s = builtin_to_string(v);
  if (!s.is_string()) {
    out = Value::error();
    return;
  }
  ExprPtr e = parse_expr(s.as_string());
  if (!e) {
    out = Value::error();
    return;
  }
  expr_set_parent_scope(e.get(), ctx.scope());
  ++depth;
  ctx.eval(e.get(), out);
  --depth;
}

// HTCONDOR: classad-builtin-functions "unparse": the argument must be an
// attribute reference; its text is looked up by that exact name in the
// current ad (no scope walk, so `MY.e` or `n.x` find nothing and give "")
// and the bound expression is returned unparsed, unevaluated.
void fn_unparse(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1 || call.args[0]->kind != ExprKind::kAttr) {
    out = Value::error();
    return;
  }
  std::string name, text;
  unparse_expr(name, call.args[0]);
  const ClassAd* ad = ctx.scope();
  if (ad) {
    if (const Expr* e = ad->lookup(name)) unparse_pretty(text, e);
  }
  out = Value::string(text);
}

// ---- unresolved(): external references of an attribute's expression ----

// Collects the references of an expression that do not resolve, the way
// HTCondor's ClassAd::_GetExternalReferences (full names) does: a name that
// resolves is followed into its expression; `base.name` with an UNDEFINED
// base is reported whole ("y.z").
class RefCollector {
 public:
  std::vector<std::string> refs;

  // False when the walk hits something HTCondor treats as a failure (a
  // base that is not an ad, too deep a chain); the caller reports nothing.
  bool walk(const Expr* e, const ClassAd* cur) {
    if (++depth_ > kMaxDepth) return false;
    bool ok = walk_node(e, cur);
    --depth_;
    return ok;
  }

 private:
  static constexpr int kMaxDepth = 200;
  int depth_ = 0;

  void add(std::string_view name) {
    for (const std::string& r : refs) {
      if (r.size() == name.size() && strncasecmp(r.data(), name.data(), r.size()) == 0) return;
    }
    refs.emplace_back(name);
  }

  // The ad the lookup starts from and the expression bound there, following
  // the lead evaluator's scoping rules (parents, then the match partner).
  const Expr* lookup(const ClassAd* start, const AttrExpr* ref, const ClassAd** where) {
    if (!start) return nullptr;
    EvalContext sub(start);
    return sub.resolve(ref, where);
  }

  bool walk_node(const Expr* e, const ClassAd* cur) {
    switch (e->kind) {
      case ExprKind::kLiteral: {
        const Value& v = as_literal(e)->value;
        if (v.is_list()) {
          for (const Expr* item : v.as_list()->items) {
            if (!walk(item, cur)) return false;
          }
        } else if (v.is_classad()) {
          for (const ClassAd::Entry& entry : v.as_classad()->entries()) {
            if (!walk(entry.expr, cur)) return false;
          }
        }
        return true;
      }
      case ExprKind::kAttr: return walk_attr(as_attr(e), cur);
      case ExprKind::kOp: {
        const OpExpr* op = as_op(e);
        for (const Expr* sub : {op->a, op->b, op->c}) {
          if (sub && !walk(sub, cur)) return false;
        }
        return true;
      }
      case ExprKind::kCall: {
        const CallExpr* c = as_call(e);
        for (uint32_t i = 0; i < c->nargs; ++i) {
          if (!walk(c->args[i], cur)) return false;
        }
        return true;
      }
    }
    return false;
  }

  bool walk_attr(const AttrExpr* ref, const ClassAd* cur) {
    const ClassAd* where = nullptr;
    const Expr* bound = nullptr;
    if (!ref->base) {
      if (!cur) return false;
      bound = lookup(cur, ref, &where);
    } else {
      if (!cur) return false;
      Value base;
      EvalContext sub(cur);
      sub.eval(ref->base, base);
      if (base.is_undefined()) {
        std::string full;
        unparse_expr(full, ref->base);
        full += '.';
        full.append(ref->name->view());
        add(full);
        return true;
      }
      if (!base.is_classad()) return false;
      AttrExpr plain(ref->name_id, ref->name);  // `name` looked up from the ad
      bound = lookup(base.as_classad(), &plain, &where);
    }
    if (!bound) {
      add(ref->name->view());
      return true;
    }
    return walk(bound, where ? where : cur);
  }
};

// HTCondor's reference set orders names case-insensitively.
bool name_less(const std::string& a, const std::string& b) {
  return strcasecmp(a.c_str(), b.c_str()) < 0;
}

// The name as unresolved() reports it: a leading "target." is dropped.
std::string_view strip_target(std::string_view s) {
  if (s.size() >= 7 && strncasecmp(s.data(), "target.", 7) == 0) s.remove_prefix(7);
  return s;
}

// HTCONDOR: classad-builtin-functions "unresolved": the external and
// unresolved references of the attribute's expression, comma-joined in
// case-insensitive order; with a pattern, whether any reference matches
// it (Perl syntax, caseless). A missing attribute is UNDEFINED.
void fn_unresolved(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 1 || call.nargs > 2 || call.args[0]->kind != ExprKind::kAttr) {
    out = Value::error();
    return;
  }
  const ClassAd* where = nullptr;
  const Expr* bound = ctx.resolve(as_attr(call.args[0]), &where);
  if (!bound) {
    out = Value::undefined();
    return;
  }
  pcre2_code* re = nullptr;
  if (call.nargs == 2) {
    Value pat;
    ctx.eval(call.args[1], pat);
    if (!pat.is_string()) {
      out = Value::error();
      return;
    }
    int errcode;
    PCRE2_SIZE erroff;
    re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pat.string_obj()->data()),
                       pat.as_string().size(), PCRE2_CASELESS, &errcode, &erroff, nullptr);
    if (!re) {
      out = Value::error();
      return;
    }
  }
  // The references are collected relative to the current ad, as the
  // reference does (not the ad the attribute was found in).
  RefCollector rc;
  const ClassAd* cur = ctx.scope();
  if (!cur || !rc.walk(bound, cur)) rc.refs.clear();
  std::sort(rc.refs.begin(), rc.refs.end(), name_less);

  if (re) {
    bool found = false;
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(re, nullptr);
    for (const std::string& r : rc.refs) {
      std::string_view s = strip_target(r);
      if (pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, PCRE2_NOTEMPTY, md,
                      nullptr) > 0) {
        found = true;
        break;
      }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    out = Value::boolean(found);
    return;
  }
  std::string joined;
  for (const std::string& r : rc.refs) {
    if (!joined.empty()) joined += ',';
    joined.append(strip_target(r));
  }
  out = Value::string(joined);
}

// ---- evalInEachContext / countMatches ----

// Evaluates `expr` with each ad of the list as the scope. Returns false
// when `out` already holds the whole answer.
bool each_context_setup(const CallExpr& call, EvalContext& ctx, Value& out, bool count,
                        const Expr** expr, Value& list) {
  if (call.nargs != 2) {
    out = Value::error();
    return false;
  }
  // An attribute reference is looked up first, so its expression (not its
  // value) is what gets evaluated in each ad; a missing one is evaluated
  // as written.
  *expr = call.args[0];
  if (call.args[0]->kind == ExprKind::kAttr) {
    const ClassAd* where = nullptr;
    if (const Expr* bound = ctx.resolve(as_attr(call.args[0]), &where)) *expr = bound;
  }
  ctx.eval(call.args[1], list);
  if (list.is_undefined()) {
    out = count ? Value::integer(0) : Value::undefined();
    return false;
  }
  if (!list.is_list()) {
    out = Value::error();
    return false;
  }
  return true;
}

// One element: UNDEFINED if the element is, ERROR if it is not an ad, else
// `expr` evaluated with the ad as the current scope.
void eval_in_element(EvalContext& ctx, const Expr* expr, const Expr* element, Value& out) {
  Value ad;
  ctx.eval(element, ad);
  if (!ad.is_classad()) {
    out = ad.is_undefined() ? Value::undefined() : Value::error();
    return;
  }
  ctx.eval_in(ad.as_classad(), expr, out);
}

// HTCONDOR: classad-builtin-functions "evalInEachContext"
void fn_evalineachcontext(const CallExpr& call, EvalContext& ctx, Value& out) {
  const Expr* expr;
  Value list;
  if (!each_context_setup(call, ctx, out, false, &expr, list)) return;
  ListObj* result = ListObj::make();
  Value v;
  for (const Expr* element : list.as_list()->items) {
    eval_in_element(ctx, expr, element, v);
    result->items.push_back(new LiteralExpr(v));
  }
  out = Value::adopt_list(result);
}

// HTCONDOR: classad-builtin-functions "countMatches": how many ads the
// expression is true in (non-zero numbers count); never UNDEFINED.
void fn_countmatches(const CallExpr& call, EvalContext& ctx, Value& out) {
  const Expr* expr;
  Value list;
  if (!each_context_setup(call, ctx, out, true, &expr, list)) return;
  int64_t n = 0;
  Value v;
  for (const Expr* element : list.as_list()->items) {
    eval_in_element(ctx, expr, element, v);
    if ((v.is_boolean() && v.as_boolean()) || (v.is_integer() && v.as_integer() != 0) ||
        (v.is_real() && v.as_real() != 0.0)) {
      ++n;
    }
  }
  out = Value::integer(n);
}

// HTCONDOR: classad-builtin-functions "userMap": Kite configures no user
// maps, so no name maps: the 2- and 3-argument forms are UNDEFINED and the
// 4-argument form is its default. ERROR map or user names give ERROR.
void fn_usermap(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 2 || call.nargs > 4) {
    out = Value::error();
    return;
  }
  Value map, user, pref, dflt;
  ctx.eval(call.args[0], map);
  ctx.eval(call.args[1], user);
  if (call.nargs >= 3) ctx.eval(call.args[2], pref);
  if (call.nargs == 4) ctx.eval(call.args[3], dflt);
  if ((!map.is_string() || !user.is_string()) && (map.is_error() || user.is_error())) {
    out = Value::error();
    return;
  }
  out = call.nargs == 4 ? dflt : Value::undefined();
}

}  // namespace

FunctionTable functions_core() {
  static const FunctionEntry k[] = {
      {"isUndefined", fn_is_type<ValueType::kUndefined>},
      {"isError", fn_is_type<ValueType::kError>},
      {"isString", fn_is_type<ValueType::kString>},
      {"isInteger", fn_is_type<ValueType::kInteger>},
      {"isReal", fn_is_type<ValueType::kReal>},
      {"isBoolean", fn_is_type<ValueType::kBoolean>},
      {"isList", fn_is_type<ValueType::kList>},
      {"isClassAd", fn_is_type<ValueType::kClassAd>},
      {"isAbsTime", fn_is_type<ValueType::kAbsTime>},
      {"isRelTime", fn_is_type<ValueType::kRelTime>},
      {"ifThenElse", fn_ifthenelse},
      {"eval", fn_eval},
      {"unparse", fn_unparse},
      {"unresolved", fn_unresolved},
      {"evalInEachContext", fn_evalineachcontext},
      {"countMatches", fn_countmatches},
      {"userMap", fn_usermap},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
