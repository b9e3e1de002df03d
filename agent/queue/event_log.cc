// Job event log text (see event_log.h), as HTCondor 25 writes it.
#include "agent/queue/event_log.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace kite::queue {

namespace {

void header(std::string& out, int type, const EventJob& job, int64_t when) {
  time_t t = static_cast<time_t>(when);
  struct tm tm {};
  localtime_r(&t, &tm);
  char buf[128];
  std::snprintf(buf, sizeof buf,
                "%03d (%03" PRId64 ".%03" PRId64 ".%03" PRId64 ") %04d-%02d-%02d %02d:%02d:%02d ",
                type, job.cluster, job.proc, job.subproc, tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  out += buf;
}

void end(std::string& out) {
  out += "...\n";
}

std::string cpu_text(int64_t secs) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 " %02d:%02d:%02d", secs / 86400,
                static_cast<int>(secs % 86400 / 3600), static_cast<int>(secs % 3600 / 60),
                static_cast<int>(secs % 60));
  return buf;
}

void usage_line(std::string& out, const CpuUsage& u, const char* what) {
  out +=
      "\t\tUsr " + cpu_text(u.user_secs) + ", Sys " + cpu_text(u.sys_secs) + "  -  " + what + "\n";
}

void bytes_line(std::string& out, int64_t n, const char* what) {
  out += "\t" + std::to_string(n) + "  -  " + what + "\n";
}

// The table's Usage column: whole numbers as %8d while the Cpus usage is whole; once it has a
// fraction, Cpus shows %8.2f and the other rows a 5-wide number followed by three blanks.
void resources_table(std::string& out, const std::vector<ResourceRow>& rows) {
  if (rows.empty()) return;
  bool fraction = false;
  for (const ResourceRow& r : rows) {
    if (r.name == "Cpus" && r.has_usage && r.usage != std::floor(r.usage)) fraction = true;
  }
  out += "\tPartitionable Resources :    Usage  Request Allocated \n";
  char buf[160];
  for (const ResourceRow& r : rows) {
    char usage[48] = "";
    if (r.has_usage) {
      if (fraction && r.name == "Cpus") {
        std::snprintf(usage, sizeof usage, "%8.2f", r.usage);
      } else if (fraction) {
        std::snprintf(usage, sizeof usage, "%5" PRId64 "   ", static_cast<int64_t>(r.usage));
      } else {
        std::snprintf(usage, sizeof usage, "%8" PRId64,
                      static_cast<int64_t>(std::llround(r.usage)));
      }
    }
    std::string request = r.has_request ? std::to_string(r.request) : "";
    std::string allocated = r.has_allocated ? std::to_string(r.allocated) : "";
    std::snprintf(buf, sizeof buf, "\t   %-20s : %8s %8s %9s \n", r.name.c_str(), usage,
                  request.c_str(), allocated.c_str());
    out += buf;
  }
}

}  // namespace

void event_submit(std::string& out, const EventJob& job, int64_t when, const std::string& host) {
  header(out, 0, job, when);
  out += "Job submitted from host: " + host + "\n";
  end(out);
}

void event_execute(std::string& out, const EventJob& job, int64_t when, const std::string& host,
                   const std::string& slot_name,
                   const std::vector<std::pair<std::string, std::string>>& slot_attrs) {
  header(out, 1, job, when);
  out += "Job executing on host: " + host + "\n";
  if (!slot_name.empty()) out += "\tSlotName: " + slot_name + "\n";
  for (const auto& [name, value] : slot_attrs) out += "\t" + name + " = " + value + "\n";
  end(out);
}

void event_evicted(std::string& out, const EventJob& job, int64_t when, int code, int subcode,
                   const RunTotals& run, const std::string& reason) {
  header(out, 4, job, when);
  out += "Job was evicted. Code " + std::to_string(code) + " Subcode " + std::to_string(subcode) +
         "\n\t(0) CPU times\n";
  usage_line(out, run.run_remote, "Run Remote Usage");
  usage_line(out, run.run_local, "Run Local Usage");
  bytes_line(out, run.run_bytes_sent, "Run Bytes Sent By Job");
  bytes_line(out, run.run_bytes_received, "Run Bytes Received By Job");
  if (!reason.empty()) out += "\tReason: " + reason + "\n";
  resources_table(out, run.resources);
  end(out);
}

void event_terminated(std::string& out, const EventJob& job, int64_t when, bool by_signal,
                      int exit_code_or_signal, const RunTotals& run) {
  header(out, 5, job, when);
  out += "Job terminated.\n";
  if (by_signal) {
    out += "\t(0) Abnormal termination (signal " + std::to_string(exit_code_or_signal) +
           ")\n\t(0) No core file\n";
  } else {
    out += "\t(1) Normal termination (return value " + std::to_string(exit_code_or_signal) + ")\n";
  }
  usage_line(out, run.run_remote, "Run Remote Usage");
  usage_line(out, run.run_local, "Run Local Usage");
  usage_line(out, run.total_remote, "Total Remote Usage");
  usage_line(out, run.total_local, "Total Local Usage");
  bytes_line(out, run.run_bytes_sent, "Run Bytes Sent By Job");
  bytes_line(out, run.run_bytes_received, "Run Bytes Received By Job");
  bytes_line(out, run.total_bytes_sent, "Total Bytes Sent By Job");
  bytes_line(out, run.total_bytes_received, "Total Bytes Received By Job");
  resources_table(out, run.resources);
  end(out);
}

void event_image_size(std::string& out, const EventJob& job, int64_t when, int64_t image_kb,
                      int64_t memory_mb, int64_t rss_kb) {
  header(out, 6, job, when);
  out += "Image size of job updated: " + std::to_string(image_kb) + "\n";
  bytes_line(out, memory_mb, "MemoryUsage of job (MB)");
  bytes_line(out, rss_kb, "ResidentSetSize of job (KB)");
  end(out);
}

void event_suspended(std::string& out, const EventJob& job, int64_t when, int processes) {
  header(out, 10, job, when);
  out +=
      "Job was suspended.\n\tNumber of processes actually suspended: " + std::to_string(processes) +
      "\n";
  end(out);
}

void event_unsuspended(std::string& out, const EventJob& job, int64_t when) {
  header(out, 11, job, when);
  out += "Job was unsuspended.\n";
  end(out);
}

void event_aborted(std::string& out, const EventJob& job, int64_t when, const std::string& reason) {
  header(out, 9, job, when);
  out += "Job was aborted.\n";
  if (!reason.empty()) out += "\t" + reason + "\n";
  end(out);
}

void event_held(std::string& out, const EventJob& job, int64_t when, const std::string& reason,
                int code, int subcode) {
  header(out, 12, job, when);
  out += "Job was held.\n";
  if (!reason.empty()) out += "\t" + reason + "\n";
  out += "\tCode " + std::to_string(code) + " Subcode " + std::to_string(subcode) + "\n";
  end(out);
}

void event_released(std::string& out, const EventJob& job, int64_t when,
                    const std::string& reason) {
  header(out, 13, job, when);
  out += "Job was released.\n";
  if (!reason.empty()) out += "\t" + reason + "\n";
  end(out);
}

void event_transfer(std::string& out, const EventJob& job, int64_t when, TransferStep step,
                    const std::string& host) {
  header(out, 40, job, when);
  switch (step) {
    case TransferStep::kInputStarted: out += "Started transferring input files\n"; break;
    case TransferStep::kInputFinished: out += "Finished transferring input files\n"; break;
    case TransferStep::kOutputStarted: out += "Started transferring output files\n"; break;
    case TransferStep::kOutputFinished: out += "Finished transferring output files\n"; break;
  }
  if (!host.empty()) out += "\tTransferring to host: " + host + "\n";
  end(out);
}

}  // namespace kite::queue
