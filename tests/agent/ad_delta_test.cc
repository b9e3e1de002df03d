// The collector link's slot-ad deltas: only changed or new attributes travel, with Name, and a
// removed attribute or an unknown past makes the whole ad go.
#include "agent/startd/ad_delta.h"

#include <gtest/gtest.h>

#include "policy/classad/json.h"
#include "policy/classad/unparse.h"

namespace kite::agent {
namespace {

const char* kBefore = R"({"Name":"slot1@n","State":"Unclaimed","Cpus":4,"LoadAvg":0.5})";

TEST(AdDelta, OnlyChangedAndNewAttributesTravelWithTheName) {
  AdDigest before = digest_ad(kBefore);
  std::string now_text = R"({"Name":"slot1@n","State":"Claimed","Cpus":4,"LoadAvg":0.5,"X":1})";
  std::string delta = ad_delta(before, digest_ad(now_text), now_text);
  classad::AdPtr ad = classad::classad_from_json(delta);
  ASSERT_TRUE(ad) << delta;
  EXPECT_EQ(ad->size(), 3u) << delta;
  std::string name, state;
  int64_t x = 0;
  EXPECT_TRUE(ad->evaluate_string("Name", name) && name == "slot1@n") << delta;
  EXPECT_TRUE(ad->evaluate_string("State", state) && state == "Claimed") << delta;
  EXPECT_TRUE(ad->evaluate_int("X", x) && x == 1) << delta;
}

TEST(AdDelta, ARemovedAttributeOrNoPastSendsTheWholeAd) {
  AdDigest before = digest_ad(kBefore);
  std::string fewer = R"({"Name":"slot1@n","State":"Claimed","Cpus":4})";
  EXPECT_EQ(ad_delta(before, digest_ad(fewer), fewer), "");
  EXPECT_EQ(ad_delta(AdDigest{}, digest_ad(fewer), fewer), "");
}

TEST(AdDelta, NoChangeNoNameOrNotAnObjectSendsTheWholeAd) {
  AdDigest before = digest_ad(kBefore);
  EXPECT_EQ(ad_delta(before, digest_ad(kBefore), kBefore), "");
  std::string nameless = R"({"State":"Claimed","Cpus":4,"LoadAvg":0.5})";
  AdDigest nameless_before = digest_ad(R"({"State":"Unclaimed","Cpus":4,"LoadAvg":0.5})");
  EXPECT_EQ(ad_delta(nameless_before, digest_ad(nameless), nameless), "");
  EXPECT_TRUE(digest_ad("[1,2]").attrs.empty());
  EXPECT_EQ(ad_delta(before, digest_ad("not json"), "not json"), "");
}

TEST(AdDelta, AChangedExpressionValueIsSeen) {
  std::string a = R"({"Name":"s","Start":"\/Expr(KeyboardIdle > 15)\/"})";
  std::string b = R"({"Name":"s","Start":"\/Expr(KeyboardIdle > 60)\/"})";
  std::string delta = ad_delta(digest_ad(a), digest_ad(b), b);
  classad::AdPtr ad = classad::classad_from_json(delta);
  ASSERT_TRUE(ad) << delta;
  const classad::Expr* start = ad->lookup("Start");
  ASSERT_NE(start, nullptr) << delta;
  EXPECT_EQ(classad::to_string(start), "KeyboardIdle > 60") << delta;
}

}  // namespace
}  // namespace kite::agent
