// Built-in functions over job environments, arguments and users: envV1ToV2,
// mergeEnvironment, argsToList, listToArgs, userHome (the ones HTCondor's daemons add).
// HTCONDOR: classad-builtin-functions "envV1ToV2", "mergeEnvironment", "userHome".
#include <string>
#include <vector>

#include "policy/classad/args_env.h"
#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/value.h"

namespace kite::classad {
namespace {

// envV1ToV2(old): UNDEFINED stays UNDEFINED (so mergeEnvironment(envV1ToV2(Env), ...) needs
// no guard); anything but a string, or a malformed V1 string, is ERROR.
void fn_envv1tov2(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  if (v.is_undefined()) {
    out = Value::undefined();
    return;
  }
  Environment env;
  if (!v.is_string() || !env.merge_v1(v.as_string(), nullptr)) {
    out = Value::error();
    return;
  }
  out = Value::string(env.to_v2());
}

// mergeEnvironment(env1, ...): V2 strings merged left to right (later wins), UNDEFINED
// arguments skipped; a non-string or malformed argument is ERROR.
void fn_mergeenvironment(const CallExpr& call, EvalContext& ctx, Value& out) {
  Environment env;
  Value v;
  for (uint32_t i = 0; i < call.nargs; ++i) {
    ctx.eval(call.args[i], v);
    if (v.is_undefined()) continue;
    if (!v.is_string() || !env.merge_v2(v.as_string(), nullptr)) {
      out = Value::error();
      return;
    }
  }
  out = Value::string(env.to_v2());
}

// argsToList/listToArgs take one or two arguments, the second the syntax version: 1 or 2,
// default 2. False for a wrong count or version.
bool args_version(const CallExpr& call, EvalContext& ctx, int* version) {
  *version = 2;
  if (call.nargs < 1 || call.nargs > 2) return false;
  if (call.nargs < 2) return true;
  Value v;
  ctx.eval(call.args[1], v);
  if (!v.is_integer() || (v.as_integer() != 1 && v.as_integer() != 2)) return false;
  *version = static_cast<int>(v.as_integer());
  return true;
}

// argsToList(args [, version]): the words of a V2 (default) or V1 arguments string.
void fn_argstolist(const CallExpr& call, EvalContext& ctx, Value& out) {
  int version;
  if (!args_version(call, ctx, &version)) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  std::vector<std::string> words;
  if (!v.is_string()) {
    out = Value::error();
    return;
  }
  if (version == 1) {
    words = args_split_v1(v.as_string());
  } else if (!args_split_v2(v.as_string(), &words, nullptr)) {
    out = Value::error();
    return;
  }
  ListObj* l = ListObj::make();
  for (const std::string& w : words) l->items.push_back(new LiteralExpr(Value::string(w)));
  out = Value::adopt_list(l);
}

// listToArgs(list [, version]): a list of strings as a V2 (default) or V1 arguments string.
void fn_listtoargs(const CallExpr& call, EvalContext& ctx, Value& out) {
  int version;
  if (!args_version(call, ctx, &version)) {
    out = Value::error();
    return;
  }
  Value list;
  ctx.eval(call.args[0], list);
  if (!list.is_list()) {
    out = Value::error();
    return;
  }
  std::vector<std::string> words;
  Value item;
  for (const Expr* e : list.as_list()->items) {
    ctx.eval(e, item);
    if (!item.is_string()) {
      out = Value::error();
      return;
    }
    words.emplace_back(item.as_string());
  }
  std::string s;
  if (version == 1) {
    if (!args_join_v1(words, &s, nullptr)) {
      out = Value::error();
      return;
    }
  } else {
    for (const std::string& w : words) args_append_v2(w, &s);
  }
  out = Value::string(s);
}

// userHome(name [, default]): HTCondor looks users up only when CLASSAD_ENABLE_USER_HOME is
// true, which defaults to false; Kite behaves as that default: a non-empty string default
// when given, else UNDEFINED, and ERROR for a name that is neither a string nor UNDEFINED.
void fn_userhome(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 1 || call.nargs > 2) {
    out = Value::error();
    return;
  }
  Value dflt;
  if (call.nargs == 2) ctx.eval(call.args[1], dflt);
  bool has_default = dflt.is_string() && !dflt.as_string().empty();
  Value name;
  ctx.eval(call.args[0], name);
  if (has_default) {
    out = dflt;
  } else if (name.is_string() || name.is_undefined()) {
    out = Value::undefined();
  } else {
    out = Value::error();
  }
}

}  // namespace

FunctionTable functions_env() {
  static const FunctionEntry k[] = {
      {"envV1ToV2", fn_envv1tov2},   {"mergeEnvironment", fn_mergeenvironment},
      {"argsToList", fn_argstolist}, {"listToArgs", fn_listtoargs},
      {"userHome", fn_userhome},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
