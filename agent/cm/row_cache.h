// Rows of stored ads kept between row queries of one projection (agent/core/ad_rows.h): an ad
// whose generation has not changed since the last such query is not read again. Slots that
// update every few minutes make most of a `kite status` table rows already written; reading
// each ad's attributes (scattered in memory) is what a query's rows cost.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::cm {

class RowCache {
 public:
  // Row bytes one projection keeps: any READ client chooses projections, so the cache must not
  // grow with them (a default table of 10,000 slots is about 0.5 MiB); rows past it are
  // written fresh on every query.
  static constexpr size_t kMaxRowBytes = size_t{8} << 20;
  RowCache();
  ~RowCache();
  // The rows one query wrote: what replaces the projection's kept rows when it ends.
  class Fill {
   public:
    void add(uint64_t generation, std::string_view row);

   private:
    friend class RowCache;
    struct Item {
      uint64_t gen;
      uint32_t off, len;
    };
    std::string text_;
    std::vector<Item> items_;
  };

  struct Shape;
  // Where a query reads: its projection's kept rows, and the row after the last one found
  // (a query walks the ads in the order the last one did, so that is the next one it wants).
  struct Cursor {
    const Shape* shape = nullptr;
    uint64_t epoch = 0;  // the cache's epoch when `shape` was looked up
    size_t next = 0;
  };
  // The kept row of an ad in `generation` for projection `key` (the attribute names joined),
  // or false.
  bool find(const std::string& key, uint64_t generation, std::string_view* row, Cursor* at) const;
  // Sizes `fill` for as many rows as projection `key` keeps now (a table's megabyte is not
  // grown by doubling on every query).
  void reserve(const std::string& key, Fill* fill) const;
  // A query of projection `key` ended having written `fill`: its rows are the ones kept.
  void replace(const std::string& key, Fill fill, int64_t now);
  // Forgets projections no query used since `idle_since` (their memory is given back).
  void drop_idle(int64_t idle_since);
  size_t bytes() const;

 private:
  std::vector<std::unique_ptr<Shape>> shapes_;  // a few at most (kMaxShapes)
  uint64_t epoch_ = 1;                          // changes whenever shapes_ does
};

}  // namespace kite::cm
