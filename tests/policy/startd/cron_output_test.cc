// Tests of reading startd cron output into records and routing them to slots.
#include <gtest/gtest.h>

#include "policy/classad/parser.h"
#include "policy/startd/cron_output.h"

namespace kite::startd {
namespace {

// Feeds `text` line by line; the records closed by separators, then the one pending at the end.
std::vector<CronRecord> parse_all(CronOutputParser* p, const std::string& text) {
  std::vector<CronRecord> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    if (p->line(std::string_view(text).substr(at, nl - at))) out.push_back(p->take());
    at = nl + 1;
  }
  if (p->finish()) out.push_back(p->take());
  return out;
}

using Attrs = std::vector<std::pair<std::string, std::string>>;

TEST(CronOutput, OneUnnamedRecordWithThePrefix) {
  CronOutputParser p("temp_");
  auto recs =
      parse_all(&p, "Celsius = 41.5\nZone = \"north\"\n\n# a comment\nHot = Celsius > 40\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(
      recs[0].attrs,
      (Attrs{{"temp_Celsius", "41.5"}, {"temp_Zone", "\"north\""}, {"temp_Hot", "Celsius > 40"}}));
  EXPECT_TRUE(recs[0].tag.empty());
  EXPECT_TRUE(cron_record_unrouted(recs[0]));
  EXPECT_TRUE(p.take_errors().empty());
}

TEST(CronOutput, SeparatorsCloseNamedRecordsWithUpdateFlags) {
  CronOutputParser p("");
  auto recs = parse_all(&p,
                        "Value=1\nSlotId=1\n-s1\nValue=2\nSlotId=2\n- s2 update:false\n"
                        "Value=10\n- update:true\n");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].tag, "s1");
  EXPECT_EQ(recs[0].slot_id, 1);
  EXPECT_EQ(recs[0].attrs, (Attrs{{"Value", "1"}}));  // routing attributes are not merged
  EXPECT_EQ(recs[0].update, -1);
  EXPECT_EQ(recs[1].tag, "s2");
  EXPECT_EQ(recs[1].slot_id, 2);
  EXPECT_EQ(recs[1].update, 0);
  EXPECT_TRUE(recs[2].tag.empty());
  EXPECT_EQ(recs[2].update, 1);
  EXPECT_TRUE(cron_record_unrouted(recs[2]));
  EXPECT_FALSE(p.finish());  // nothing after the last separator
}

TEST(CronOutput, ALaterValueOfTheSameAttributeWins) {
  CronOutputParser p("");
  auto recs = parse_all(&p, "A = 1\na = 2\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].attrs, (Attrs{{"A", "2"}}));
}

TEST(CronOutput, BadLinesAreIgnoredAndReportedWithTheirLineNumber) {
  CronOutputParser p("x_");
  auto recs = parse_all(&p, "Good = 1\nthis is garbage\n9lives = 3\nBad = (1 +\n = 4\nAlso = 2\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].attrs, (Attrs{{"x_Good", "1"}, {"x_Also", "2"}}));
  std::vector<std::string> e = p.take_errors();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].rfind("line 2: not `Attr = value`: this is garbage", 0), 0u) << e[0];
  EXPECT_EQ(e[1].rfind("line 3: bad attribute name", 0), 0u) << e[1];
  EXPECT_EQ(e[2].rfind("line 4: bad value", 0), 0u) << e[2];
  EXPECT_EQ(e[3].rfind("line 5: bad attribute name", 0), 0u) << e[3];
  EXPECT_TRUE(p.take_errors().empty());
}

TEST(CronOutput, OnlyGarbageMakesNoRecord) {
  CronOutputParser p("");
  auto recs = parse_all(&p, "%%%\n!!\n");
  EXPECT_TRUE(recs.empty());
  EXPECT_EQ(p.take_errors().size(), 2u);
}

CronSlot slot(const char* name, int64_t id, int64_t type, const classad::ClassAd* ad = nullptr) {
  CronSlot s;
  s.name = name;
  s.id = id;
  s.type_id = type;
  s.ad = ad;
  return s;
}

TEST(CronOutput, RoutingBySlotIdTypeNameAndJobSlots) {
  CronOutputParser p("");
  auto recs = parse_all(&p,
                        "V=1\nSlotId=2\n-\nV=2\nSlotTypeId=1\n-\nV=3\nSlotName=\"slot1_\"\n-\n"
                        "V=4\nName=\"slot3\"\nSlotId=1\n-\nV=5\n");
  ASSERT_EQ(recs.size(), 5u);
  CronSlot s1 = slot("slot1", 1, 1), s2 = slot("slot2", 2, 2), d = slot("slot1_1", 1, 1),
           s3 = slot("slot3", 3, 2);
  EXPECT_FALSE(cron_record_applies(recs[0], {}, s1));
  EXPECT_TRUE(cron_record_applies(recs[0], {}, s2));
  EXPECT_TRUE(cron_record_applies(recs[1], {}, s1));
  EXPECT_FALSE(cron_record_applies(recs[1], {}, s2));
  EXPECT_TRUE(cron_record_applies(recs[2], {}, d));  // a prefix of the name
  EXPECT_FALSE(cron_record_applies(recs[2], {}, s1));
  EXPECT_TRUE(cron_record_applies(recs[3], {}, s3));  // the name outranks SlotId
  EXPECT_FALSE(cron_record_applies(recs[3], {}, s1));
  EXPECT_TRUE(cron_record_applies(recs[4], {}, s2));
  // _SLOTS limits every record, routed or not.
  EXPECT_FALSE(cron_record_applies(recs[4], {1, 3}, s2));
  EXPECT_TRUE(cron_record_applies(recs[4], {1, 3}, s3));
  EXPECT_FALSE(cron_record_applies(recs[0], {1}, s2));
}

TEST(CronOutput, SlotMergeConstraintIsEvaluatedInTheSlotAd) {
  CronOutputParser p("");
  auto recs = parse_all(&p,
                        "U=5\nSlotMergeConstraint = StringListMember(\"GPU-1\", AssignedGPUs)\n"
                        "SlotId = 1\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_FALSE(cron_record_unrouted(recs[0]));
  classad::AdPtr with = classad::parse_classad_old("AssignedGPUs = \"GPU-0,GPU-1\"\n");
  classad::AdPtr without = classad::parse_classad_old("AssignedGPUs = \"GPU-0\"\n");
  ASSERT_TRUE(with && without);
  EXPECT_TRUE(cron_record_applies(recs[0], {}, slot("slot2", 2, 1, with.get())));
  // The constraint outranks SlotId = 1.
  EXPECT_FALSE(cron_record_applies(recs[0], {}, slot("slot1", 1, 1, without.get())));
  EXPECT_FALSE(cron_record_applies(recs[0], {}, slot("slot1", 1, 1)));
}

}  // namespace
}  // namespace kite::startd
