// The job event log writer against HTCondor 25's own logs (tests/data/queue/observed/userlog.*,
// copies of the reference's files): each log is rebuilt event by event from the facts it
// records and must come out byte for byte.
#include "agent/queue/event_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <fstream>
#include <sstream>

namespace kite::queue {
namespace {

const int64_t kDay = 1795305600;  // 2026-11-22 00:00:00 UTC
int64_t at(int h, int m, int s) {
  return kDay + h * 3600 + m * 60 + s;
}

const std::string kSchedd = "<127.0.0.1:45669?addrs=127.0.0.1-45669&alias=node.example.org>";
const std::string kStartd = "<127.0.0.1:35847?addrs=127.0.0.1-35847&alias=node.example.org>";

std::string observed(const char* name) {
  std::ifstream f(std::string(KITE_SOURCE_DIR) + "/tests/data/queue/observed/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  EXPECT_FALSE(text.empty()) << name;
  return text.substr(text.find('\n') + 1);  // drop "$ cat FILE"
}

class EventLog : public testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);  // the reference machine's zone
    tzset();
  }
};

std::vector<std::pair<std::string, std::string>> slot(const char* dir) {
  return {{"CondorScratchDir", std::string("\"/var/lib/condor/execute/") + dir + "/scratch\""},
          {"Cpus", "1"},
          {"Disk", "1024"},
          {"GPUs", "0"},
          {"Memory", "128"}};
}

ResourceRow row(const char* name, bool has_usage, double usage, int64_t request, int64_t allocated,
                bool has_request = true, bool has_allocated = true) {
  ResourceRow r;
  r.name = name;
  r.has_usage = has_usage;
  r.usage = usage;
  r.has_request = has_request;
  r.request = request;
  r.has_allocated = has_allocated;
  r.allocated = allocated;
  return r;
}

std::vector<ResourceRow> resources(double cpus, int64_t disk, int64_t mem, int64_t exec,
                                   int64_t busy) {
  return {row("Cpus", true, cpus, 1, 1),
          row("Disk (KB)", true, static_cast<double>(disk), 1024, 1024),
          row("GPUs", false, 0, 0, 0, false, true),
          row("Memory (MB)", true, static_cast<double>(mem), 64, 128),
          row("TimeExecute (s)", true, static_cast<double>(exec), 0, 0, false, false),
          row("TimeSlotBusy (s)", true, static_cast<double>(busy), 0, 0, false, false)};
}

void transfer_in(std::string& out, EventJob j, int64_t when, const char* port) {
  event_transfer(
      out, j, when, TransferStep::kInputStarted,
      std::string("<127.0.0.1:") + port + "?addrs=127.0.0.1-" + port + "&alias=node.example.org>");
  event_transfer(out, j, when, TransferStep::kInputFinished, "");
}

TEST_F(EventLog, CompletedJob) {
  EventJob j{8, 0, 0};
  std::string out;
  event_submit(out, j, at(0, 49, 12), kSchedd);
  transfer_in(out, j, at(0, 49, 12), "40971");
  event_execute(out, j, at(0, 49, 13), kStartd, "slot1_1@node.example.org", slot("dir_21191"));
  event_image_size(out, j, at(0, 49, 17), 2500, 2, 1392);
  event_transfer(out, j, at(0, 49, 17), TransferStep::kOutputStarted, "");
  event_transfer(out, j, at(0, 49, 17), TransferStep::kOutputFinished, "");
  RunTotals run;
  run.run_bytes_received = run.total_bytes_received = 43888;
  run.resources = resources(0, 58, 2, 4, 5);
  event_terminated(out, j, at(0, 49, 17), false, 0, run);
  EXPECT_EQ(out, observed("userlog.completed.txt"));
}

TEST_F(EventLog, HeldWhileRunningThenReleased) {
  EventJob j{3, 0, 0};
  std::string out;
  event_submit(out, j, at(0, 47, 59), kSchedd);
  transfer_in(out, j, at(0, 47, 59), "40861");
  event_execute(out, j, at(0, 48, 0), kStartd, "slot1_1@node.example.org", slot("dir_19832"));
  event_image_size(out, j, at(0, 48, 6), 2500, 2, 1436);
  RunTotals run;
  run.run_bytes_received = 43888;
  run.resources = resources(0.01, 58, 2, 6, 7);  // a fractional Cpus usage changes the layout
  const std::string reason = "waiting for input data (by user htcuser)";
  event_evicted(out, j, at(0, 48, 6), 1, 0, run, reason);
  event_held(out, j, at(0, 48, 6), reason, 1, 0);
  event_released(out, j, at(0, 48, 8), "via condor_release (by user htcuser)");
  transfer_in(out, j, at(0, 48, 10), "45977");
  event_execute(out, j, at(0, 48, 11), kStartd, "slot1_1@node.example.org", slot("dir_20040"));
  event_transfer(out, j, at(0, 48, 42), TransferStep::kOutputStarted, "");
  event_transfer(out, j, at(0, 48, 42), TransferStep::kOutputFinished, "");
  RunTotals done;
  done.run_bytes_received = 43888;
  done.total_bytes_received = 87776;
  done.resources = resources(0.001, 60, 2, 31, 32);
  event_terminated(out, j, at(0, 48, 42), false, 0, done);
  EXPECT_EQ(out, observed("userlog.held-released.txt"));
}

TEST_F(EventLog, RemovedWhileRunning) {
  EventJob j{4, 0, 0};
  std::string out;
  event_submit(out, j, at(0, 47, 59), kSchedd);
  transfer_in(out, j, at(0, 48, 1), "33171");
  event_execute(out, j, at(0, 48, 2), kStartd, "slot1_2@node.example.org", slot("dir_19839"));
  event_image_size(out, j, at(0, 48, 6), 2500, 2, 1368);
  RunTotals run;
  run.run_bytes_received = 43888;
  run.resources = resources(0, 58, 2, 4, 5);
  const std::string reason = "via condor_rm (by user htcuser)";
  event_evicted(out, j, at(0, 48, 6), 1023, 0, run, reason);
  event_aborted(out, j, at(0, 48, 6), reason);
  EXPECT_EQ(out, observed("userlog.removed.txt"));
}

TEST_F(EventLog, TwoProcsHeldIdleReleasedRemoved) {
  EventJob j0{6, 0, 0}, j1{6, 1, 0};
  std::string out;
  event_submit(out, j0, at(0, 48, 11), kSchedd);
  event_submit(out, j1, at(0, 48, 11), kSchedd);
  transfer_in(out, j0, at(0, 48, 13), "40813");
  event_execute(out, j0, at(0, 48, 14), kStartd, "slot1_2@node.example.org", slot("dir_20073"));
  event_held(out, j1, at(0, 48, 15), "via condor_hold (by user htcuser)", 1, 0);
  event_image_size(out, j0, at(0, 48, 20), 45, 6, 5904);
  event_image_size(out, j0, at(0, 48, 32), 2500, 6, 5904);
  event_released(out, j1, at(0, 49, 7), "via condor_release (by user htcuser)");
  const std::string reason = "via condor_rm (by user htcuser)";
  event_aborted(out, j1, at(0, 49, 7), reason);
  RunTotals run;
  run.run_bytes_received = 43888;
  run.resources = resources(0.004, 58, 6, 53, 54);
  event_evicted(out, j0, at(0, 49, 7), 1023, 0, run, reason);
  event_aborted(out, j0, at(0, 49, 7), reason);
  EXPECT_EQ(out, observed("userlog.idle-held-released-removed.txt"));
}

// No observed file has these two; the text is HTCondor's documented event form.
TEST_F(EventLog, SuspendedAndUnsuspended) {
  std::string out;
  event_suspended(out, EventJob{7, 0, 0}, at(0, 50, 0), 3);
  event_unsuspended(out, EventJob{7, 0, 0}, at(0, 50, 30));
  EXPECT_EQ(out,
            "010 (007.000.000) 2026-11-22 00:50:00 Job was suspended.\n"
            "\tNumber of processes actually suspended: 3\n"
            "...\n"
            "011 (007.000.000) 2026-11-22 00:50:30 Job was unsuspended.\n"
            "...\n");
}

TEST_F(EventLog, SignalAndCpuTimes) {
  std::string out;
  RunTotals run;
  run.run_remote = {90061, 61};  // 1 day 01:01:01 user, 1 minute 1 second system
  event_terminated(out, EventJob{12, 3, 0}, at(1, 2, 3), true, 9, run);
  EXPECT_EQ(out,
            "005 (012.003.000) 2026-11-22 01:02:03 Job terminated.\n"
            "\t(0) Abnormal termination (signal 9)\n"
            "\t(0) No core file\n"
            "\t\tUsr 1 01:01:01, Sys 0 00:01:01  -  Run Remote Usage\n"
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Run Local Usage\n"
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Remote Usage\n"
            "\t\tUsr 0 00:00:00, Sys 0 00:00:00  -  Total Local Usage\n"
            "\t0  -  Run Bytes Sent By Job\n"
            "\t0  -  Run Bytes Received By Job\n"
            "\t0  -  Total Bytes Sent By Job\n"
            "\t0  -  Total Bytes Received By Job\n"
            "...\n");
}

}  // namespace
}  // namespace kite::queue
