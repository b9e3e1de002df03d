// Refcounting for ClassAd values and their shared heap objects.
#include "policy/classad/value.h"

#include <new>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/classad/pool.h"

namespace kite::classad {

StringObj* StringObj::make(std::string_view s) {
  void* mem = pool_alloc(sizeof(StringObj) + s.size() + 1);
  auto* obj = static_cast<StringObj*>(mem);
  obj->refs = 1;
  obj->len = static_cast<uint32_t>(s.size());
  if (!s.empty()) std::memcpy(obj->data(), s.data(), s.size());
  obj->data()[s.size()] = '\0';
  return obj;
}

void StringObj::destroy() {
  pool_free(this, sizeof(StringObj) + len + 1);
}

ListObj::~ListObj() {
  for (Expr* e : items) expr_unref(e);
}

void ListObj::unref() {
  if (--refs == 0) delete this;
}

Value Value::classad(ClassAd* ad) {
  ad->ref();
  return adopt_classad(ad);
}

Value Value::adopt_classad(ClassAd* ad) {
  Value v;
  v.type_ = ValueType::kClassAd;
  v.u_.ad = ad;
  return v;
}

void Value::acquire_slow() {
  switch (type_) {
    case ValueType::kString: u_.s->ref(); break;
    case ValueType::kList: u_.l->ref(); break;
    case ValueType::kClassAd: u_.ad->ref(); break;
    default: break;
  }
}

void Value::release_slow() {
  switch (type_) {
    case ValueType::kString: u_.s->unref(); break;
    case ValueType::kList: u_.l->unref(); break;
    case ValueType::kClassAd: u_.ad->unref(); break;
    default: break;
  }
  type_ = ValueType::kUndefined;
}

bool Value::to_number(double& out) const {
  switch (type_) {
    case ValueType::kInteger: out = static_cast<double>(u_.i); return true;
    case ValueType::kReal: out = u_.r; return true;
    case ValueType::kBoolean: out = u_.b ? 1.0 : 0.0; return true;
    default: return false;
  }
}

}  // namespace kite::classad
