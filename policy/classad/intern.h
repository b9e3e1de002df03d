// Attribute-name interning: every spelling of a name maps to one id shared by
// all its case variants, so attribute lookup compares integers.
#pragma once

#include <cstdint>
#include <string_view>

#include "policy/classad/hash.h"
#include "policy/classad/value.h"

namespace kite::classad {

struct InternedName {
  uint32_t id;      // same for every case variant
  StringObj* name;  // this exact spelling (owned by the table; never freed)
};

namespace intern_detail {

struct Slot {
  StringObj* name = nullptr;  // exact spelling (or the first spelling, for ids)
  uint32_t id = 0;
  uint32_t hash = 0;  // low bits of the name's hash
};
// The exact-spelling table as intern_name's inline lookup sees it;
// republished whenever the table changes (null slots before first use).
struct ExactView {
  const Slot* slots;
  size_t mask;
};
extern ExactView g_exact;
// A spelling not in the exact table (or the table not yet made).
InternedName intern_new(std::string_view name, uint64_t hash);

}  // namespace intern_detail

// Interns `name` (any case). Ids are small dense integers starting at 1. A
// known spelling (nearly every call) is one hash and one probe, inline.
inline InternedName intern_name(std::string_view name) {
  const intern_detail::ExactView v = intern_detail::g_exact;
  const uint64_t h = hash::bytes(name.data(), name.size(), false);
  if (v.slots) {
    const uint32_t h32 = static_cast<uint32_t>(h);
    for (size_t i = h & v.mask;; i = (i + 1) & v.mask) {
      const intern_detail::Slot& sl = v.slots[i];
      if (!sl.name) break;
      if (sl.hash == h32 && sl.name->len == name.size() &&
          hash::equal(sl.name->data(), name.data(), name.size())) {
        return {sl.id, sl.name};
      }
    }
  }
  return intern_detail::intern_new(name, h);
}
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
// `other`: in a match, what an ad's context calls its partner (as TARGET
// does) when the ad and its enclosing ads do not define it. Not special
// otherwise, so it is looked up like any name.
constexpr uint32_t kIdOther = 8;
inline uint32_t intern_id_my() {
  return kIdMy;
}
inline uint32_t intern_id_target() {
  return kIdTarget;
}

}  // namespace kite::classad
