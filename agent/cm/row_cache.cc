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

struct RowCache::Shape {
  std::string key;
  std::string text;
  std::vector<Fill::Item> order;  // as the query that wrote them walked the ads
  std::vector<uint32_t> slots;    // open addressing on the generation: index in order + 1
  int64_t used = 0;
};

RowCache::RowCache() = default;
RowCache::~RowCache() = default;

void RowCache::Fill::add(uint64_t generation, std::string_view row) {
  // A fill that would pass kMaxRowBytes keeps nothing more (offsets are 32-bit too).
  if (generation == 0 || text_.size() + row.size() > kMaxRowBytes) return;
  items_.push_back(
      Item{generation, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(row.size())});
  text_.append(row.data(), row.size());
}

bool RowCache::find(const std::string& key, uint64_t generation, std::string_view* row,
                    Cursor* at) const {
  if (at->epoch != epoch_) {
    at->epoch = epoch_;
    at->shape = nullptr;
    at->next = 0;
    for (const auto& s : shapes_)
      if (s->key == key) at->shape = s.get();
  }
  const Shape* s = at->shape;
  if (!s || s->slots.empty() || generation == 0) return false;
  size_t i = at->next;
  if (i >= s->order.size() || s->order[i].gen != generation) {
    size_t mask = s->slots.size() - 1;
    for (size_t h = slot_of(generation, mask);; h = (h + 1) & mask) {
      if (s->slots[h] == 0) return false;
      if (s->order[s->slots[h] - 1].gen == generation) {
        i = s->slots[h] - 1;
        break;
      }
    }
  }
  at->next = i + 1;
  *row = std::string_view(s->text).substr(s->order[i].off, s->order[i].len);
  return true;
}

void RowCache::reserve(const std::string& key, Fill* fill) const {
  for (const auto& s : shapes_) {
    if (s->key != key) continue;
    fill->text_.reserve(s->text.size());
    fill->items_.reserve(s->order.size());
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
  s->order = std::move(fill.items_);
  size_t n = 16;
  while (n < 2 * s->order.size()) n *= 2;
  std::vector<uint32_t>(n, 0).swap(s->slots);
  size_t mask = n - 1;
  for (size_t k = 0; k < s->order.size(); ++k) {
    size_t h = slot_of(s->order[k].gen, mask);
    while (s->slots[h] != 0) h = (h + 1) & mask;
    s->slots[h] = static_cast<uint32_t>(k + 1);
  }
  ++epoch_;
}

void RowCache::drop_idle(int64_t idle_since) {
  shapes_.erase(std::remove_if(shapes_.begin(), shapes_.end(),
                               [&](const auto& s) { return s->used < idle_since; }),
                shapes_.end());
  ++epoch_;
}

size_t RowCache::bytes() const {
  size_t n = 0;
  for (const auto& s : shapes_)
    n += s->text.capacity() + s->order.capacity() * sizeof(Fill::Item) +
         s->slots.capacity() * sizeof(uint32_t);
  return n;
}

}  // namespace kite::cm
