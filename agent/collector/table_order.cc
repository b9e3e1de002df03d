// The store's ads in table order (see table_order.h).
#include "agent/collector/table_order.h"

#include <algorithm>
#include <cstring>

#include "agent/collector/ad_store.h"

namespace kite::collector {
namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// <0, 0, >0 as `a` sorts before, with or after `b`: runs of digits by value (then by how many
// leading zeros, fewer first), other bytes as unsigned; equal runs compare on.
int natural(const char* a, size_t na, const char* b, size_t nb) {
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (digit(a[i]) && digit(b[j])) {
      size_t si = i, sj = j;
      while (i < na && a[i] == '0') ++i;
      while (j < nb && b[j] == '0') ++j;
      size_t zi = i - si, zj = j - sj, di = i, dj = j;
      while (i < na && digit(a[i])) ++i;
      while (j < nb && digit(b[j])) ++j;
      if (i - di != j - dj) return (i - di) < (j - dj) ? -1 : 1;
      if (int c = std::memcmp(a + di, b + dj, i - di)) return c;
      if (zi != zj) return zi < zj ? -1 : 1;
      continue;
    }
    auto ca = static_cast<unsigned char>(a[i]), cb = static_cast<unsigned char>(b[j]);
    if (ca != cb) return ca < cb ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < na) return 1;
  return j < nb ? -1 : 0;
}

int natural(const std::string* a, const std::string* b) {
  static const std::string kNone;
  if (!a) a = &kNone;
  if (!b) b = &kNone;
  return natural(a->data(), a->size(), b->data(), b->size());
}

}  // namespace

int TableOrder::compare(const std::string* machine, const std::string& key, const Entry* b) {
  if (int c = natural(machine, b->second.indexed[1])) return c;
  if (int c = natural(&key, &b->first)) return c;
  return key.compare(b->first);
}

bool TableOrder::less(const Entry* a, const Entry* b) {
  return compare(a->second.indexed[1], a->first, b) < 0;
}

void TableOrder::add(const Entry* e) {
  if (active_) pending_.insert(e);
}

void TableOrder::remove(const Entry* e) {
  if (!active_) return;
  // One not yet merged is simply forgotten; a merged one is dropped by address at the next list().
  if (pending_.erase(e) == 0) removed_.insert(e);
}

const std::vector<const TableOrder::Entry*>& TableOrder::list(
    const std::map<std::string, StoredAd>& all) {
  if (!active_) {
    active_ = true;
    for (const Entry& e : all) pending_.insert(&e);
  }
  if (!pending_.empty() || !removed_.empty()) settle();
  return order_;
}

void TableOrder::settle() {
  if (!removed_.empty()) {
    order_.erase(std::remove_if(order_.begin(), order_.end(),
                                [&](const Entry* e) { return removed_.count(e) != 0; }),
                 order_.end());
    removed_.clear();
  }
  if (!pending_.empty()) {
    std::vector<const Entry*> added(pending_.begin(), pending_.end());
    pending_.clear();
    std::sort(added.begin(), added.end(), less);
    std::vector<const Entry*> merged;
    merged.reserve(order_.size() + added.size());
    std::merge(order_.begin(), order_.end(), added.begin(), added.end(), std::back_inserter(merged),
               less);
    order_.swap(merged);
  }
  ++epoch_;
}

size_t TableOrder::bytes() const {
  return order_.capacity() * sizeof(const Entry*) +
         (pending_.size() + removed_.size()) * (2 * sizeof(void*) + sizeof(size_t));
}

}  // namespace kite::collector
