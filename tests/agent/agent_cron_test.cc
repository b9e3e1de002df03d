// Integration tests of startd cron in the running agent: monitor scripts whose output reaches
// the slot ads and the policy, and monitors that hang, flood or print garbage.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

using Clock = std::chrono::steady_clock;

// Writes an executable shell script `name` in the agent's directory; returns its path.
std::string script(const TestAgent& a, const std::string& name, const std::string& body) {
  std::string path = a.dir() + "/" + name, err;
  EXPECT_TRUE(core::write_file_atomic(path, "#!/bin/sh\n" + body, 0755, &err)) << err;
  return path;
}

void put(const std::string& path, const std::string& text) {
  std::string err;
  ASSERT_TRUE(core::write_file_atomic(path, text, 0644, &err)) << err;
}

// Lines of a file of numbers, one a line.
std::vector<double> numbers(const std::string& path) {
  std::vector<double> v;
  std::string t = read_text(path);
  size_t at = 0;
  while (at < t.size()) {
    size_t nl = t.find('\n', at);
    if (nl == std::string::npos) nl = t.size();
    if (nl > at) v.push_back(std::strtod(t.substr(at, nl - at).c_str(), nullptr));
    at = nl + 1;
  }
  return v;
}

TEST(AgentCron, PeriodicAttributeReachesTheSlotAdAndFlipsStartWithinOnePeriod) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  put(a.dir() + "/flag", "false\n");
  std::string mon =
      script(a, "temp.sh",
             "echo \"Hot = $(cat " + a.dir() + "/flag)\"\n" + "echo \"Zone = \\\"$1\\\"\"\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = temp\n"
              "STARTD_CRON_TEMP_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_TEMP_ARGS = north\n"
                  "STARTD_CRON_TEMP_PERIOD = 2\n"
                  "STARTD_CRON_TEMP_PREFIX = mon_\n"
                  "START = mon_Hot =!= true\n"
                  // START's value shows as the state: Owner while it is false.
                  "IS_OWNER = (START =?= False)\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "mon_Hot") == "false"; }, 10000))
      << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "mon_Zone"), "\"north\"");  // _ARGS after the job name
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");
  // The monitor now reports a hot machine: START turns false and the slot goes to Owner
  // at the next run, at most one period (2 s) later.
  Clock::time_point changed = Clock::now();
  put(a.dir() + "/flag", "true\n");
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Owner/Idle"; }, 2000 + 1000))
      << a.slot_attr("slot1", "mon_Hot") << "\n"
      << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "mon_Hot"), "true");
  double took = std::chrono::duration<double>(Clock::now() - changed).count();
  std::printf("START flipped %.2f s after the monitor's input changed (period 2 s)\n", took);
  // And back.
  put(a.dir() + "/flag", "false\n");
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Unclaimed/Idle"; }, 3000))
      << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, RecordsAreRoutedToSlotsBySlotIdAndSlots) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string mon = script(a, "route.sh",
                           "echo 'Value = 1'\necho 'SlotId = 1'\necho '- s1'\n"
                           "echo 'Value = 2'\necho 'SlotId = 2'\necho '- s2'\n"
                           "echo 'Value = 10'\necho 'Everywhere = true'\n");
  std::string only = script(a, "only.sh", "echo 'Only = 3'\n");
  std::string err;
  ASSERT_TRUE(
      a.start("NUM_CPUS = 3\nNUM_SLOTS = 3\n"
              "STARTD_CRON_JOBLIST = route only\n"
              "STARTD_CRON_ROUTE_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_ROUTE_MODE = OneShot\n"
                  "STARTD_CRON_ONLY_EXECUTABLE = " +
                  only +
                  "\n"
                  "STARTD_CRON_ONLY_PERIOD = 1h\n"
                  "STARTD_CRON_ONLY_SLOTS = 2, 3\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot3", "Value") == "10"; }, 10000)) << a.log();
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot3", "Only") == "3"; }, 10000)) << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "Value"), "1");
  EXPECT_EQ(a.slot_attr("slot2", "Value"), "2");
  EXPECT_EQ(a.slot_attr("slot1", "Everywhere"), "true");
  EXPECT_EQ(a.slot_attr("slot1", "SlotID"), "1");  // routing attributes are not merged
  EXPECT_EQ(a.slot_attr("slot1", "Only"), "");
  EXPECT_EQ(a.slot_attr("slot2", "Only"), "3");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, AHangingMonitorIsKilledWhenDueAgainWithKill) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string pids = a.dir() + "/pids";
  std::string hang =
      script(a, "hang.sh", "echo $$ >> " + pids + "\necho 'Hung = true'\nexec sleep 1000\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = hang\n"
              "STARTD_CRON_HANG_EXECUTABLE = " +
                  hang +
                  "\n"
                  "STARTD_CRON_HANG_PERIOD = 1\n"
                  "STARTD_CRON_HANG_KILL = true\n",
              &err))
      << err;
  // Each period kills the hung instance and starts a new one.
  ASSERT_TRUE(eventually([&] { return numbers(pids).size() >= 3; }, 10000)) << a.log();
  std::vector<double> p = numbers(pids);
  pid_t first = static_cast<pid_t>(p[0]);
  EXPECT_TRUE(eventually([&] { return proc_state(first) == 0; }, 3000)) << "pid " << first;
  EXPECT_NE(a.log().find("cron hang: still running when due again: killed "
                         "(STARTD_CRON_hang_KILL)"),
            std::string::npos)
      << a.log();
  // A killed run's output is dropped.
  EXPECT_EQ(a.slot_attr("slot1", "Hung"), "");
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");  // the agent answers all along
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, WithoutKillAHangingMonitorIsLeftRunningAndNotStartedTwice) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string pids = a.dir() + "/pids";
  std::string hang = script(a, "hang.sh", "echo $$ >> " + pids + "\nexec sleep 1000\n");
  std::string err;
  ASSERT_TRUE(
      a.start("AGENT_LOG_LEVEL = debug\nSTARTD_CRON_JOBLIST = slow\n"
              "STARTD_CRON_SLOW_EXECUTABLE = " +
                  hang +
                  "\n"
                  "STARTD_CRON_SLOW_PERIOD = 1\n",
              &err))
      << err;
  const std::string skipped = "cron slow: still running, not started again";
  auto count = [&] {
    std::string log = a.log();
    size_t n = 0;
    for (size_t at = log.find(skipped); at != std::string::npos; at = log.find(skipped, at + 1))
      ++n;
    return n;
  };
  ASSERT_TRUE(eventually([&] { return count() >= 2; }, 10000)) << a.log();
  std::vector<double> p = numbers(pids);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(proc_state(static_cast<pid_t>(p[0])), 0);
  EXPECT_EQ(a.stop(), 0) << a.log();
  ::kill(static_cast<pid_t>(p[0]), SIGKILL);
}

TEST(AgentCron, GarbageIsLoggedAndIgnoredAndThePreviousValuesStay) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string runs = a.dir() + "/runs";
  // The first run reports a temperature; every later one prints garbage.
  std::string mon = script(a, "garbage.sh",
                           "echo x >> " + runs + "\n" + "if [ $(wc -l < " + runs +
                               ") -eq 1 ]; then echo 'Temp = 40'; "
                               "exit 0; fi\n"
                               "echo 'this is not an attribute'\necho 'Temp = (1 +'\n"
                               "printf '\\001\\002\\377\\n'\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = garb\n"
              "STARTD_CRON_GARB_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_GARB_PERIOD = 1\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "Temp") == "40"; }, 10000)) << a.log();
  // Two garbage runs later, the value is still the first run's.
  ASSERT_TRUE(eventually([&] { return numbers(runs).size() >= 4; }, 10000)) << a.log();
  std::string log = a.log();
  EXPECT_NE(log.find("cron garb: ignored line 1: not `Attr = value`: this is not an attribute"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("cron garb: ignored line 2: bad value"), std::string::npos) << log;
  EXPECT_EQ(a.slot_attr("slot1", "Temp"), "40");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, AFloodingMonitorIsKilledAndItsOutputIgnored) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string runs = a.dir() + "/runs";
  // Lines first, then one endless line: both past the 4 KiB cap.
  std::string mon = script(a, "flood.sh",
                           "echo x >> " + runs +
                               "\necho 'Flooded = true'\n"
                               "i=0; while [ $i -lt 300 ]; do echo \"A$i = $i\"; i=$((i+1)); done\n"
                               "exec tr '\\0' x < /dev/zero\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_MAX_OUTPUT_BYTES = 4096\n"
              "STARTD_CRON_JOBLIST = flood\n"
              "STARTD_CRON_FLOOD_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_FLOOD_PERIOD = 1\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return numbers(runs).size() >= 2; }, 10000)) << a.log();
  EXPECT_NE(a.log().find("cron flood: more than 4096 bytes of output: killed, its output ignored"),
            std::string::npos)
      << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "Flooded"), "");
  EXPECT_EQ(pids_running("tr \\0 x"), std::vector<pid_t>{});
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, AMonitorInventingNewAttributesIsCappedAt256) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string runs = a.dir() + "/runs";
  // Every run prints 100 attributes it never printed before.
  std::string mon =
      script(a, "names.sh",
             "echo x >> " + runs + "\nn=$(wc -l < " + runs +
                 ")\n"
                 "i=0; while [ $i -lt 100 ]; do echo \"R${n}_$i = $i\"; i=$((i+1)); done\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = names\n"
              "STARTD_CRON_NAMES_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_NAMES_PERIOD = 1\n",
              &err))
      << err;
  const std::string capped = "cron names: 44 new attributes ignored: over 256 distinct";
  ASSERT_TRUE(eventually([&] { return a.log().find(capped) != std::string::npos; }, 15000))
      << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "R3_55"), "55");  // the 256th
  EXPECT_EQ(a.slot_attr("slot1", "R3_56"), "");
  ASSERT_TRUE(eventually([&] { return numbers(runs).size() >= 4; }, 10000)) << a.log();
  ASSERT_TRUE(eventually(
      [&] { return a.log().find("cron names: 100 new attributes ignored") != std::string::npos; },
      10000))
      << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "R4_0"), "");
  EXPECT_EQ(a.slot_attr("slot1", "R1_0"), "0");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, WaitForExitPublishesEachRecordAndRestartsAPeriodAfterItExits) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string starts = a.dir() + "/starts";
  // Each instance publishes a record at once, then lives on for a second before it exits.
  std::string mon = script(a, "stream.sh",
                           "date +%s.%N >> " + starts + "\n" + "echo \"Seq = $(wc -l < " + starts +
                               ")\"\necho '-'\n"
                               "sleep 1\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = stream\n"
              "STARTD_CRON_STREAM_EXECUTABLE = " +
                  mon +
                  "\n"
                  "STARTD_CRON_STREAM_MODE = WaitForExit\n"
                  "STARTD_CRON_STREAM_PERIOD = 1\n",
              &err))
      << err;
  // The first record arrives while its instance is still running (streamed, not at exit).
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "Seq") == "1"; }, 10000)) << a.log();
  EXPECT_EQ(pids_running("/bin/sh " + mon).size() + pids_running("sleep 1").size() > 0, true);
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "Seq") == "3"; }, 10000)) << a.log();
  // Restarted PERIOD (1 s) after each exit, and each instance runs 1 s: starts >= 2 s apart.
  std::vector<double> t = numbers(starts);
  ASSERT_GE(t.size(), 3u);
  for (size_t i = 1; i < t.size(); ++i) {
    EXPECT_GE(t[i] - t[i - 1], 1.9) << "start " << i;
    EXPECT_LT(t[i] - t[i - 1], 4.0) << "start " << i;
  }
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, ReconfigSignalsReconfigJobsRerunsOneShotsAndOnDemandNeverRuns) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string runs = a.dir() + "/runs", never = a.dir() + "/never";
  // A streaming monitor that reports SIGHUP (_RECONFIG), a OneShot counting its runs.
  std::string hup = script(a, "hup.sh",
                           "trap 'echo \"Hupped = true\"; echo -' HUP\n"
                           "echo 'Up = true'\necho -\nwhile :; do sleep 0.1; done\n");
  std::string once =
      script(a, "once.sh", "echo x >> " + runs + "\necho \"Runs = $(wc -l < " + runs + ")\"\n");
  std::string demand = script(a, "demand.sh", "echo x >> " + never + "\n");
  std::string err;
  ASSERT_TRUE(
      a.start("STARTD_CRON_JOBLIST = hup once demand\n"
              "STARTD_CRON_HUP_EXECUTABLE = " +
                  hup +
                  "\n"
                  "STARTD_CRON_HUP_MODE = WaitForExit\n"
                  "STARTD_CRON_HUP_PERIOD = 1\n"
                  "STARTD_CRON_HUP_RECONFIG = true\n"
                  "STARTD_CRON_ONCE_EXECUTABLE = " +
                  once +
                  "\n"
                  "STARTD_CRON_ONCE_MODE = OneShot\n"
                  "STARTD_CRON_ONCE_RECONFIG_RERUN = true\n"
                  "STARTD_CRON_DEMAND_EXECUTABLE = " +
                  demand +
                  "\n"
                  "STARTD_CRON_DEMAND_MODE = OnDemand\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "Up") == "true"; }, 10000)) << a.log();
  ASSERT_TRUE(eventually([&] { return a.slot_attr("slot1", "Runs") == "1"; }, 10000)) << a.log();
  EXPECT_EQ(a.slot_attr("slot1", "Hupped"), "");
  EXPECT_EQ(a.kite({"reconfig", "--local"}).status, 0);
  EXPECT_TRUE(eventually([&] { return a.slot_attr("slot1", "Hupped") == "true"; }, 10000))
      << a.log();
  EXPECT_TRUE(eventually([&] { return a.slot_attr("slot1", "Runs") == "2"; }, 10000)) << a.log();
  EXPECT_NE(a.log().find("cron demand: OnDemand mode: not run"), std::string::npos) << a.log();
  EXPECT_EQ(read_text(never), "");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentCron, ABadCronConfigurationStopsTheAgentWithTheKnobNamed) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string conf = a.dir() + "/bad.conf";
  put(conf, "LOCAL_DIR = " + a.dir() +
                "/local\nSTARTD_CRON_JOBLIST = x\n"
                "STARTD_CRON_X_EXECUTABLE = /bin/true\nSTARTD_CRON_X_PERIOD = often\n");
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"agent", "-c", conf, "--foreground"});
  CmdResult r = run_cmd(argv, 15000);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("configuration error: STARTD_CRON_x_PERIOD = often: not a duration"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kite::test
