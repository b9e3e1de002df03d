// Slot weights from slot ads.
#include "policy/fairshare/slot_weight.h"

namespace kite::fairshare {
namespace {

bool number(const classad::ClassAd& ad, const char* name, double* out) {
  classad::Value v = ad.evaluate_attr(name);
  double d = v.is_real() ? v.as_real() : v.is_integer() ? double(v.as_integer()) : -1;
  if (!(d >= 0)) return false;
  *out = d;
  return true;
}

}  // namespace

double slot_weight(const classad::ClassAd& slot, bool use_slot_weights) {
  double w = 1;
  if (!use_slot_weights) return w;
  if (number(slot, "SlotWeight", &w) || number(slot, "Cpus", &w)) return w;
  return 1;
}

}  // namespace kite::fairshare
