// Attribute-name interning: every spelling of a name maps to one id shared by
// all its case variants, so attribute lookup compares integers.
#pragma once

#include <cstdint>
#include <string_view>

#include "policy/classad/value.h"

namespace kite::classad {

struct InternedName {
  uint32_t id;      // same for every case variant
  StringObj* name;  // this exact spelling (owned by the table; never freed)
};

// Interns `name` (any case). Ids are small dense integers starting at 1.
InternedName intern_name(std::string_view name);
// Id of `name` if it was ever interned, else 0 (no allocation).
uint32_t intern_find(std::string_view name);
// Well-known ids, reserved when the table is created.
constexpr uint32_t kIdMy = 1;
constexpr uint32_t kIdTarget = 2;
// The other names HTCondor's old-ClassAd semantics treat specially when an
// ad does not define them: self (= MY), parent, root, toplevel, CurrentTime.
constexpr uint32_t kIdSelf = 3;
constexpr uint32_t kIdParent = 4;
constexpr uint32_t kIdRoot = 5;
constexpr uint32_t kIdTopLevel = 6;
constexpr uint32_t kIdCurrentTime = 7;
constexpr uint32_t kIdLastReserved = 7;
inline uint32_t intern_id_my() {
  return kIdMy;
}
inline uint32_t intern_id_target() {
  return kIdTarget;
}

}  // namespace kite::classad
