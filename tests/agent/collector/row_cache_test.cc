// Tests of the CM's kept rows (agent/cm/row_cache.h): found by generation, bounded in bytes.
#include "agent/cm/row_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace kite::cm {
namespace {

TEST(RowCache, RowsAreFoundByGenerationAndOnlyForTheirProjection) {
  RowCache cache;
  RowCache::Fill fill;
  fill.add(7, "R1,;");
  fill.add(9, "R2,;");
  cache.replace("Name,State", std::move(fill), 100);
  std::string_view row;
  RowCache::Cursor at;
  ASSERT_TRUE(cache.find("Name,State", 9, &row, &at));
  EXPECT_EQ(row, "R2,;");
  ASSERT_TRUE(cache.find("Name,State", 7, &row, &at));
  EXPECT_EQ(row, "R1,;");
  EXPECT_FALSE(cache.find("Name,State", 8, &row, &at));  // the ad changed since
  RowCache::Cursor other;
  EXPECT_FALSE(cache.find("Name", 7, &row, &other));
}

// Any READ client chooses projections: what one keeps is capped, rows past the cap are not kept.
TEST(RowCache, WhatOneProjectionKeepsIsCapped) {
  RowCache cache;
  RowCache::Fill fill;
  const std::string big(64 * 1024, 'x');
  const uint64_t rows = RowCache::kMaxRowBytes / big.size() + 8;
  for (uint64_t g = 1; g <= rows; ++g) fill.add(g, big);
  cache.replace("Everything", std::move(fill), 100);
  std::string_view row;
  RowCache::Cursor at;
  EXPECT_TRUE(cache.find("Everything", 1, &row, &at));
  EXPECT_EQ(row.size(), big.size());
  EXPECT_FALSE(cache.find("Everything", rows, &row, &at));
  EXPECT_LE(cache.bytes(), RowCache::kMaxRowBytes + 64 * 1024);
}

}  // namespace
}  // namespace kite::cm
