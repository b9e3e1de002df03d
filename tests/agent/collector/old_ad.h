// Test helper for the collector's tests: an ad from old ClassAd syntax, failing the test on a
// parse error.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "policy/classad/parser.h"

namespace kite::testing_ads {

inline classad::AdPtr ad(const std::string& text) {
  classad::ParseError err;
  classad::AdPtr a = classad::parse_classad_old(text, &err);
  EXPECT_TRUE(a) << err.to_string();
  return a;
}

}  // namespace kite::testing_ads
