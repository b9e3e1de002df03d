// ClassAd::copy() and remove(): a copy shares the trees it can and is still a separate ad;
// nested ads are its own, scoped to it; attributes removed one after another are gone.
#include <gtest/gtest.h>

#include "policy/classad/classad.h"
#include "policy/classad/parser.h"

namespace kite::classad {
namespace {

AdPtr ad_of(const std::string& text) {
  ParseError err;
  AdPtr a = parse_classad(text, &err);
  EXPECT_TRUE(a) << err.to_string();
  return a;
}

int64_t int_of(const ClassAd& ad, const char* name) {
  int64_t v = -1;
  EXPECT_TRUE(ad.evaluate_int(name, v)) << name;
  return v;
}

TEST(ClassAdCopy, SharesPlainTreesAndStaysSeparate) {
  AdPtr a = ad_of("[x = 2; y = x * 10; r = TARGET.Memory > y]");
  AdPtr b(a->copy());
  EXPECT_EQ(b->lookup("y"), a->lookup("y"));  // immutable: shared
  EXPECT_EQ(int_of(*b, "y"), 20);
  b->insert_value("x", Value::integer(3));
  EXPECT_EQ(int_of(*b, "y"), 30);
  EXPECT_EQ(int_of(*a, "y"), 20);  // the original keeps its value
  EXPECT_NE(a->generation(), b->generation());
  a = AdPtr();  // the copy's trees outlive the original
  EXPECT_EQ(int_of(*b, "y"), 30);
}

TEST(ClassAdCopy, NestedAdsAreCopiedAndScopedToTheCopy) {
  AdPtr a = ad_of("[base = 5; inner = [v = parent_base]; parent_base = base; got = inner.v]");
  AdPtr b(a->copy());
  EXPECT_NE(b->lookup("inner"), a->lookup("inner"));  // holds an ad: copied
  b->insert_value("base", Value::integer(7));
  EXPECT_EQ(int_of(*b, "got"), 7);
  EXPECT_EQ(int_of(*a, "got"), 5);
  a = AdPtr();
  EXPECT_EQ(int_of(*b, "got"), 7);
}

TEST(ClassAdRemove, SeveralInARowThenLookups) {
  std::string text = "[";
  for (int i = 0; i < 40; ++i) text += "a" + std::to_string(i) + " = " + std::to_string(i) + ";";
  text += "]";
  AdPtr a = ad_of(text);
  ASSERT_NE(a->lookup("a39"), nullptr);  // (the index is built)
  for (int i = 0; i < 40; i += 3) EXPECT_TRUE(a->remove("a" + std::to_string(i)));
  EXPECT_FALSE(a->remove("a0"));
  EXPECT_FALSE(a->remove("nosuch"));
  for (int i = 0; i < 40; ++i) {
    const bool gone = i % 3 == 0;
    EXPECT_EQ(a->lookup("a" + std::to_string(i)) == nullptr, gone) << i;
    if (!gone) {
      EXPECT_EQ(int_of(*a, ("a" + std::to_string(i)).c_str()), i);
    }
  }
  EXPECT_EQ(a->size(), 40u - 14u);
}

}  // namespace
}  // namespace kite::classad
