// Recursive-descent parser for ClassAd expressions and ads, with HTCondor's
// operator precedence (lowest first: ?:, ||, &&, |, ^, &, equality,
// relational, shifts, + -, * / %, unary, postfix . and []).
// HTCONDOR: classad-mechanism "ClassAd Syntax", "Operators".
#include "policy/classad/parser.h"

#include <cstdio>
#include <cstring>

#include "policy/classad/expr_share.h"
#include "policy/classad/functions.h"
#include "policy/classad/lexer.h"
#include "policy/classad/operators.h"

namespace kite::classad {
namespace {

// Deep enough for any real policy; shallow enough that fuzzed input cannot
// overflow the stack (of the parser or of the evaluator later).
constexpr int kMaxNesting = 256;

// The entries of the ads being parsed, kept until an ad is complete and
// then moved into it in one step (one exact-size allocation per array, no
// per-insert search). A stack: a nested ad's entries sit above its parent's
// until the nested ad is built. Per thread, reused.
struct Stage {
  std::vector<ClassAd::Entry> entries;
  std::vector<uint32_t> ids;
  // For finding repeated names: seen[id] is (serial, position) of the id's
  // entry in the ad being built.
  struct Seen {
    uint32_t serial;
    uint32_t pos;
  };
  std::vector<Seen> seen;
  uint32_t serial = 0;

  // Drops (unrefs) the entries above `base`: a failed ad.
  void drop_to(size_t base) {
    for (size_t i = base; i < entries.size(); ++i) expr_unref(entries[i].expr);
    entries.resize(base);
    ids.resize(base);
  }
};

thread_local Stage t_stage;

class Parser {
 public:
  explicit Parser(std::string_view text, bool old_strings = false)
      : lex_(text, old_strings), stage_(&t_stage) {
    if (!old_strings) advance();
  }

  // Old line syntax: parses the expression in text[begin, end) (one line)
  // with the parser's state reset.
  void start_line(size_t begin, size_t end) {
    lex_.restart(begin, end);
    ad_literals_ = 0;
    tokens_ = 0;
    advance();
  }
  ClassAd* parse_old_lines(ParseError* err);

  Expr* parse_expression() {
    if (++depth_ > kMaxNesting) {
      fail("expression nested too deeply");
      --depth_;
      return nullptr;
    }
    Expr* e = parse_ternary();
    --depth_;
    return e;
  }

  ClassAd* parse_ad_literal();  // at '['

  // Fast path for the common attribute value: one literal token directly
  // followed by `end1`/`end2` (or the end of the text). Null otherwise. With
  // `took_end1`, an `end1` (';') that follows is consumed too and the token
  // after it scanned (*took_end1 says so).
  Expr* simple_literal(char end1, char end2, bool* took_end1 = nullptr) {
    switch (tok_.kind) {
      case Tok::kInteger:
      case Tok::kReal:
      case Tok::kString:
      case Tok::kTrue:
      case Tok::kFalse:
      case Tok::kUndefined:
      case Tok::kErrorKw: break;
      default: return nullptr;
    }
    char next = lex_.peek_nonspace();
    if (next != end1 && next != end2 && next != '\0') return nullptr;
    Expr* e = literal_token();
    if (took_end1 && next == end1 && lex_.take(end1, Tok::kSemicolon)) {
      ++tokens_;
      *took_end1 = true;
    }
    if (next == '\0' && lex_.take_end(tok_)) {
      ++tokens_;
    } else {
      advance();
    }
    return e;
  }
  bool at(Tok k) const { return tok_.kind == k; }
  bool failed() const { return failed_; }
  const ParseError& error() const { return err_; }
  const Token& token() const { return tok_; }
  void advance() {
    ++tokens_;
    lex_.next(tok_);
    if (tok_.kind == Tok::kError) fail_token();
  }
  // Error paths stay out of line so the hot paths inline small.
  [[gnu::noinline]] void fail_token() { fail(lex_.error().empty() ? "bad token" : lex_.error()); }
  [[gnu::noinline]] void fail(const char* msg) { fail(std::string(msg)); }
  [[gnu::noinline]] void fail(const std::string& msg) {
    int line, col;
    lex_.position(tok_.offset, &line, &col);
    fail_at(line, col, msg);
  }
  [[gnu::noinline]] void fail_at(int line, int col, const std::string& msg) {
    if (failed_) return;
    failed_ = true;
    err_.line = line;
    err_.column = col;
    err_.message = msg;
  }
  void expect_end() {
    if (!failed_ && !at(Tok::kEnd)) fail("unexpected text after the expression");
  }
  Lexer& lexer() { return lex_; }

 private:
  Expr* parse_ternary();
  Expr* parse_binary(int level);
  Expr* parse_unary();
  Expr* parse_postfix();
  Expr* parse_primary();
  Expr* parse_list();
  Expr* parse_call(std::string_view name);

  // A number or boolean known at parse time (a literal or a folded op).
  static const Value* constant_of(const Expr* e) {
    const Value* v = nullptr;
    if (e->kind == ExprKind::kLiteral) {
      v = &as_literal(e)->value;
    } else if (e->kind == ExprKind::kOp && (e->bits & kBitFolded)) {
      v = &as_folded(e)->value;
    }
    if (v && (v->is_integer() || v->is_real() || v->is_boolean())) return v;
    return nullptr;
  }

  static Expr* make_op(Op op, Expr* a, Expr* b = nullptr, Expr* c = nullptr) {
    // Fold strict operations on numeric constants (`15 * 60`): same result
    // as evaluating them every time, computed once.
    if (!c && op != Op::kAnd && op != Op::kOr && op != Op::kSubscript && op != Op::kParens &&
        op != Op::kElvis) {
      const Value* va = constant_of(a);
      const Value* vb = b ? constant_of(b) : nullptr;
      if (va && (b ? vb != nullptr : true)) {
        Value r;
        if (b) {
          op_binary(op, *va, *vb, r);
        } else {
          op_unary(op, *va, r);
        }
        auto* f = new FoldedOpExpr(op, static_cast<Value&&>(r));
        f->a = a;
        f->b = b;
        return hashed(f);
      }
    }
    auto* o = new OpExpr(op);
    o->a = a;
    o->b = b;
    o->c = c;
    return hashed(o);
  }

  // The literal the current token spells, hashed.
  Expr* literal_token() {
    switch (tok_.kind) {
      case Tok::kInteger:
        return literal(Value::integer(tok_.int_value), value_hash_integer(tok_.int_value));
      case Tok::kReal:
        return literal(Value::real(tok_.real_value),
                       value_hash_double(ValueType::kReal, tok_.real_value));
      case Tok::kString: return literal(Value::string(tok_.text), value_hash_string(tok_.text));
      case Tok::kTrue: return literal(Value::boolean(true), value_hash_boolean(true));
      case Tok::kFalse: return literal(Value::boolean(false), value_hash_boolean(false));
      case Tok::kErrorKw: return literal(Value::error(), value_hash_plain(ValueType::kError));
      default: return literal(Value::undefined(), value_hash_plain(ValueType::kUndefined));
    }
  }
  static Expr* literal(Value v, uint64_t value_hash) {
    auto* e = new LiteralExpr(static_cast<Value&&>(v));
    e->hash = fresh_literal_hash(value_hash);
    return e;
  }

  // Every node gets its structural hash as it is built (children first), so
  // sharing the finished tree needs no walk over it.
  template <typename T>
  static T* hashed(T* e) {
    expr_set_hash(e);
    return e;
  }

  // Moves the entries staged above `base` into a new ad; a repeated name
  // replaces the earlier entry in place, as ClassAd::insert does.
  ClassAd* build_ad(size_t base, bool nested);

  Lexer lex_;
  Token tok_;
  bool failed_ = false;
  ParseError err_;
  int depth_ = 0;
  Stage* stage_;

 public:
  int ad_literals_ = 0;  // ad literals parsed so far (to skip scope walks)
  int tokens_ = 0;       // tokens read; a tree is never taller than this
};

const char* describe(Tok k) {
  switch (k) {
    case Tok::kEnd: return "end of input";
    case Tok::kRParen: return "')'";
    case Tok::kRBrace: return "'}'";
    case Tok::kRBracket: return "']'";
    case Tok::kColon: return "':'";
    case Tok::kAssign: return "'='";
    default: return "token";
  }
}

Expr* Parser::parse_ternary() {
  Expr* cond = parse_binary(1);
  if (!cond) return nullptr;
  if (!at(Tok::kQuestion)) return cond;
  advance();
  if (at(Tok::kColon)) {  // a ?: b
    advance();
    Expr* alt = parse_expression();
    if (!alt) {
      expr_unref(cond);
      return nullptr;
    }
    return make_op(Op::kElvis, cond, alt);
  }
  Expr* yes = parse_expression();
  if (!yes) {
    expr_unref(cond);
    return nullptr;
  }
  if (!at(Tok::kColon)) {
    fail("expected ':' in conditional expression");
    expr_unref(cond);
    expr_unref(yes);
    return nullptr;
  }
  advance();
  Expr* no = parse_expression();
  if (!no) {
    expr_unref(cond);
    expr_unref(yes);
    return nullptr;
  }
  return make_op(Op::kTernary, cond, yes, no);
}

// Binary operators by token: precedence (1 = lowest, ||) and operator.
struct BinInfo {
  uint8_t prec;
  Op op;
};

constexpr BinInfo bin_info(Tok t) {
  switch (t) {
    case Tok::kOrOr: return {1, Op::kOr};
    case Tok::kAndAnd: return {2, Op::kAnd};
    case Tok::kBar: return {3, Op::kBitOr};
    case Tok::kCaret: return {4, Op::kBitXor};
    case Tok::kAmp: return {5, Op::kBitAnd};
    case Tok::kEq: return {6, Op::kEqual};
    case Tok::kNe: return {6, Op::kNotEqual};
    case Tok::kMetaEq: return {6, Op::kMetaEqual};
    case Tok::kMetaNe: return {6, Op::kMetaNotEqual};
    case Tok::kIs: return {6, Op::kMetaEqual};
    case Tok::kIsnt: return {6, Op::kMetaNotEqual};
    case Tok::kLt: return {7, Op::kLess};
    case Tok::kLe: return {7, Op::kLessEq};
    case Tok::kGt: return {7, Op::kGreater};
    case Tok::kGe: return {7, Op::kGreaterEq};
    case Tok::kShl: return {8, Op::kShiftLeft};
    case Tok::kShr: return {8, Op::kShiftRight};
    case Tok::kShrU: return {8, Op::kShiftRightUnsigned};
    case Tok::kPlus: return {9, Op::kAdd};
    case Tok::kMinus: return {9, Op::kSub};
    case Tok::kStar: return {10, Op::kMul};
    case Tok::kSlash: return {10, Op::kDiv};
    case Tok::kPercent: return {10, Op::kMod};
    default: return {0, Op::kNone};
  }
}

// Precedence climbing: all binary operators are left-associative.
Expr* Parser::parse_binary(int min_prec) {
  Expr* lhs = parse_unary();
  if (!lhs) return nullptr;
  for (;;) {
    BinInfo bi = bin_info(tok_.kind);
    if (bi.prec == 0 || bi.prec < min_prec) return lhs;
    advance();
    if (++depth_ > kMaxNesting) {
      fail("expression nested too deeply");
      --depth_;
      expr_unref(lhs);
      return nullptr;
    }
    Expr* rhs = parse_binary(bi.prec + 1);
    --depth_;
    if (!rhs) {
      expr_unref(lhs);
      return nullptr;
    }
    lhs = make_op(bi.op, lhs, rhs);
  }
}

Expr* Parser::parse_unary() {
  Op op = Op::kNone;
  switch (tok_.kind) {
    case Tok::kPlus: op = Op::kUnaryPlus; break;
    case Tok::kMinus: op = Op::kUnaryMinus; break;
    case Tok::kBang: op = Op::kLogicalNot; break;
    case Tok::kTilde: op = Op::kBitwiseNot; break;
    default: return parse_postfix();
  }
  advance();
  if (++depth_ > kMaxNesting) {
    fail("expression nested too deeply");
    --depth_;
    return nullptr;
  }
  Expr* operand = parse_unary();
  --depth_;
  if (!operand) return nullptr;
  return make_op(op, operand);
}

Expr* Parser::parse_postfix() {
  Expr* e = parse_primary();
  while (e) {
    if (at(Tok::kDot)) {
      advance();
      if (!at(Tok::kName)) {
        fail("expected an attribute name after '.'");
        expr_unref(e);
        return nullptr;
      }
      InternedName n = intern_name(tok_.text);
      auto* a = new AttrExpr(n.id, n.name);
      a->base = e;
      e = hashed(a);
      advance();
    } else if (at(Tok::kLBracket)) {
      advance();
      Expr* index = parse_expression();
      if (!index) {
        expr_unref(e);
        return nullptr;
      }
      if (!at(Tok::kRBracket)) {
        fail("expected ']' after subscript");
        expr_unref(e);
        expr_unref(index);
        return nullptr;
      }
      advance();
      e = make_op(Op::kSubscript, e, index);
    } else {
      break;
    }
  }
  return e;
}

Expr* Parser::parse_list() {
  advance();  // '{'
  ListObj* list = ListObj::make();
  Value holder = Value::adopt_list(list);
  if (!at(Tok::kRBrace)) {
    for (;;) {
      Expr* item = parse_expression();
      if (!item) return nullptr;
      list->items.push_back(item);
      if (at(Tok::kComma)) {
        advance();
        continue;
      }
      if (at(Tok::kRBrace)) break;
      fail("expected ',' or '}' in list");
      return nullptr;
    }
  }
  advance();  // '}'
  return hashed(new LiteralExpr(static_cast<Value&&>(holder)));
}

Expr* Parser::parse_call(std::string_view name) {
  advance();  // '('
  std::vector<Expr*> args;
  auto cleanup = [&args]() {
    for (Expr* a : args) expr_unref(a);
  };
  if (!at(Tok::kRParen)) {
    for (;;) {
      Expr* arg = parse_expression();
      if (!arg) {
        cleanup();
        return nullptr;
      }
      args.push_back(arg);
      // Old-ClassAd semantics also accept ';' between arguments.
      if (at(Tok::kComma) || at(Tok::kSemicolon)) {
        advance();
        continue;
      }
      if (at(Tok::kRParen)) break;
      fail("expected ',' or ')' in function call");
      cleanup();
      return nullptr;
    }
  }
  advance();  // ')'
  InternedName n = intern_name(name);
  auto* call = new CallExpr(function_find(name), n.name);
  call->nargs = static_cast<uint32_t>(args.size());
  if (!args.empty()) {
    call->args = new Expr*[args.size()];
    for (size_t i = 0; i < args.size(); ++i) call->args[i] = args[i];
  }
  return hashed(call);
}

Expr* Parser::parse_primary() {
  if (failed_) return nullptr;
  switch (tok_.kind) {
    case Tok::kInteger:
    case Tok::kReal:
    case Tok::kString:
    case Tok::kTrue:
    case Tok::kFalse:
    case Tok::kUndefined:
    case Tok::kErrorKw: {
      Expr* e = literal_token();
      advance();
      return e;
    }
    case Tok::kName: {
      // Intern before advancing: a quoted name lives in the token's buffer.
      bool quoted = tok_.quoted_name;
      InternedName n = intern_name(tok_.text);
      advance();
      if (at(Tok::kLParen) && !quoted) return parse_call(n.name->view());
      return hashed(new AttrExpr(n.id, n.name));
    }
    case Tok::kDot: {  // .name: lookup from the root scope
      advance();
      if (!at(Tok::kName)) {
        fail("expected an attribute name after '.'");
        return nullptr;
      }
      InternedName n = intern_name(tok_.text);
      auto* a = new AttrExpr(n.id, n.name);
      a->bits |= kBitAbsolute;
      advance();
      return hashed(a);
    }
    case Tok::kLParen: {
      advance();
      Expr* inner = parse_expression();
      if (!inner) return nullptr;
      if (!at(Tok::kRParen)) {
        fail("expected ')'");
        expr_unref(inner);
        return nullptr;
      }
      advance();
      int parens = paren_count(inner);
      if (parens < kParenMax) {
        inner->flags = static_cast<uint8_t>((inner->flags & ((1u << kParenShift) - 1)) |
                                            ((parens + 1) << kParenShift));
        return hashed(inner);  // the flags are part of the hash
      }
      return make_op(Op::kParens, inner);
    }
    case Tok::kLBrace: return parse_list();
    case Tok::kLBracket: {
      ++ad_literals_;
      ClassAd* ad = parse_ad_literal();
      if (!ad) return nullptr;
      return hashed(new LiteralExpr(Value::adopt_classad(ad)));
    }
    case Tok::kEnd: fail("unexpected end of input"); return nullptr;
    default: fail("unexpected token"); return nullptr;
  }
}

ClassAd* Parser::parse_ad_literal() {
  if (++depth_ > kMaxNesting) {
    fail("ad nested too deeply");
    --depth_;
    return nullptr;
  }
  advance();  // '['
  Stage& st = *stage_;
  const size_t base = st.entries.size();
  bool nested = false;  // some value holds an ad literal
  auto failed = [&]() -> ClassAd* {
    st.drop_to(base);
    --depth_;
    return nullptr;
  };
  while (!at(Tok::kRBracket)) {
    if (failed_) return failed();
    if (at(Tok::kSemicolon)) {  // empty statement
      advance();
      continue;
    }
    if (!at(Tok::kName)) {
      fail(at(Tok::kEnd) ? "expected ']' at end of ad" : "expected an attribute name");
      return failed();
    }
    InternedName name = intern_name(tok_.text);
    if (lex_.take_assign()) {
      ++tokens_;
    } else {
      advance();
      if (!at(Tok::kAssign)) {
        fail(std::string("expected '=' after attribute name, found ") + describe(tok_.kind));
        return failed();
      }
    }
    advance();
    int ads_before = ad_literals_;
    bool took_semicolon = false;
    Expr* e = simple_literal(';', ']', &took_semicolon);
    if (!e) e = parse_expression();
    if (!e) return failed();
    if (ad_literals_ == ads_before) {
      e = expr_share_hashed(e);
    } else {
      nested = true;
    }
    st.entries.push_back(ClassAd::Entry{name.name, e});
    st.ids.push_back(name.id);
    if (took_semicolon) continue;  // tok_ already follows the ';'
    if (at(Tok::kSemicolon)) {
      advance();
    } else if (!at(Tok::kRBracket)) {
      fail("expected ';' or ']' in ad");
      return failed();
    }
  }
  advance();  // ']'
  --depth_;
  return build_ad(base, nested);
}

ClassAd* Parser::build_ad(size_t base, bool nested) {
  Stage& st = *stage_;
  ClassAd::Entry* en = st.entries.data() + base;
  uint32_t* ids = st.ids.data() + base;
  const size_t n = st.entries.size() - base;
  size_t out = n;
  if (n > 1) {
    if (++st.serial == 0) {  // wrapped: old marks could match again
      st.seen.assign(st.seen.size(), Stage::Seen{0, 0});
      st.serial = 1;
    }
    out = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t id = ids[i];
      if (id >= st.seen.size()) st.seen.resize(size_t{id} * 2 + 64, Stage::Seen{0, 0});
      Stage::Seen& seen = st.seen[id];
      if (seen.serial == st.serial) {
        expr_unref(en[seen.pos].expr);
        en[seen.pos] = en[i];
        continue;
      }
      seen = Stage::Seen{st.serial, static_cast<uint32_t>(out)};
      en[out] = en[i];
      ids[out] = id;
      ++out;
    }
  }
  ClassAd* ad = ClassAd::make();
  ad->adopt_entries(en, ids, out, nested);
  st.entries.resize(base);
  st.ids.resize(base);
  return ad;
}

// Trees deeper than this are refused, so every recursive walk over a tree
// (evaluation, unparse, copy, free) has a bounded depth. Measured across
// nested ads and list items, iteratively (the walk itself cannot overflow).
constexpr int kMaxTreeHeight = 1000;

bool height_ok(const Expr* root) {
  struct Item {
    const Expr* e;
    int depth;
  };
  thread_local std::vector<Item> stack;
  stack.clear();
  stack.push_back({root, 1});
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    if (it.depth > kMaxTreeHeight) return false;
    const Expr* e = it.e;
    int d = it.depth + 1;
    switch (e->kind) {
      case ExprKind::kLiteral: {
        const Value& v = as_literal(e)->value;
        if (v.is_list()) {
          for (const Expr* item : v.as_list()->items) stack.push_back({item, d});
        } else if (v.is_classad()) {
          for (const ClassAd::Entry& en : v.as_classad()->entries()) stack.push_back({en.expr, d});
        }
        break;
      }
      case ExprKind::kAttr:
        if (as_attr(e)->base) stack.push_back({as_attr(e)->base, d});
        break;
      case ExprKind::kOp: {
        const OpExpr* o = as_op(e);
        if (o->a) stack.push_back({o->a, d});
        if (o->b) stack.push_back({o->b, d});
        if (o->c) stack.push_back({o->c, d});
        break;
      }
      case ExprKind::kCall: {
        const CallExpr* c = as_call(e);
        for (uint32_t i = 0; i < c->nargs; ++i) stack.push_back({c->args[i], d});
        break;
      }
    }
  }
  return true;
}

inline bool is_line_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// One pass over the text: each line is trimmed, checked for `Name =` and its
// expression lexed in place (the lexer stops at the trimmed line end), so
// no line is copied and the parser is not rebuilt per line.
ClassAd* Parser::parse_old_lines(ParseError* err) {
  std::string_view text = lex_.source();
  const char* s = text.data();
  const size_t n = text.size();
  Stage& st = *stage_;
  const size_t base = st.entries.size();
  bool nested = false;
  size_t pos = 0;
  int line = 0;
  while (pos <= n) {
    ++line;
    const void* nl = n > pos ? std::memchr(s + pos, '\n', n - pos) : nullptr;
    const size_t eol = nl ? static_cast<size_t>(static_cast<const char*>(nl) - s) : n;
    const size_t line_start = pos;
    pos = eol + 1;
    size_t b = line_start;
    while (b < eol && is_line_blank(s[b])) ++b;
    size_t e = eol;
    while (e > b && is_line_blank(s[e - 1])) --e;
    if (b == e || s[b] == '#') {
      if (eol == n) break;
      continue;
    }
    // `Name` (letters, digits, '_', '.'), blanks, '='.
    size_t q = b;
    while (q < e && has_class(s[q], kOldNameChar)) ++q;
    const size_t name_end = q;
    while (q < e && (s[q] == ' ' || s[q] == '\t')) ++q;
    if (name_end == b || q == e || s[q] != '=') {
      if (err) {
        std::string_view l(s + b, e - b);
        err->line = line;
        err->column = static_cast<int>(b - line_start) + 1;
        err->message = l.find('=') == std::string_view::npos ? "expected 'Name = expression'"
                                                             : "bad attribute name";
      }
      st.drop_to(base);
      return nullptr;
    }
    start_line(q + 1, e);
    Expr* expr = simple_literal('\0', '\0');
    if (!expr) expr = parse_expression();
    if (expr) expect_end();
    bool too_deep = false;
    if (expr && !failed_ && tokens_ > kMaxTreeHeight && !height_ok(expr)) {
      fail_at(1, 1, "expression nested too deeply");
      too_deep = true;
    }
    if (failed_) {
      if (expr) expr_unref(expr);
      if (err) {
        err->line = line;
        // Columns count from the start of the line; a tree too deep is
        // reported where its expression starts.
        err->column = too_deep ? static_cast<int>(q + 1 - line_start) + 1 : err_.column;
        err->message = err_.message;
      }
      st.drop_to(base);
      return nullptr;
    }
    InternedName name = intern_name(std::string_view(s + b, name_end - b));
    if (ad_literals_ == 0) {
      expr = expr_share_hashed(expr);
    } else {
      nested = true;
    }
    st.entries.push_back(ClassAd::Entry{name.name, expr});
    st.ids.push_back(name.id);
    if (eol == n) break;
  }
  return build_ad(base, nested);
}

void set_error(ParseError* err, const Parser& p) {
  if (err) *err = p.error();
}

}  // namespace

std::string ParseError::to_string() const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "line %d, column %d: ", line, column);
  return buf + message;
}

ExprPtr parse_expr(std::string_view text, ParseError* err) {
  Parser p(text);
  Expr* e = p.parse_expression();
  if (e) p.expect_end();
  if (e && !p.failed() && p.tokens_ > kMaxTreeHeight && !height_ok(e)) {
    p.fail_at(1, 1, "expression nested too deeply");
  }
  if (p.failed()) {
    if (e) expr_unref(e);
    set_error(err, p);
    return ExprPtr();
  }
  return ExprPtr(e);
}

AdPtr parse_classad(std::string_view text, ParseError* err) {
  Parser p(text);
  if (!p.at(Tok::kLBracket)) {
    p.fail("expected '[' at the start of an ad");
    set_error(err, p);
    return AdPtr();
  }
  AdPtr ad(p.parse_ad_literal());
  if (ad) p.expect_end();
  if (ad && !p.failed() && p.tokens_ > kMaxTreeHeight) {
    for (const ClassAd::Entry& en : ad->entries()) {
      if (!height_ok(en.expr)) {
        p.fail_at(1, 1, "expression nested too deeply");
        break;
      }
    }
  }
  if (p.failed()) {
    set_error(err, p);
    return AdPtr();
  }
  return ad;
}

AdPtr parse_classad_old(std::string_view text, ParseError* err) {
  Parser parser(text, /*old_strings=*/true);
  return AdPtr(parser.parse_old_lines(err));
}

AdPtr parse_classad_any(std::string_view text, ParseError* err) {
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
    ++i;
  }
  if (i < text.size() && text[i] == '[') return parse_classad(text, err);
  return parse_classad_old(text, err);
}

}  // namespace kite::classad
