// The resource invariant of the slots: nothing negative, each partitionable slot's free
// resources plus its dynamic slots' equal what it was given, and the slots together hold no
// more than the machine (see Startd::resources_balance).
#include <cstdio>

#include "policy/startd/engine.h"
#include "policy/startd/requests.h"

namespace kite::startd {

namespace {

// Resource `i` of `r`: the standard ones, then the custom ones (as whole units).
double amount_of(const SlotResources& r, size_t i) {
  if (i < kStdResourceCount) return static_cast<double>(kStdResources[i].amount(r));
  i -= kStdResourceCount;
  return i < r.custom.size() ? r.custom[i] : 0;
}

}  // namespace

bool Startd::resources_balance(std::string* report) const {
  const size_t nres = kStdResourceCount + layout_.resources.size();
  auto name_of = [&](size_t i) {
    return i < kStdResourceCount ? std::string(kStdResources[i].name)
                                 : layout_.resources[i - kStdResourceCount].name;
  };
  char buf[256];
  std::string out;
  bool ok = true;
  auto fail = [&](const char* text) {
    out += out.empty() ? "" : "; ";
    out += text;
    ok = false;
  };
  std::vector<double> given(nres, 0);  // what the static and partitionable slots were given
  for (const auto& sp : slots_) {
    const SlotImpl& s = *sp;
    if (s.dead) continue;
    for (size_t i = 0; i < nres; ++i) {
      if (amount_of(s.res, i) < 0) {
        std::snprintf(buf, sizeof buf, "%s has %s %g", s.name.c_str(), name_of(i).c_str(),
                      amount_of(s.res, i));
        fail(buf);
      }
    }
    if (s.dynamic) continue;
    for (size_t i = 0; i < nres; ++i) {
      given[i] += amount_of(s.total, i);
      double held = amount_of(s.res, i);
      for (const auto& dp : slots_) {
        if (!dp->dead && dp->parent == &s) held += amount_of(dp->res, i);
      }
      if (held != amount_of(s.total, i)) {
        std::snprintf(buf, sizeof buf, "%s: %s free plus its dynamic slots' is %g, not its %g",
                      s.name.c_str(), name_of(i).c_str(), held, amount_of(s.total, i));
        fail(buf);
      }
    }
  }
  for (size_t i = 0; i < nres; ++i) {
    double machine = amount_of(layout_.machine, i);
    if (given[i] > machine) {
      std::snprintf(buf, sizeof buf, "the slots have %s %g, more than the machine's %g",
                    name_of(i).c_str(), given[i], machine);
      fail(buf);
    }
  }
  if (ok) {
    for (size_t i = 0; i < nres; ++i) {
      std::snprintf(buf, sizeof buf, "%s%s %g of %g", i ? ", " : "", name_of(i).c_str(), given[i],
                    amount_of(layout_.machine, i));
      out += buf;
    }
  }
  *report = out;
  return ok;
}

}  // namespace kite::startd
