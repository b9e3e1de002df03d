// Kept rows of row queries (see row_cache.h).
#include "agent/cm/row_cache.h"

#include <algorithm>

namespace kite::cm {
namespace {

// Projections kept at once: the default table, -af forms, a script's own query.
constexpr size_t kMaxShapes = 4;

size_t slot_of(uint64_t gen, size_t mask) {
  return static_cast<size_t>((gen * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

}  // namespace

void RowCache::Fill::add(uint64_t generation, std::string_view row) {
  // Offsets are 32-bit: a fill that would pass 4 GiB keeps nothing more.
  if (generation == 0 || text_.size() + row.size() > UINT32_MAX) return;
  items_.push_back(
      Item{generation, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(row.size())});
  text_.append(row.data(), row.size());
}

const RowCache::Shape* RowCache::shape(const std::string& key) const {
  for (const auto& s : shapes_)
    if (s->key == key) return s.get();
  return nullptr;
}

bool RowCache::find(const std::string& key, uint64_t generation, std::string_view* row) const {
  const Shape* s = shape(key);
  if (!s || s->slots.empty() || generation == 0) return false;
  size_t mask = s->slots.size() - 1;
  for (size_t i = slot_of(generation, mask);; i = (i + 1) & mask) {
    const Fill::Item& it = s->slots[i];
    if (it.gen == 0) return false;
    if (it.gen == generation) {
      *row = std::string_view(s->text).substr(it.off, it.len);
      return true;
    }
  }
}

void RowCache::replace(const std::string& key, Fill fill, int64_t now) {
  Shape* s = nullptr;
  for (auto& sh : shapes_)
    if (sh->key == key) s = sh.get();
  if (!s) {
    if (shapes_.size() >= kMaxShapes) {
      // The projection used longest ago makes room.
      auto oldest =
          std::min_element(shapes_.begin(), shapes_.end(),
                           [](const auto& a, const auto& b) { return a->used < b->used; });
      shapes_.erase(oldest);
    }
    shapes_.push_back(std::make_unique<Shape>());
    s = shapes_.back().get();
    s->key = key;
  }
  s->used = now;
  s->text = std::move(fill.text_);
  size_t n = 16;
  while (n < 2 * fill.items_.size()) n *= 2;
  std::vector<Fill::Item>(n, Fill::Item{0, 0, 0}).swap(s->slots);
  size_t mask = n - 1;
  for (const Fill::Item& it : fill.items_) {
    size_t i = slot_of(it.gen, mask);
    while (s->slots[i].gen != 0 && s->slots[i].gen != it.gen) i = (i + 1) & mask;
    s->slots[i] = it;
  }
}

void RowCache::drop_idle(int64_t idle_since) {
  shapes_.erase(std::remove_if(shapes_.begin(), shapes_.end(),
                               [&](const auto& s) { return s->used < idle_since; }),
                shapes_.end());
}

size_t RowCache::bytes() const {
  size_t n = 0;
  for (const auto& s : shapes_) n += s->text.capacity() + s->slots.capacity() * sizeof(Fill::Item);
  return n;
}

}  // namespace kite::cm
