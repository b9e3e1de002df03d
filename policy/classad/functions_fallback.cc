// Weak fallbacks so the library links while a function group is absent; each
// functions_<group>.cc provides the real (strong) definition.
#include "policy/classad/functions.h"
#include "policy/classad/unparse.h"

#include <cstdio>

namespace kite::classad {

#define KITE_WEAK_GROUP(name) \
  __attribute__((weak)) FunctionTable name() { return {nullptr, 0}; }
KITE_WEAK_GROUP(functions_core)
KITE_WEAK_GROUP(functions_math)
KITE_WEAK_GROUP(functions_string)
KITE_WEAK_GROUP(functions_list)
KITE_WEAK_GROUP(functions_regex)
KITE_WEAK_GROUP(functions_stringlist)
KITE_WEAK_GROUP(functions_time)
#undef KITE_WEAK_GROUP

__attribute__((weak)) void format_rel_time(std::string& out, double secs) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", secs);
  out += buf;
}

__attribute__((weak)) void format_abs_time(std::string& out, int64_t secs, int32_t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(secs));
  out += buf;
}

}  // namespace kite::classad
