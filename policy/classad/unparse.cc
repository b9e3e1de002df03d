// Canonical ClassAd text for values and expressions, following HTCondor's
// unparser: `%.15E` reals, octal escapes for unprintable bytes, ` op `
// spacing for binary operators and a leading space for unary ones, `{ a,b }`
// lists and `[ a = 1; b = 2 ]` ads, plus the indented form unparse() uses.
// HTCONDOR: classad-mechanism "Composing Expressions" (unparsed forms).
#include "policy/classad/unparse.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "policy/classad/functions.h"

namespace kite::classad {
namespace {

const char* op_text(Op op) {
  switch (op) {
    case Op::kUnaryPlus: return " +";
    case Op::kUnaryMinus: return " -";
    case Op::kLogicalNot: return " !";
    case Op::kBitwiseNot: return " ~";
    case Op::kOr: return " || ";
    case Op::kAnd: return " && ";
    case Op::kBitOr: return " | ";
    case Op::kBitXor: return " ^ ";
    case Op::kBitAnd: return " & ";
    case Op::kEqual: return " == ";
    case Op::kNotEqual: return " != ";
    // HTCondor's unparser prints the meta-comparisons as `is`/`isnt`
    // however they were spelled.
    case Op::kMetaEqual: return " is ";
    case Op::kMetaNotEqual: return " isnt ";
    case Op::kLess: return " < ";
    case Op::kLessEq: return " <= ";
    case Op::kGreater: return " > ";
    case Op::kGreaterEq: return " >= ";
    case Op::kShiftLeft: return " << ";
    case Op::kShiftRight: return " >> ";
    case Op::kShiftRightUnsigned: return " >>> ";
    case Op::kAdd: return " + ";
    case Op::kSub: return " - ";
    case Op::kMul: return " * ";
    case Op::kDiv: return " / ";
    case Op::kMod: return " % ";
    default: return " ? ";
  }
}

void escape_into(std::string& out, std::string_view s, char delimiter) {
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (ch == delimiter) {
      out += '\\';
      out += ch;
      continue;
    }
    switch (ch) {
      case '\a': out += "\\a"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\v': out += "\\v"; continue;
      case '\\': out += "\\\\"; continue;
      default: break;
    }
    if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
      continue;
    }
    out += ch;
  }
}

bool equal_nocase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

// Names HTCondor's unparser quotes although they look like identifiers: the
// keywords, and `parent`.
bool is_reserved_word(std::string_view name) {
  for (std::string_view w : {"error", "false", "is", "isnt", "parent", "true", "undefined"}) {
    if (equal_nocase(name, w)) return true;
  }
  return false;
}

bool needs_quoting(std::string_view name) {
  if (name.empty() || is_reserved_word(name)) return true;
  char c = name[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) return true;
  for (char ch : name.substr(1)) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
          ch == '_')) {
      return true;
    }
  }
  return false;
}

struct Unparser {
  std::string& out;
  bool pretty;
  int indent = 0;
  // unparse_expr_old: as old ClassAd syntax prints (condor_status -l, condor_submit -dry-run):
  // reals as %.16G, and the meta-comparisons spelt =?= / =!=.
  bool old_syntax = false;

  const char* op(Op o) const {
    if (old_syntax && o == Op::kMetaEqual) return " =?= ";
    if (old_syntax && o == Op::kMetaNotEqual) return " =!= ";
    return op_text(o);
  }

  void list(const ListObj* l) {
    if (pretty) {
      indent += 3;
      out += '\n';
      out.append(indent, ' ');
      out += '{';
      indent += 3;
      for (size_t i = 0; i < l->items.size(); ++i) {
        out += '\n';
        out.append(indent, ' ');
        expr(l->items[i]);
        if (i + 1 < l->items.size()) out += ',';
      }
      indent -= 3;
      out += '\n';
      out.append(indent, ' ');
      out += '}';
      indent -= 3;
      return;
    }
    out += "{ ";
    for (size_t i = 0; i < l->items.size(); ++i) {
      expr(l->items[i]);
      if (i + 1 < l->items.size()) out += ',';
    }
    out += " }";
  }

  void ad(const ClassAd& a) {
    std::vector<ClassAd::Entry> entries = a.sorted_entries();
    if (pretty) {
      indent += 4;
      out += '\n';
      out.append(indent, ' ');
      out += '[';
      indent += 4;
      for (size_t i = 0; i < entries.size(); ++i) {
        out += '\n';
        out.append(indent, ' ');
        unparse_attr_name(out, entries[i].name->view());
        out += " = ";
        expr(entries[i].expr);
        if (i + 1 < entries.size()) out += "; ";
      }
      indent -= 4;
      out += '\n';
      out.append(indent, ' ');
      out += ']';
      indent -= 4;
      return;
    }
    out += "[ ";
    for (size_t i = 0; i < entries.size(); ++i) {
      unparse_attr_name(out, entries[i].name->view());
      out += " = ";
      expr(entries[i].expr);
      if (i + 1 < entries.size()) out += "; ";
    }
    out += " ]";
  }

  void value(const Value& v) {
    switch (v.type()) {
      case ValueType::kUndefined: out += "undefined"; return;
      case ValueType::kError: out += "error"; return;
      case ValueType::kBoolean: out += v.as_boolean() ? "true" : "false"; return;
      case ValueType::kInteger: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.as_integer()));
        out += buf;
        return;
      }
      case ValueType::kReal:
        old_syntax ? unparse_real_old(out, v.as_real()) : unparse_real(out, v.as_real());
        return;
      case ValueType::kString: unparse_string(out, v.as_string()); return;
      case ValueType::kList: list(v.as_list()); return;
      case ValueType::kClassAd: ad(*v.as_classad()); return;
      case ValueType::kAbsTime:
        out += "absTime(\"";
        format_abs_time(out, v.as_abs_time().secs, v.as_abs_time().offset);
        out += "\")";
        return;
      case ValueType::kRelTime:
        out += "relTime(\"";
        format_rel_time(out, v.as_rel_time());
        out += "\")";
        return;
    }
  }

  void expr(const Expr* e) {
    int parens = paren_count(e);
    for (int i = 0; i < parens; ++i) out += '(';
    expr_bare(e);
    for (int i = 0; i < parens; ++i) out += ')';
  }

  void expr_bare(const Expr* e) {
    switch (e->kind) {
      case ExprKind::kLiteral: value(as_literal(e)->value); return;
      case ExprKind::kAttr: {
        const AttrExpr* a = as_attr(e);
        if (a->base) {
          expr(a->base);
          out += '.';
          out += a->name->view();
          return;
        }
        if (a->is_absolute()) out += '.';
        unparse_attr_name(out, a->name->view());
        return;
      }
      case ExprKind::kCall: {
        const CallExpr* c = as_call(e);
        Value folded;
        if (time_literal_value(*c, folded)) {  // the reference folds these while parsing
          value(folded);
          return;
        }
        out += c->name->view();
        out += '(';
        for (uint32_t i = 0; i < c->nargs; ++i) {
          expr(c->args[i]);
          if (i + 1 < c->nargs) out += ',';
        }
        out += ')';
        return;
      }
      case ExprKind::kOp: {
        const OpExpr* o = as_op(e);
        switch (o->op) {
          case Op::kParens:
            out += '(';
            expr(o->a);
            out += ')';
            return;
          case Op::kUnaryPlus:
          case Op::kUnaryMinus:
          case Op::kLogicalNot:
          case Op::kBitwiseNot:
            out += op(o->op);
            expr(o->a);
            return;
          case Op::kTernary:
            expr(o->a);
            out += " ? ";
            expr(o->b);
            out += " : ";
            expr(o->c);
            return;
          case Op::kElvis:
            expr(o->a);
            out += " ?: ";
            expr(o->b);
            return;
          case Op::kSubscript:
            expr(o->a);
            out += '[';
            expr(o->b);
            out += ']';
            return;
          default:
            expr(o->a);
            out += op(o->op);
            expr(o->b);
            return;
        }
      }
    }
  }
};

}  // namespace

void unparse_real(std::string& out, double r) {
  char buf[64];
  if (r == 0.0) {
    std::snprintf(buf, sizeof buf, "%.1f", r);
  } else if (std::isnan(r)) {
    out += "real(\"NaN\")";
    return;
  } else if (std::isinf(r)) {
    out += r < 0 ? "real(\"-INF\")" : "real(\"INF\")";
    return;
  } else {
    std::snprintf(buf, sizeof buf, "%1.15E", r);
  }
  out += buf;
}

void unparse_real_old(std::string& out, double r) {
  if (r == 0.0 || std::isnan(r) || std::isinf(r)) {
    unparse_real(out, r);
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.16G", r);
  if (buf[std::strcspn(buf, ".Ee")] == '\0') std::strcat(buf, ".0");
  out += buf;
}

void unparse_string(std::string& out, std::string_view s) {
  out += '"';
  escape_into(out, s, '"');
  out += '"';
}

void unparse_attr_name(std::string& out, std::string_view name) {
  std::string escaped;
  escape_into(escaped, name, '\'');
  if (needs_quoting(escaped)) {
    out += '\'';
    out += escaped;
    out += '\'';
  } else {
    out += escaped;
  }
}

void unparse_value(std::string& out, const Value& v) {
  Unparser{out, false}.value(v);
}
void unparse_expr(std::string& out, const Expr* e) {
  Unparser{out, false}.expr(e);
}
void unparse_expr_old(std::string& out, const Expr* e) {
  Unparser u{out, false};
  u.old_syntax = true;
  u.expr(e);
}
void unparse_classad(std::string& out, const ClassAd& ad) {
  Unparser{out, false}.ad(ad);
}
void unparse_pretty(std::string& out, const Expr* e) {
  Unparser{out, true}.expr(e);
}

std::string to_string(const Value& v) {
  std::string s;
  unparse_value(s, v);
  return s;
}

std::string to_string(const Expr* e) {
  std::string s;
  unparse_expr(s, e);
  return s;
}

}  // namespace kite::classad
