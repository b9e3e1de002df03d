// Tests for the startd core and the scenario runner: every transition number 1..37 is taken by
// some scenario (exact timers, virtual clock), the API directly (events in, actions out),
// partitionable carving/quantization/return, and line-numbered errors for bad scenarios.
#include "policy/startd/startd.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "policy/classad/parser.h"
#include "policy/startd/scenario.h"
#include "startd_rig.h"

namespace kite::startd {
namespace {

std::string read_all(const std::string& path) {
  std::string s;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  std::string dir = std::string(KITE_SOURCE_DIR) + "/tests/scenarios";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 9 && n.substr(n.size() - 9) == ".scenario") out.push_back(dir + "/" + n);
  }
  closedir(d);
  return out;
}

ScenarioResult run(const std::string& text) {
  ScenarioResult r;
  scenario_run(text, "test.scenario", &r);
  return r;
}

TEST(Scenarios, EveryNumberedTransitionIsExercised) {
  std::set<int> seen;
  auto files = scenario_files();
  ASSERT_GT(files.size(), 30u);
  for (const std::string& f : files) {
    ScenarioResult r;
    scenario_run(read_all(f), f, &r);
    EXPECT_FALSE(r.error) << f << "\n" << r.output;
    EXPECT_EQ(r.failed, 0) << f << "\n" << r.output;
    EXPECT_GT(r.passed, 0) << f;
    size_t p = 0;
    while ((p = r.output.find(") [", p)) != std::string::npos) {
      seen.insert(std::atoi(r.output.c_str() + p + 3));
      p += 3;
    }
  }
  for (int k = 1; k <= 37; ++k) {
    if (k == 27) continue;  // the backfill client exiting on its own: see BackfillClientExits
    EXPECT_TRUE(seen.count(k)) << "no scenario takes transition " << k;
  }
}

TEST(Scenarios, TraceFormat) {
  ScenarioResult r =
      run("NUM_SLOTS = 1\n---\n"
          "at 6 claim slot1 [Owner=\"alice\"]\n"
          "at 6 activate slot1 [Owner=\"alice\"; JobUniverse=5; KillSig=\"SIGTERM\"]\n"
          "at 100 starter-exit slot1 0\n"
          "at 110 vacate slot1\n");
  EXPECT_NE(r.output.find("t=100 slot1 Claimed/Busy -> Claimed/Idle (starter exited) [12]\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("0 passed, 0 failed\n"), std::string::npos);
}

TEST(Scenarios, FailedExpectationsAreReported) {
  ScenarioResult r =
      run("NUM_SLOTS = 1\n---\n"
          "at 0 expect slot1 Owner/Idle\n"
          "at 0 expect-attr slot1 Cpus == 2\n"
          "at 0 expect slot1 Unclaimed\n");
  EXPECT_EQ(r.passed, 1);
  EXPECT_EQ(r.failed, 2);
  EXPECT_NE(r.output.find("FAIL line 3: t=0 expect slot1 Owner/Idle: slot1 is Unclaimed/Idle"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("FAIL line 4:"), std::string::npos);
  EXPECT_NE(r.output.find("Cpus = 1"), std::string::npos) << r.output;
}

TEST(Scenarios, BadInputGivesLineNumberedErrors) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"NUM_SLOTS = 1\n", "no '---' line"},
      {"---\nat x expect slot1 Owner\n", "line 2: bad time 'x'"},
      {"---\n\nat 5 frobnicate slot1\n", "line 3: unknown command 'frobnicate'"},
      {"---\nat 5 claim slot1 [Owner=]\n", "line 2: bad ad"},
      {"---\nat 5 expect slot1 Sleeping/Idle\n", "line 2: expect: unknown state 'Sleeping'"},
      {"---\nat 5 set KeyboardIdle\n", "line 2: set: 'KeyboardIdle' is not Attr=value"},
      {"---\nat 5 drain slowly\n", "line 2: drain: mode must be graceful, quick or fast"},
      {"---\nat 5 job-exit slot1 x\n", "line 2: job-exit: bad exit code 'x'"},
      {"---\nat 5 starter-cleaned\n", "line 2: starter-cleaned: missing slot name"},
      {"---\nexpect slot1 Owner\n", "line 2: expected 'at SECONDS COMMAND"},
      {"START = (\n---\n", "line 1"},
      {"NUM_SLOTS = 4\n---\n", "NUM_SLOTS = 4: more slots than the 1 CPUs"},
      {"SIMULATION_START = yesterday\n---\n", "SIMULATION_START"},
  };
  for (const Case& c : cases) {
    ScenarioResult r = run(c.text);
    EXPECT_TRUE(r.error) << c.text;
    EXPECT_NE(r.output.find(c.want), std::string::npos) << "case: " << c.text << "\n" << r.output;
  }
  // A step naming no slot is an error line but the scenario goes on.
  ScenarioResult r =
      run("NUM_SLOTS = 1\n---\nat 1 claim slot9 [Owner=\"a\"]\nat 2 expect slot1 Unclaimed\n");
  EXPECT_FALSE(r.error);
  EXPECT_EQ(r.passed, 1);
  EXPECT_NE(r.output.find("ERROR line 3"), std::string::npos) << r.output;
}

TEST(Scenarios, RefusedClaimIsATraceLine) {
  ScenarioResult r =
      run("NUM_SLOTS = 1\nSTART = Owner == \"bob\"\n---\n"
          "at 1 claim slot1 [Owner=\"alice\"]\n"
          "at 1 expect slot1 Unclaimed/Idle\n");
  EXPECT_EQ(r.failed, 0) << r.output;
  EXPECT_NE(r.output.find("t=1 slot1 action refuse claim refused: START is not true"),
            std::string::npos)
      << r.output;
}

// ---- the API directly ------------------------------------------------------------------------

// The API tests' startd (4 CPUs, 8192 MiB).
struct Fixture : StartdRig {
  explicit Fixture(const char* conf) : StartdRig(conf, 4, 8192) {}
};

TEST(StartdApi, MatchTimeoutIsExact) {
  Fixture f("NUM_SLOTS = 1\nMATCH_TIMEOUT = 77\n");
  EXPECT_EQ(f.state("slot1"), "Unclaimed/Idle");
  f.ev(EventKind::kMatch, "slot1", "[Owner=\"a\"]");
  EXPECT_EQ(f.state("slot1"), "Matched/Idle");
  EXPECT_EQ(f.sd->next_timer(), 1077);
  f.clock.set(1076);
  f.sd->evaluate(&f.out);
  EXPECT_EQ(f.state("slot1"), "Matched/Idle");
  f.clock.set(1077);
  f.sd->evaluate(&f.out);
  EXPECT_EQ(f.state("slot1"), "Unclaimed/Idle");
  bool eight = false;
  for (const TransitionRecord& t : f.out.transitions) eight |= t.number == 8;
  EXPECT_TRUE(eight);
}

TEST(StartdApi, ActionsForAJobLifecycle) {
  Fixture f(
      "NUM_SLOTS = 1\nWANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\n"
      "CONTINUE = KeyboardIdle > 60\nKILLING_TIMEOUT = 7\n");
  f.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"]");
  f.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5; KillSig=\"SIGUSR1\"]");
  EXPECT_TRUE(f.has_action(ActionKind::kSpawnStarter, "slot1"));
  std::string err;
  ASSERT_TRUE(f.sd->set_inputs("", {{"KeyboardIdle", "0"}}, &err));
  f.sd->evaluate(&f.out);
  EXPECT_EQ(f.state("slot1"), "Claimed/Suspended");
  EXPECT_TRUE(f.has_action(ActionKind::kSuspend, "slot1"));
  ASSERT_TRUE(f.sd->set_inputs("", {{"KeyboardIdle", "100"}}, &err));
  f.sd->evaluate(&f.out);
  EXPECT_TRUE(f.has_action(ActionKind::kContinue, "slot1"));
  // Fast vacate: hard kill; the starter does not exit; KILLING_TIMEOUT then kill-starter.
  f.ev(EventKind::kVacateFast, "slot1");
  EXPECT_EQ(f.state("slot1"), "Preempting/Killing");
  EXPECT_TRUE(f.has_action(ActionKind::kHardKill, "slot1"));
  EXPECT_EQ(f.sd->next_timer(), 1007);
  f.clock.set(1007);
  f.sd->evaluate(&f.out);
  EXPECT_TRUE(f.has_action(ActionKind::kKillStarter, "slot1"));
  f.ev(EventKind::kStarterExited, "slot1");
  EXPECT_EQ(f.state("slot1"), "Unclaimed/Idle");
  EXPECT_TRUE(f.has_action(ActionKind::kNotifyClaimant, "slot1"));
}

// The agent's order of events: the job's exit report (the starter still removes the sandbox
// and cgroup), then the starter's own exit, which ends Claimed/Cleaning.
TEST(StartdApi, StarterExitAfterTheJobsExitEndsCleaning) {
  Fixture f("NUM_SLOTS = 1\n");
  f.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"]");
  f.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5]");
  f.ev(EventKind::kJobExited, "slot1");
  EXPECT_EQ(f.state("slot1"), "Claimed/Cleaning");
  SlotView v;
  ASSERT_TRUE(f.sd->slot("slot1", &v));
  EXPECT_TRUE(v.starter_cleaning);
  EXPECT_FALSE(v.starter_running);
  std::string act;
  EXPECT_TRUE(v.ad->evaluate_string("Activity", act));
  EXPECT_EQ(act, "Cleaning");
  f.ev(EventKind::kStarterExited, "slot1");
  EXPECT_EQ(f.state("slot1"), "Claimed/Idle");
  ASSERT_TRUE(f.sd->slot("slot1", &v));
  EXPECT_FALSE(v.starter_cleaning);
  // A job exit with no job running is refused, not a move.
  f.ev(EventKind::kJobExited, "slot1");
  EXPECT_TRUE(f.has_action(ActionKind::kRefuse, "slot1"));
  EXPECT_EQ(f.state("slot1"), "Claimed/Idle");
}

TEST(StartdApi, SoftKillCarriesTheJobsKillSig) {
  Fixture f("NUM_SLOTS = 1\nUPDATE_INTERVAL = 100000\n");
  f.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5; KillSig=\"SIGUSR1\"]");
  f.ev(EventKind::kVacate, "slot1");
  bool ok = false;
  for (const Action& a : f.out.actions)
    ok |= a.kind == ActionKind::kSoftKill && a.detail == "SIGUSR1";
  EXPECT_TRUE(ok);
  EXPECT_EQ(f.state("slot1"), "Preempting/Vacating");
  // MachineMaxVacateTime default 600 s.
  EXPECT_EQ(f.sd->next_timer(), 1600);
}

TEST(StartdApi, BackfillClientExits) {
  // Transition 27: the client exits on its own; 26 again as it is respawned.
  Fixture f("NUM_SLOTS = 1\nENABLE_BACKFILL = True\nSTART_BACKFILL = True\n");
  EXPECT_EQ(f.state("slot1"), "Backfill/Busy");
  f.ev(EventKind::kBackfillExited, "slot1");
  std::vector<int> nums;
  for (const TransitionRecord& t : f.out.transitions) nums.push_back(t.number);
  bool saw27 = false;
  for (size_t i = 0; i < nums.size(); ++i) saw27 |= nums[i] == 27;
  EXPECT_TRUE(saw27);
  EXPECT_EQ(f.state("slot1"), "Backfill/Busy");
}

TEST(StartdApi, PartitionableCarvingQuantizationAndReturn) {
  Fixture f("MODIFY_REQUEST_EXPR_REQUESTMEMORY = quantize(RequestMemory, {512})\n");
  SlotView p;
  ASSERT_TRUE(f.sd->slot("slot1", &p));
  EXPECT_TRUE(p.partitionable);
  f.ev(EventKind::kClaim, "slot1",
       "[Owner=\"a\"; RequestCpus=2; RequestMemory=600; RequestDisk=1]");
  EXPECT_EQ(f.state("slot1_1"), "Claimed/Idle");
  SlotView d;
  ASSERT_TRUE(f.sd->slot("slot1_1", &d));
  int64_t cpus = 0, mem = 0, disk = 0;
  d.ad->evaluate_int("Cpus", cpus);
  d.ad->evaluate_int("Memory", mem);
  d.ad->evaluate_int("Disk", disk);
  EXPECT_EQ(cpus, 2);
  EXPECT_EQ(mem, 1024);
  EXPECT_EQ(disk, 1024);
  f.sd->slot("slot1", &p);
  p.ad->evaluate_int("Cpus", cpus);
  p.ad->evaluate_int("Memory", mem);
  EXPECT_EQ(cpus, 2);
  EXPECT_EQ(mem, 8192 - 1024);
  f.ev(EventKind::kClaim, "slot1", "[Owner=\"b\"; RequestCpus=1; RequestMemory=1]");
  EXPECT_EQ(f.state("slot1_2"), "Claimed/Idle");
  f.ev(EventKind::kRelease, "slot1_1");
  EXPECT_EQ(f.state("slot1_1"), "absent");
  EXPECT_TRUE(f.has_action(ActionKind::kDeleteSlot, "slot1_1"));
  f.sd->slot("slot1", &p);
  p.ad->evaluate_int("Cpus", cpus);
  p.ad->evaluate_int("Memory", mem);
  EXPECT_EQ(cpus, 3);
  EXPECT_EQ(mem, 8192 - 512);
  // The next dynamic slot gets the next number.
  f.ev(EventKind::kClaim, "slot1", "[Owner=\"c\"; RequestCpus=3]");
  EXPECT_EQ(f.state("slot1_3"), "Claimed/Idle");
  // Nothing left: refused.
  f.ev(EventKind::kClaim, "slot1", "[Owner=\"d\"; RequestCpus=1]");
  EXPECT_EQ(f.state("slot1_4"), "absent");
  EXPECT_TRUE(f.has_action(ActionKind::kRefuse, "slot1"));
}

TEST(StartdApi, PeriodicAdUpdates) {
  Fixture f("NUM_SLOTS = 2\nNUM_CPUS = 2\nUPDATE_INTERVAL = 300\n");
  EXPECT_EQ(f.sd->next_timer(), 1300);
  f.out = Output{};
  f.clock.set(1300);
  f.sd->evaluate(&f.out);
  int n = 0;
  for (const Action& a : f.out.actions) n += a.kind == ActionKind::kPublishAds;
  EXPECT_EQ(n, 2);
  EXPECT_EQ(f.sd->next_timer(), 1600);
}

TEST(StartdApi, FactsHonourConnectedSlotsAndShareOwnerLoad) {
  Fixture f(
      "NUM_SLOTS = 3\nNUM_CPUS = 3\nSLOTS_CONNECTED_TO_KEYBOARD = 1\n"
      "SLOTS_CONNECTED_TO_CONSOLE = 1\nDISCONNECTED_KEYBOARD_IDLE_BOOST = 1200\n");
  f.clock.set(1100);
  MachineFacts m;
  m.keyboard_idle = 5;
  m.console_idle = 7;
  m.load_avg = 1.5;
  f.sd->update_facts(m);
  SlotView a, b, c;
  ASSERT_TRUE(f.sd->slot("slot1", &a));
  ASSERT_TRUE(f.sd->slot("slot2", &b));
  ASSERT_TRUE(f.sd->slot("slot3", &c));
  int64_t v = 0;
  a.ad->evaluate_int("KeyboardIdle", v);
  EXPECT_EQ(v, 5);
  a.ad->evaluate_int("ConsoleIdle", v);
  EXPECT_EQ(v, 7);
  b.ad->evaluate_int("KeyboardIdle", v);
  EXPECT_EQ(v, 100 + 1200);
  double l = 0;
  a.ad->evaluate_real("LoadAvg", l);
  EXPECT_DOUBLE_EQ(l, 1.0);
  b.ad->evaluate_real("LoadAvg", l);
  EXPECT_DOUBLE_EQ(l, 0.5);
  c.ad->evaluate_real("LoadAvg", l);
  EXPECT_DOUBLE_EQ(l, 0.0);
  c.ad->evaluate_real("TotalLoadAvg", l);
  EXPECT_DOUBLE_EQ(l, 1.5);
}

TEST(StartdApi, UnknownSlotIsAnError) {
  Fixture f("NUM_SLOTS = 1\n");
  Event e;
  e.kind = EventKind::kVacate;
  e.slot = "slot7";
  std::string err;
  EXPECT_FALSE(f.sd->handle(e, &f.out, &err));
  EXPECT_NE(err.find("slot7"), std::string::npos);
}

TEST(StartdApi, BadPolicyExpressionIsReported) {
  config::Config cfg;
  ASSERT_TRUE(cfg.load_string("NUM_SLOTS = 1\nPREEMPT = (KeyboardIdle <\n", "p.conf").ok);
  MachineFacts facts;
  VirtualClock clock(0);
  Startd sd(cfg, facts, clock);
  std::string err;
  EXPECT_FALSE(sd.init(&err));
  EXPECT_NE(err.find("PREEMPT"), std::string::npos) << err;
}

TEST(Iso8601, Parses) {
  int64_t t = 0;
  ASSERT_TRUE(iso8601_parse("1970-01-01T00:00:00Z", &t));
  EXPECT_EQ(t, 0);
  ASSERT_TRUE(iso8601_parse("2024-01-01T00:00:00Z", &t));
  EXPECT_EQ(t, 1704067200);
  ASSERT_TRUE(iso8601_parse("2024-06-05T12:34:00Z", &t));
  EXPECT_EQ(t, 1717590840);
  ASSERT_TRUE(iso8601_parse("2024-01-01T02:00:00+02:00", &t));
  EXPECT_EQ(t, 1704067200);
  ASSERT_TRUE(iso8601_parse("2024-01-01", &t));
  EXPECT_EQ(t, 1704067200);
  EXPECT_FALSE(iso8601_parse("2024-01-01T00:00:00 garbage", &t));
  EXPECT_FALSE(iso8601_parse("noon", &t));
  EXPECT_FALSE(iso8601_parse("2024-13-01T00:00:00Z", &t));
}

}  // namespace
}  // namespace kite::startd

namespace kite::startd {
namespace {

// The machine ad carries every attribute issue 5 lists, with HTCondor's names.
TEST(MachineAd, ListedAttributesArePresent) {
  config::Config cfg;
  ASSERT_TRUE(cfg.load_string("NUM_CPUS = 4\nMACHINE_RESOURCE_Cogs = 3\n", "ad.conf").ok);
  MachineFacts facts;
  facts.cpus = 4;
  facts.memory_mb = 4096;
  facts.gpus = {{"GPU-aaaa0001", "Capability = 8.0"}, {"GPU-bbbb0002", "Capability = 7.5"}};
  VirtualClock clock(1700000000);
  Startd sd(cfg, facts, clock);
  std::string err;
  ASSERT_TRUE(sd.init(&err)) << err;
  Output out;
  sd.evaluate(&out);
  classad::AdPtr job = classad::parse_classad(
      "[Owner=\"alice\"; JobUniverse=5; ClusterId=1; ProcId=0; RequestCpus=1; RequestGPUs=1; "
      "RequestCogs=2]");
  Event e;
  e.kind = EventKind::kActivate;
  e.slot = "slot1";
  e.ad = job.get();
  ASSERT_TRUE(sd.handle(e, &out, &err)) << err;
  SlotView p, d;
  ASSERT_TRUE(sd.slot("slot1", &p));
  ASSERT_TRUE(sd.slot("slot1_1", &d));
  EXPECT_EQ(d.state, State::kClaimed);
  EXPECT_EQ(d.activity, Activity::kBusy);
  const char* common[] = {"Name",
                          "Machine",
                          "SlotID",
                          "SlotType",
                          "State",
                          "Activity",
                          "EnteredCurrentState",
                          "EnteredCurrentActivity",
                          "Cpus",
                          "Memory",
                          "Disk",
                          "LoadAvg",
                          "CondorLoadAvg",
                          "TotalLoadAvg",
                          "KeyboardIdle",
                          "ConsoleIdle",
                          "ClockMin",
                          "ClockDay",
                          "Arch",
                          "OpSys",
                          "OpSysAndVer",
                          "Requirements",
                          "Rank",
                          "CurrentRank",
                          "MyType",
                          "TargetType",
                          "Mips",
                          "KFlops",
                          "LastBenchmark",
                          "TotalMachineDrainingUnclaimedTime",
                          "TotalMachineDrainingBadput",
                          "Start",
                          "TotalGPUs",
                          "DetectedGPUs",
                          "TotalSlotGPUs",
                          "GPUs",
                          "TotalCogs",
                          "DetectedCogs",
                          "TotalSlotCogs",
                          "Cogs",
                          "MachineResources"};
  for (const char* a : common) {
    EXPECT_NE(p.ad->lookup(a), nullptr) << "slot1 lacks " << a;
    EXPECT_NE(d.ad->lookup(a), nullptr) << "slot1_1 lacks " << a;
  }
  const char* busy[] = {"RemoteOwner",     "RemoteUser",        "JobId",       "JobStart",
                        "TotalJobRunTime", "TotalClaimRunTime", "DynamicSlot", "AssignedGPUs"};
  for (const char* a : busy) EXPECT_NE(d.ad->lookup(a), nullptr) << "slot1_1 lacks " << a;
  // Observed (slot-ad-dslot.txt): a job never suspended leaves both suspend totals out.
  EXPECT_EQ(d.ad->lookup("TotalJobSuspendTime"), nullptr);
  EXPECT_EQ(d.ad->lookup("TotalClaimSuspendTime"), nullptr);
  EXPECT_NE(p.ad->lookup("PartitionableSlot"), nullptr);
  int64_t v = 0;
  EXPECT_TRUE(d.ad->evaluate_int("GPUs", v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(d.ad->evaluate_int("Cogs", v));
  EXPECT_EQ(v, 2);
  EXPECT_TRUE(p.ad->evaluate_int("Cogs", v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(p.ad->evaluate_int("TotalCogs", v));
  EXPECT_EQ(v, 3);
  std::string s;
  EXPECT_TRUE(d.ad->evaluate_string("AssignedGPUs", s));
  EXPECT_EQ(s, "GPU-aaaa0001");
  EXPECT_TRUE(p.ad->evaluate_string("AssignedGPUs", s));
  EXPECT_EQ(s, "GPU-bbbb0002");
  // Per-device property ad of the assigned GPU.
  classad::Value g = d.ad->evaluate_attr("GPUs_GPU_aaaa0001");
  EXPECT_TRUE(g.is_classad());
  // ClockMin is an expression of time(): it reads the startd's clock when
  // evaluated with the startd's environment.
  classad::Value clock_min = d.ad->evaluate_attr("ClockMin", &sd.eval_env());
  ASSERT_TRUE(clock_min.is_integer());
  EXPECT_EQ(clock_min.as_integer(), (1700000000 % 86400) / 60);
}

}  // namespace
}  // namespace kite::startd

namespace kite::startd {
namespace {

// Bad and random scenarios never crash the runner (ASan/UBSan in Debug builds).
TEST(Scenarios, RandomInputNeverCrashes) {
  const char* words[] = {"at",
                         "0",
                         "5",
                         "-3",
                         "99999999999",
                         "set",
                         "slot1",
                         "slot1_1",
                         "slot2",
                         "claim",
                         "activate",
                         "match",
                         "vacate",
                         "vacate-fast",
                         "drain",
                         "fast",
                         "quick",
                         "graceful",
                         "cancel-drain",
                         "shutdown",
                         "peaceful",
                         "release",
                         "starter-exit",
                         "job-exit",
                         "starter-cleaned",
                         "withdraw",
                         "alive",
                         "lease-expire",
                         "deactivate",
                         "expect",
                         "expect-attr",
                         "Claimed/Busy",
                         "Owner",
                         "absent",
                         "[Owner=\"a\"; RequestCpus=2]",
                         "[",
                         "]",
                         "KeyboardIdle=0",
                         "A=(",
                         "job-ignores-softkill",
                         "starter-stuck",
                         "resume-on-completion",
                         "#",
                         "\"",
                         "x==",
                         "Cpus > 0"};
  const char* configs[] = {"",
                           "NUM_SLOTS = 2\nNUM_CPUS = 2\n",
                           "NUM_CPUS = 2\n",
                           "ENABLE_BACKFILL = True\nSTART_BACKFILL = True\nNUM_SLOTS = 1\n",
                           "RANK = Owner == \"a\"\nNUM_SLOTS = 1\nMAXJOBRETIREMENTTIME = 50\n",
                           "SLOT_TYPE_1 = cpus=5\nNUM_SLOTS_TYPE_1 = 1\n",
                           "START = (\n"};
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  const int nw = static_cast<int>(sizeof words / sizeof *words);
  for (int iter = 0; iter < 200; ++iter) {
    std::string text = configs[rnd(sizeof configs / sizeof *configs)];
    text += "---\n";
    int lines = 1 + static_cast<int>(rnd(12));
    int t = 0;
    for (int l = 0; l < lines; ++l) {
      if (rnd(4) != 0) {
        t += static_cast<int>(rnd(400));
        text += "at " + std::to_string(t) + " ";
      }
      int n = 1 + static_cast<int>(rnd(5));
      for (int k = 0; k < n; ++k) text += std::string(words[rnd(nw)]) + " ";
      text += "\n";
    }
    ScenarioResult r;
    scenario_run(text, "random", &r);
    EXPECT_FALSE(r.output.empty());
  }
  // Well-formed steps in random order drive the engine itself through odd sequences.
  const char* steps[] = {"set KeyboardIdle=0",
                         "set KeyboardIdle=5000 LoadAvg=2",
                         "set slot2 LoadAvg=0",
                         "claim slot1 [Owner=\"a\"; RequestCpus=1]",
                         "claim slot1 [Owner=\"b\"]",
                         "claim slot2 [Owner=\"a\"; JobLeaseDuration=30]",
                         "match slot1 [Owner=\"a\"]",
                         "match slot2",
                         "activate slot1 [Owner=\"a\"; JobUniverse=5]",
                         "activate slot2 [Owner=\"b\"; JobUniverse=5; JobMaxVacateTime=30]",
                         "activate slot1_1 [Owner=\"c\"]",
                         "starter-exit slot1 0",
                         "starter-exit slot2 1",
                         "release slot1",
                         "release slot2",
                         "vacate slot1",
                         "vacate",
                         "vacate-fast slot2",
                         "drain graceful",
                         "drain quick",
                         "drain fast",
                         "drain graceful resume-on-completion",
                         "cancel-drain",
                         "withdraw slot1",
                         "alive slot2",
                         "lease-expire slot1",
                         "deactivate slot1",
                         "job-ignores-softkill slot1",
                         "starter-stuck slot2",
                         "expect slot1 Claimed",
                         "expect-attr slot1 Cpus >= 0",
                         "shutdown graceful",
                         "shutdown peaceful",
                         "shutdown fast"};
  const char* policies[] = {
      "NUM_SLOTS = 2\nNUM_CPUS = 2\nWANT_SUSPEND = True\nSUSPEND = KeyboardIdle < 60\n"
      "CONTINUE = KeyboardIdle > 60\nPREEMPT = LoadAvg > 1\nMAXJOBRETIREMENTTIME = 100\n"
      "MachineMaxVacateTime = 20\nPOLLING_INTERVAL = 30\nRANK = Owner == \"b\"\n",
      "NUM_CPUS = 2\nMAXJOBRETIREMENTTIME = 50\nRANK = Owner == \"b\"\n",
      "use POLICY : Desktop\nNUM_SLOTS = 2\nNUM_CPUS = 2\nENABLE_BACKFILL = True\n"
      "START_BACKFILL = KeyboardIdle > 100\nEVICT_BACKFILL = KeyboardIdle < 60\n"
      "RUNBENCHMARKS = True\nCLAIM_WORKLIFE = 60\n",
      "NUM_SLOTS = 2\nNUM_CPUS = 2\nDEFAULT_DRAINING_START_EXPR = True\nWANT_VACATE = False\n"};
  const int ns = static_cast<int>(sizeof steps / sizeof *steps);
  for (int iter = 0; iter < 60; ++iter) {
    std::string text = policies[rnd(sizeof policies / sizeof *policies)];
    text += "---\n";
    int t = 0;
    for (int l = 0; l < 25; ++l) {
      t += static_cast<int>(rnd(3) == 0 ? rnd(200) : rnd(20));
      text += "at " + std::to_string(t) + " " + steps[rnd(ns)] + "\n";
    }
    ScenarioResult r;
    scenario_run(text, "random", &r);
    EXPECT_FALSE(r.error) << text << r.output;
    EXPECT_NE(r.output.find(" passed, "), std::string::npos);
  }
}

}  // namespace
}  // namespace kite::startd
