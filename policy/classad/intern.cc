// The process-wide attribute-name table (case-insensitive ids, exact
// spellings): open-addressing tables so a lookup of a known spelling costs
// one hash and no allocation.
#include "policy/classad/intern.h"

#include <cstring>
#include <vector>

#include "policy/classad/hash.h"

namespace kite::classad {
namespace {

// `fold` lower-cases ASCII letters first, so the two forms of a name hash
// alike.
inline uint64_t hash_bytes(const char* p, size_t n, bool fold) {
  return hash::bytes(p, n, fold);
}

bool equal_fold(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

using intern_detail::Slot;

// One open-addressing table; `fold` makes it case-insensitive.
struct NameTable {
  explicit NameTable(bool f) : fold(f), slots(256), mask(255) {}
  bool fold;
  std::vector<Slot> slots;
  size_t mask;
  size_t used = 0;

  Slot* find(std::string_view s, uint64_t h) {
    const uint32_t h32 = static_cast<uint32_t>(h);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& sl = slots[i];
      if (!sl.name) return &sl;
      if (sl.hash == h32 && sl.name->len == s.size() &&
          (fold ? equal_fold(sl.name->data(), s.data(), s.size())
                : hash::equal(sl.name->data(), s.data(), s.size()))) {
        return &sl;
      }
    }
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots);
    slots.assign(old.size() * 2, Slot{});
    mask = slots.size() - 1;
    for (Slot& sl : old) {
      if (!sl.name) continue;
      size_t i = sl.hash & mask;
      while (slots[i].name) i = (i + 1) & mask;
      slots[i] = sl;
    }
  }
  Slot* insert(StringObj* name, uint32_t id, uint64_t h) {
    if ((used + 1) * 2 > slots.size()) grow();
    Slot* sl = find(name->view(), h);
    sl->name = name;
    sl->id = id;
    sl->hash = static_cast<uint32_t>(h);
    ++used;
    return sl;
  }
};

struct Table {
  NameTable exact{false};
  NameTable ids{true};
  uint32_t next_id = 1;
};

[[gnu::noinline]] Table* make_table() {
  auto* tbl = new Table();  // never destroyed: names outlive every ad
  for (const char* reserved :
       {"MY", "TARGET", "self", "parent", "root", "toplevel", "CurrentTime", "other"}) {
    StringObj* s = StringObj::make(reserved);
    tbl->ids.insert(s, tbl->next_id++, hash_bytes(reserved, std::strlen(reserved), true));
  }
  return tbl;
}

inline Table& table() {
  static Table* t = make_table();
  return *t;
}

}  // namespace

namespace intern_detail {

ExactView g_exact = {nullptr, 0};

// A spelling not seen before: a new exact entry, and a new id unless another
// case variant has one. (Also the first call, which makes the table.)
InternedName intern_new(std::string_view name, uint64_t h) {
  Table& t = table();
  Slot* sl = t.exact.find(name, h);
  if (sl->name) return {sl->id, sl->name};  // the table was just made
  uint64_t hf = hash_bytes(name.data(), name.size(), true);
  Slot* idslot = t.ids.find(name, hf);
  StringObj* s = StringObj::make(name);
  uint32_t id = idslot->name ? idslot->id : t.ids.insert(s, t.next_id++, hf)->id;
  t.exact.insert(s, id, h);
  g_exact = ExactView{t.exact.slots.data(), t.exact.mask};
  return {id, s};
}

}  // namespace intern_detail

uint32_t intern_find(std::string_view name) {
  Table& t = table();
  // A known spelling (nearly every call) is found word by word; only another case of a name
  // needs the letter-by-letter comparison of the folded table.
  Slot* exact = t.exact.find(name, hash_bytes(name.data(), name.size(), false));
  if (exact->name) return exact->id;
  Slot* sl = t.ids.find(name, hash_bytes(name.data(), name.size(), true));
  return sl->name ? sl->id : 0;
}

}  // namespace kite::classad
