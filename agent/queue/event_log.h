// The job event log (HTCondor's "user log"): each event as the text HTCondor writes,
// `NNN (CCC.PPP.SSS) YYYY-MM-DD HH:MM:SS text`, tab-indented detail lines, then `...`.
// Pure formatting: the caller appends the text to the log file named by the submit's `log`.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kite::queue {

struct EventJob {
  int64_t cluster = 0;
  int64_t proc = 0;
  int64_t subproc = 0;
};

// CPU time as the log shows it: "Usr D HH:MM:SS, Sys D HH:MM:SS".
struct CpuUsage {
  int64_t user_secs = 0;
  int64_t sys_secs = 0;
};

// One row of the "Partitionable Resources" table; a missing number leaves its cell blank.
struct ResourceRow {
  std::string name;  // "Cpus", "Disk (KB)", "Memory (MB)", "TimeExecute (s)", ...
  bool has_usage = false;
  double usage = 0;
  bool has_request = false;
  int64_t request = 0;
  bool has_allocated = false;
  int64_t allocated = 0;
};

// What ran: the CPU times and bytes of the run (and of all runs, for the terminated event).
struct RunTotals {
  CpuUsage run_remote, run_local, total_remote, total_local;
  int64_t run_bytes_sent = 0, run_bytes_received = 0;
  int64_t total_bytes_sent = 0, total_bytes_received = 0;
  std::vector<ResourceRow> resources;
};

// `when` is seconds since the epoch, shown in local time.
void event_submit(std::string& out, const EventJob& job, int64_t when, const std::string& host);
// 001: the slot's name and its resources (`Name = value` pairs, written in the given order).
void event_execute(std::string& out, const EventJob& job, int64_t when, const std::string& host,
                   const std::string& slot_name,
                   const std::vector<std::pair<std::string, std::string>>& slot_attrs);
// 004: evicted (held or removed while running, preempted), with the hold/remove reason.
void event_evicted(std::string& out, const EventJob& job, int64_t when, int code, int subcode,
                   const RunTotals& run, const std::string& reason);
// 005: terminated normally with `exit_code`, or by `signal` when `by_signal`.
void event_terminated(std::string& out, const EventJob& job, int64_t when, bool by_signal,
                      int exit_code_or_signal, const RunTotals& run);
// 006: ImageSize (KB), MemoryUsage (MB), ResidentSetSize (KB).
void event_image_size(std::string& out, const EventJob& job, int64_t when, int64_t image_kb,
                      int64_t memory_mb, int64_t rss_kb);
// 010 / 011: suspended (with the number of processes the starter froze) and unsuspended.
void event_suspended(std::string& out, const EventJob& job, int64_t when, int processes);
void event_unsuspended(std::string& out, const EventJob& job, int64_t when);
void event_aborted(std::string& out, const EventJob& job, int64_t when, const std::string& reason);
void event_held(std::string& out, const EventJob& job, int64_t when, const std::string& reason,
                int code, int subcode);
void event_released(std::string& out, const EventJob& job, int64_t when, const std::string& reason);
// 040: file transfer. `host` (may be empty) is named when input transfer starts.
enum class TransferStep { kInputStarted, kInputFinished, kOutputStarted, kOutputFinished };
void event_transfer(std::string& out, const EventJob& job, int64_t when, TransferStep step,
                    const std::string& host);

}  // namespace kite::queue
