// Tests for the defrag's pure poll: which machines are whole, draining and candidates, the
// rate's credit over polls, DEFRAG_MAX_CONCURRENT_DRAINING and DEFRAG_MAX_WHOLE_MACHINES, the
// rank order, the averages of the Defrag ad, and the settings' errors.
#include "policy/defrag/defrag.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"

namespace kite::defrag {
namespace {

classad::AdPtr ad(const std::string& text) {
  classad::ParseError pe;
  classad::AdPtr a = classad::parse_classad(text, &pe);
  EXPECT_TRUE(a) << pe.to_string() << " in " << text;
  return a;
}

// A machine's partitionable slot with `free` of its `total` CPUs unclaimed.
classad::AdPtr pslot(const std::string& machine, int free, int total,
                     const std::string& extra = "") {
  return ad("[Name = \"slot1@" + machine + "\"; Machine = \"" + machine +
            "\"; PartitionableSlot = true; Cpus = " + std::to_string(free) + "; TotalSlotCpus = " +
            std::to_string(total) + "; TotalCpus = " + std::to_string(total) +
            "; ExpectedMachineGracefulDrainingBadput = " + std::to_string((total - free) * 100) +
            "; " + extra + "]");
}

// A dynamic slot of `machine` running a job.
classad::AdPtr dslot(const std::string& machine, int n, const std::string& extra = "") {
  return ad("[Name = \"slot1_" + std::to_string(n) + "@" + machine + "\"; Machine = \"" + machine +
            "\"; DynamicSlot = true; Cpus = 1; State = \"Claimed\"; " + extra + "]");
}

// Ads are move-only: a vector of them from arguments.
template <typename... A>
std::vector<classad::AdPtr> list(A&&... a) {
  std::vector<classad::AdPtr> v;
  (v.push_back(std::move(a)), ...);
  return v;
}

DefragConfig config(const std::string& text) {
  config::Config c("DEFRAG");
  EXPECT_TRUE(c.load_string(text).ok);
  DefragConfig dc;
  std::string err;
  EXPECT_TRUE(read_config(c, &dc, &err)) << err;
  return dc;
}

std::string read_error(const std::string& text) {
  config::Config c("DEFRAG");
  EXPECT_TRUE(c.load_string(text).ok);
  DefragConfig dc;
  std::string err;
  EXPECT_FALSE(read_config(c, &dc, &err));
  return err;
}

TEST(Defrag, WantedByIntervalOrDaemonList) {
  config::Config a("DEFRAG"), b("DEFRAG"), c("DEFRAG");
  ASSERT_TRUE(a.load_string("DEFRAG_INTERVAL = 60\n").ok);
  ASSERT_TRUE(b.load_string("DAEMON_LIST = COLLECTOR, NEGOTIATOR, defrag\n").ok);
  ASSERT_TRUE(c.load_string("DAEMON_LIST = COLLECTOR NEGOTIATOR\n").ok);
  EXPECT_TRUE(wanted(a));
  EXPECT_TRUE(wanted(b));
  EXPECT_FALSE(wanted(c));
}

TEST(Defrag, DefaultsDrainNothing) {
  DefragConfig dc = config("");
  EXPECT_EQ(dc.interval, 600);
  EXPECT_EQ(dc.per_hour, 0);
  EXPECT_EQ(dc.max_concurrent, -1);
  EXPECT_EQ(dc.max_whole, -1);
  EXPECT_EQ(dc.schedule, Schedule::kGraceful);
  DefragState st;
  Poll p = poll(dc, list(pslot("a", 1, 8), dslot("a", 1)), 1000, &st);
  EXPECT_TRUE(p.drain.empty());
  EXPECT_EQ(p.candidates, 1);
  EXPECT_EQ(p.why_none, "DEFRAG_DRAINING_MACHINES_PER_HOUR is 0");
}

TEST(Defrag, WholeAndDrainingMachinesAreNotCandidates) {
  DefragConfig dc = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\nDEFRAG_INTERVAL = 10\n");
  DefragState st;
  std::vector<classad::AdPtr> slots =
      list(pslot("whole", 8, 8),                                    // every CPU free
           pslot("busy", 2, 8), dslot("busy", 1),                   // fragmented: a candidate
           pslot("drn", 2, 8), dslot("drn", 1, "Draining = true"),  // already draining
           pslot("off", 2, 8, "Offline = true"),                    // asleep
           ad("[Name = \"slot1@static\"; Machine = \"static\"; Cpus = 1; TotalSlotCpus = 1]"));
  Poll p = poll(dc, slots, 1000, &st);
  EXPECT_EQ(p.machines, 5);
  // "whole" only: DEFRAG_WHOLE_MACHINE_EXPR is asked of partitionable slots, so the machine
  // with a static slot is neither whole nor a candidate.
  EXPECT_EQ(p.whole, 1);
  EXPECT_EQ(p.draining, 1);
  EXPECT_EQ(p.candidates, 1);
  EXPECT_EQ(p.drain, std::vector<std::string>{"busy"});
  EXPECT_EQ(st.drains, 1);
}

TEST(Defrag, DefaultsAreTheManualsAndTheFixedRequirementsAreAlwaysAdded) {
  DefragConfig dc = config("");
  EXPECT_EQ(dc.update_interval, 300);
  EXPECT_FALSE(dc.requirements);  // every drainable machine
  ASSERT_TRUE(dc.whole_machine);
  ASSERT_TRUE(dc.cancel);
  DefragState st;
  classad::AdPtr whole = pslot("w", 8, 8);
  classad::AdPtr part = pslot("p", 2, 8);
  EXPECT_TRUE(whole->evaluate_expr(dc.whole_machine.get()).as_boolean());
  EXPECT_FALSE(part->evaluate_expr(dc.whole_machine.get()).as_boolean());
  // DEFRAG_CANCEL_REQUIREMENTS defaults to DEFRAG_WHOLE_MACHINE_EXPR.
  EXPECT_TRUE(whole->evaluate_expr(dc.cancel.get()).as_boolean());
  EXPECT_FALSE(part->evaluate_expr(dc.cancel.get()).as_boolean());
  // A requirement of True still leaves out offline machines and ones without a partitionable
  // slot (PartitionableSlot && Offline =!= true && Draining =!= true is always added).
  DefragConfig any = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\nDEFRAG_REQUIREMENTS = "
      "True\n");
  Poll p = poll(any,
                list(pslot("off", 2, 8, "Offline = true"), dslot("off", 1),
                     ad("[Name = \"slot1@st\"; Machine = \"st\"; Cpus = 1; TotalSlotCpus = 2]"),
                     pslot("p", 2, 8), dslot("p", 1)),
                100, &st);
  EXPECT_EQ(p.candidates, 1);
  EXPECT_EQ(p.drain, std::vector<std::string>{"p"});
}

TEST(Defrag, CancelRequirementsEndTheDefragsOwnDrainsOnly) {
  DefragConfig dc = config("");
  DefragState st;
  // Drained to whole: the defrag's own drain ("Defrag") and one without a reason are canceled
  // (and count as whole); an admin's drain is not, and a drain still under way is not.
  Poll p =
      poll(dc,
           list(pslot("ours", 8, 8, "Draining = true; DrainReason = \"Defrag\""),
                pslot("noreason", 8, 8, "Draining = true"),
                pslot("admin", 8, 8, "Draining = true; DrainReason = \"admin upgrade\""),
                pslot("busy", 2, 8, "Draining = true; DrainReason = \"Defrag\""), dslot("busy", 1)),
           100, &st);
  EXPECT_EQ(p.cancel, (std::vector<std::string>{"noreason", "ours"}));
  EXPECT_EQ(p.whole, 2);
  EXPECT_EQ(p.draining, 4);
  DefragConfig partial = config("DEFRAG_CANCEL_REQUIREMENTS = Cpus >= 2\n");
  EXPECT_EQ(poll(partial, list(pslot("busy", 2, 8, "Draining = true"), dslot("busy", 1)), 100, &st)
                .cancel,
            std::vector<std::string>{"busy"});
}

TEST(Defrag, TheRateIsRoundedToWholeMachinesADay) {
  // 0.07 an hour is 1.68 a day, rounded to 2: one drain every 12 hourly polls (unrounded it
  // would be one in the first 15).
  DefragConfig dc = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 0.07\nDEFRAG_INTERVAL = 3600\n");
  std::vector<classad::AdPtr> slots = list(pslot("m1", 1, 4), dslot("m1", 1));
  DefragState st;
  std::vector<int> drained_at;
  for (int i = 1; i <= 24; ++i) {
    if (!poll(dc, slots, 3600 * i, &st).drain.empty()) drained_at.push_back(i);
  }
  EXPECT_EQ(drained_at, (std::vector<int>{12, 24}));
  // 0.01 an hour (0.24 a day) is at least one a day.
  DefragConfig slow = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 0.01\nDEFRAG_INTERVAL = 3600\n");
  DefragState st2;
  drained_at.clear();
  for (int i = 1; i <= 24; ++i) {
    if (!poll(slow, slots, 3600 * i, &st2).drain.empty()) drained_at.push_back(i);
  }
  EXPECT_EQ(drained_at, (std::vector<int>{24}));
}

TEST(Defrag, TheRateSpreadsDrainsOverPolls) {
  // 1 an hour with a poll every 10 minutes: a drain on the 6th poll, then every 6th.
  DefragConfig dc = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 1\nDEFRAG_INTERVAL = 600\n");
  DefragState st;
  std::vector<classad::AdPtr> slots;
  for (const char* m : {"m1", "m2", "m3"}) {
    slots.push_back(pslot(m, 1, 4));
    slots.push_back(dslot(m, 1));
  }
  std::vector<int> drained_at;
  for (int i = 1; i <= 13; ++i) {
    Poll p = poll(dc, slots, 600 * i, &st);
    if (!p.drain.empty()) drained_at.push_back(i);
    EXPECT_LE(p.drain.size(), 1u);
  }
  EXPECT_EQ(drained_at, (std::vector<int>{6, 12}));
  // A long gap does not bank drains: 10 hours later, still one.
  Poll p = poll(dc, slots, 600 * 13 + 36000, &st);
  EXPECT_EQ(p.drain.size(), 1u);
  // 12 an hour with 10-minute polls: two a poll.
  DefragConfig fast = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 12\nDEFRAG_INTERVAL = 600\n");
  DefragState st2;
  EXPECT_EQ(poll(fast, slots, 600, &st2).drain, (std::vector<std::string>{"m1", "m2"}));
}

TEST(Defrag, MaxConcurrentAndMaxWholeCapTheDrains) {
  std::vector<classad::AdPtr> slots =
      list(pslot("a", 1, 4), dslot("a", 1), pslot("b", 1, 4), dslot("b", 1), pslot("c", 1, 4),
           dslot("c", 1), pslot("d", 1, 4), dslot("d", 1, "Draining = true"), pslot("w", 4, 4));
  DefragConfig dc = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n"
      "DEFRAG_MAX_CONCURRENT_DRAINING = 3\n");
  DefragState st;
  Poll p = poll(dc, slots, 100, &st);
  EXPECT_EQ(p.drain, (std::vector<std::string>{"a", "b"}));  // 1 draining + 2 = 3
  dc = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n"
      "DEFRAG_MAX_CONCURRENT_DRAINING = 1\n");
  DefragState st2;
  p = poll(dc, slots, 100, &st2);
  EXPECT_TRUE(p.drain.empty());
  EXPECT_EQ(p.why_none, "draining machines (1) >= DEFRAG_MAX_CONCURRENT_DRAINING");
  dc = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n"
      "DEFRAG_MAX_WHOLE_MACHINES = 3\n");
  DefragState st3;
  p = poll(dc, slots, 100, &st3);
  EXPECT_EQ(p.drain, (std::vector<std::string>{"a"}));  // 1 whole + 1 draining + 1 = 3
  dc = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n"
      "DEFRAG_MAX_WHOLE_MACHINES = 1\n");
  DefragState st4;
  p = poll(dc, slots, 100, &st4);
  EXPECT_TRUE(p.drain.empty());
  EXPECT_EQ(p.why_none, "whole machines (1) >= DEFRAG_MAX_WHOLE_MACHINES");
}

TEST(Defrag, RankOrdersCandidatesAndRequirementsSelectThem) {
  std::vector<classad::AdPtr> slots = list(pslot("a", 3, 8), dslot("a", 1), pslot("b", 1, 8),
                                           dslot("b", 1), pslot("c", 5, 8), dslot("c", 1));
  // The default rank, -ExpectedMachineGracefulDrainingBadput: the least badput first.
  DefragConfig dc = config("DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n");
  DefragState st;
  EXPECT_EQ(poll(dc, slots, 100, &st).drain, (std::vector<std::string>{"c", "a", "b"}));
  dc = config(
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 36000\nDEFRAG_INTERVAL = 1\n"
      "DEFRAG_RANK = ifThenElse(Machine == \"b\", 10, undefined)\n"
      "DEFRAG_REQUIREMENTS = PartitionableSlot && Machine != \"c\"\n");
  DefragState st2;
  EXPECT_EQ(poll(dc, slots, 100, &st2).drain, (std::vector<std::string>{"b", "a"}));
}

TEST(Defrag, TheAdAveragesDrainingCostsOverCpuTime) {
  // Two 4-CPU machines up for 1000 s: 8000 CPU-seconds; 400 s badput and 800 s unclaimed.
  std::vector<classad::AdPtr> slots =
      list(pslot("a", 4, 4,
                 "DaemonStartTime = 9000; TotalMachineDrainingBadput = 300; "
                 "TotalMachineDrainingUnclaimedTime = 800"),
           pslot("b", 1, 4,
                 "DaemonStartTime = 9000; TotalMachineDrainingBadput = 100; "
                 "TotalMachineDrainingUnclaimedTime = 0"),
           dslot("b", 1, "Draining = true"));
  DefragConfig dc = config("DEFRAG_NAME = defrag@cm\nDEFRAG_SCHEDULE = quick\n");
  DefragState st;
  Poll p = poll(dc, slots, 10000, &st);
  EXPECT_DOUBLE_EQ(p.avg_badput, 0.05);
  EXPECT_DOUBLE_EQ(p.avg_unclaimed, 0.1);
  classad::AdPtr a = defrag_ad(dc, st, p, 10000, 5000);
  std::string s;
  EXPECT_TRUE(a->evaluate_string("MyType", s));
  EXPECT_EQ(s, "Defrag");
  EXPECT_TRUE(a->evaluate_string("Name", s));
  EXPECT_EQ(s, "defrag@cm");
  EXPECT_TRUE(a->evaluate_string("DefragSchedule", s));
  EXPECT_EQ(s, "quick");
  double d = 0;
  EXPECT_TRUE(a->evaluate_real("AvgDrainingBadput", d));
  EXPECT_DOUBLE_EQ(d, 0.05);
  int64_t n = 0;
  EXPECT_TRUE(a->evaluate_int("WholeMachines", n));
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(a->evaluate_int("MachinesDraining", n));
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(a->evaluate_int("DrainedMachines", n));
  EXPECT_EQ(n, 0);
}

TEST(Defrag, SettingsThatDoNotReadAreNamed) {
  EXPECT_EQ(read_error("DEFRAG_SCHEDULE = slow\n"),
            "DEFRAG_SCHEDULE = slow: not graceful, quick or fast");
  EXPECT_NE(read_error("DEFRAG_RANK = Cpus +\n")
                .find("DEFRAG_RANK = Cpus +: not a valid "
                      "expression"),
            std::string::npos);
  EXPECT_NE(read_error("DEFRAG_INTERVAL = 0\n").find("DEFRAG_INTERVAL"), std::string::npos);
  EXPECT_NE(read_error("DEFRAG_DRAINING_MACHINES_PER_HOUR = -1\n").find("must be a number >= 0"),
            std::string::npos);
  DefragConfig dc = config("DEFRAG_DRAINING_START_EXPR = MaxJobRetirementTime == 0\n");
  EXPECT_EQ(dc.draining_start, "MaxJobRetirementTime == 0");
}

}  // namespace
}  // namespace kite::defrag
