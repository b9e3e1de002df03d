// The startd core reads its boolean and integer settings with the configuration's one typed
// reader: every boolean word means the same here as anywhere, and a bad value stops the start
// with the file and line that set it.
#include <gtest/gtest.h>

#include "policy/config/config.h"
#include "policy/startd/startd.h"
#include "tests/policy/startd/startd_rig.h"

namespace kite::startd {
namespace {

// init()'s error for `conf`, "" when it starts.
std::string init_error(const char* conf) {
  config::Config cfg;
  EXPECT_TRUE(cfg.load_string(conf, "t.conf").ok);
  MachineFacts facts;
  facts.cpus = 2;
  VirtualClock clock(1000);
  Startd sd(cfg, facts, clock);
  std::string err;
  bool ok = sd.init(&err);
  return ok ? "" : err;
}

TEST(StartdConfigWords, EnableBackfillYesIsTrue) {
  for (const char* word : {"yes", "YES", "t", "1", "True"}) {
    std::string conf =
        std::string("NUM_SLOTS = 1\nSTART_BACKFILL = True\nENABLE_BACKFILL = ") + word + "\n";
    StartdRig rig(conf.c_str(), 2, 1024);
    EXPECT_EQ(rig.state("slot1"), "Backfill/Busy") << word;
  }
  StartdRig off("NUM_SLOTS = 1\nSTART_BACKFILL = True\nENABLE_BACKFILL = no\n", 2, 1024);
  EXPECT_EQ(off.state("slot1"), "Unclaimed/Idle");
}

TEST(StartdConfigWords, BadValuesNameFileAndLine) {
  EXPECT_EQ(init_error("NUM_SLOTS = 1\nENABLE_BACKFILL = perhaps\n")
                .rfind("t.conf, line 2: ENABLE_BACKFILL = perhaps: not a boolean", 0),
            0u);
  EXPECT_EQ(init_error("NUM_CPUS = 99999999999999999999\n"),
            "t.conf, line 1: NUM_CPUS = 99999999999999999999: integer out of range (more than "
            "64 bits)");
  EXPECT_EQ(init_error("NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1_PARTITIONABLE = sure\n")
                .rfind("t.conf, line 2: SLOT_TYPE_1_PARTITIONABLE = sure: not a boolean", 0),
            0u);
  EXPECT_EQ(init_error("NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1_PARTITIONABLE = T\n"
                       "CONSUMPTION_POLICY = often\n")
                .rfind("t.conf, line 3: CONSUMPTION_POLICY = often: not a boolean", 0),
            0u);
  EXPECT_EQ(init_error("NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1_PARTITIONABLE = T\n"), "");
}

}  // namespace
}  // namespace kite::startd
