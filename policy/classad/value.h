// ClassAd values: the ten value types of the language and the refcounted heap
// objects (strings, lists, nested ads) that values share without copying.
// HTCONDOR: classad-mechanism "Evaluation Semantics" (literal types).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace kite::classad {

struct Expr;
class ClassAd;

enum class ValueType : uint8_t {
  kUndefined,
  kError,
  kBoolean,
  kInteger,
  kReal,
  kString,
  kList,
  kClassAd,
  kAbsTime,
  kRelTime,
};

// Immutable refcounted string; literal strings in an expression tree are one
// of these, so evaluating a literal costs a refcount, not a copy.
struct StringObj {
  uint32_t refs;
  uint32_t len;
  char* data() { return reinterpret_cast<char*>(this + 1); }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view view() const { return {data(), len}; }

  static StringObj* make(std::string_view s);
  void ref() { ++refs; }
  void unref() {
    if (--refs == 0) destroy();
  }
  void destroy();
};

// A list value is a list of expressions, evaluated lazily where used (so
// `{ x, x + 1 }` stays unevaluated and `{ 1, 1/0, 3 }[2]` is 3). The list owns
// its element trees.
struct ListObj {
  uint32_t refs = 1;
  std::vector<Expr*> items;

  static ListObj* make() { return new ListObj(); }
  void ref() { ++refs; }
  void unref();

 private:
  ListObj() = default;
  ~ListObj();
  friend struct ListObjDeleter;
};

// Absolute time: seconds since the epoch plus the zone offset it is shown in.
struct AbsTime {
  int64_t secs;
  int32_t offset;  // seconds east of UTC
};

class Value {
 public:
  Value() : type_(ValueType::kUndefined) { u_.i = 0; }
  ~Value() {
    if (is_heap()) release();
  }
  Value(const Value& o) : type_(o.type_), offset_(o.offset_), u_(o.u_) {
    if (is_heap()) acquire();
  }
  Value(Value&& o) noexcept : type_(o.type_), offset_(o.offset_), u_(o.u_) {
    o.type_ = ValueType::kUndefined;
  }
  Value& operator=(const Value& o) {
    if (!is_heap() && !o.is_heap()) {
      type_ = o.type_;
      offset_ = o.offset_;
      u_ = o.u_;
      return *this;
    }
    if (this != &o) {
      Value tmp(o);
      swap(tmp);
    }
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      if (is_heap()) release();
      type_ = o.type_;
      offset_ = o.offset_;
      u_ = o.u_;
      o.type_ = ValueType::kUndefined;
    }
    return *this;
  }
  void swap(Value& o) {
    std::swap(type_, o.type_);
    std::swap(offset_, o.offset_);
    std::swap(u_, o.u_);
  }

  static Value undefined() { return Value(); }
  static Value error() {
    Value v;
    v.type_ = ValueType::kError;
    return v;
  }
  static Value boolean(bool b) {
    Value v;
    v.type_ = ValueType::kBoolean;
    v.u_.b = b;
    return v;
  }
  static Value integer(int64_t i) {
    Value v;
    v.type_ = ValueType::kInteger;
    v.u_.i = i;
    return v;
  }
  static Value real(double r) {
    Value v;
    v.type_ = ValueType::kReal;
    v.u_.r = r;
    return v;
  }
  static Value string(std::string_view s) { return adopt_string(StringObj::make(s)); }
  // Shares `s` (takes a new reference).
  static Value string(StringObj* s) {
    s->ref();
    return adopt_string(s);
  }
  static Value adopt_string(StringObj* s) {
    Value v;
    v.type_ = ValueType::kString;
    v.u_.s = s;
    return v;
  }
  static Value list(ListObj* l) {  // takes a new reference
    l->ref();
    return adopt_list(l);
  }
  static Value adopt_list(ListObj* l) {
    Value v;
    v.type_ = ValueType::kList;
    v.u_.l = l;
    return v;
  }
  static Value classad(ClassAd* ad);        // takes a new reference
  static Value adopt_classad(ClassAd* ad);  // takes over the caller's reference
  static Value abs_time(int64_t secs, int32_t offset) {
    Value v;
    v.type_ = ValueType::kAbsTime;
    v.u_.i = secs;
    v.offset_ = offset;
    return v;
  }
  static Value rel_time(double secs) {
    Value v;
    v.type_ = ValueType::kRelTime;
    v.u_.r = secs;
    return v;
  }

  // In-place setters (no temporaries on the evaluator's hot path).
  void set_boolean(bool b) {
    if (is_heap()) release();
    type_ = ValueType::kBoolean;
    u_.b = b;
  }
  void set_integer(int64_t i) {
    if (is_heap()) release();
    type_ = ValueType::kInteger;
    u_.i = i;
  }
  void set_real(double r) {
    if (is_heap()) release();
    type_ = ValueType::kReal;
    u_.r = r;
  }
  void set_undefined() {
    if (is_heap()) release();
    type_ = ValueType::kUndefined;
  }
  void set_error() {
    if (is_heap()) release();
    type_ = ValueType::kError;
  }

  ValueType type() const { return type_; }
  // Holds a reference to a shared heap object (string, list or ad).
  bool is_heap() const {
    return type_ == ValueType::kString || type_ == ValueType::kList || type_ == ValueType::kClassAd;
  }
  bool is_undefined() const { return type_ == ValueType::kUndefined; }
  bool is_error() const { return type_ == ValueType::kError; }
  bool is_boolean() const { return type_ == ValueType::kBoolean; }
  bool is_integer() const { return type_ == ValueType::kInteger; }
  bool is_real() const { return type_ == ValueType::kReal; }
  bool is_number() const { return is_integer() || is_real(); }
  bool is_string() const { return type_ == ValueType::kString; }
  bool is_list() const { return type_ == ValueType::kList; }
  bool is_classad() const { return type_ == ValueType::kClassAd; }
  bool is_abs_time() const { return type_ == ValueType::kAbsTime; }
  bool is_rel_time() const { return type_ == ValueType::kRelTime; }
  bool is_exceptional() const { return is_undefined() || is_error(); }

  bool as_boolean() const { return u_.b; }
  int64_t as_integer() const { return u_.i; }
  double as_real() const { return u_.r; }
  double as_rel_time() const { return u_.r; }
  AbsTime as_abs_time() const { return AbsTime{u_.i, offset_}; }
  std::string_view as_string() const { return u_.s->view(); }
  StringObj* string_obj() const { return u_.s; }
  ListObj* as_list() const { return u_.l; }
  ClassAd* as_classad() const { return u_.ad; }

  // Numeric view of integer/real/boolean (booleans count as 0/1 where the
  // language promotes them).
  bool to_number(double& out) const;

 private:
  void acquire() {
    if (type_ == ValueType::kString) {
      u_.s->ref();
    } else {
      acquire_slow();
    }
  }
  void release() {
    if (type_ == ValueType::kString) {
      u_.s->unref();
      type_ = ValueType::kUndefined;
    } else {
      release_slow();
    }
  }
  void acquire_slow();
  void release_slow();

  ValueType type_;
  // An absolute time's offset sits beside the type, in what would be padding, so a Value is 16
  // bytes (a literal node 32): thousands of stored ads hold millions of literals.
  int32_t offset_ = 0;
  union U {
    bool b;
    int64_t i;  // also an absolute time's seconds
    double r;
    StringObj* s;
    ListObj* l;
    ClassAd* ad;
  } u_;
};

static_assert(sizeof(Value) == 16, "a Value is a type, an offset and one word");

}  // namespace kite::classad
