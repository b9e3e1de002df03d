// Writing the CM's figures as OpenMetrics text: one family per figure, each with # TYPE and
// # HELP, label values escaped, the text closed by # EOF.
#include "agent/cm/metrics_text.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <utility>

#include "agent/cm/collector_server.h"
#if KITE_HAS_JOB_STORE
#include "agent/queue/job_store.h"
#endif

namespace kite::cm {

const char kOpenMetricsType[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";

namespace {

// A label value as OpenMetrics quotes it: backslash, double quote and newline escaped.
std::string escaped(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char ch : v) {
    if (ch == '\\' || ch == '"') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

void family(std::string* out, const char* name, const char* type, const char* help) {
  *out += "# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += "\n# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += '\n';
}

void sample(std::string* out, const std::string& name, const std::string& labels, double v) {
  char num[48];
  std::snprintf(num, sizeof num, "%.17g", v);
  *out += name;
  if (!labels.empty()) *out += "{" + labels + "}";
  *out += ' ';
  *out += num;
  *out += '\n';
}

void sample(std::string* out, const std::string& name, const std::string& labels, uint64_t v) {
  char num[24];
  std::snprintf(num, sizeof num, "%" PRIu64, v);
  *out += name;
  if (!labels.empty()) *out += "{" + labels + "}";
  *out += ' ';
  *out += num;
  *out += '\n';
}

void counter(std::string* out, const char* name, const char* help, uint64_t v) {
  family(out, name, "counter", help);
  sample(out, std::string(name) + "_total", "", v);
}

void gauge(std::string* out, const char* name, const char* help, double v) {
  family(out, name, "gauge", help);
  sample(out, name, "", v);
}

void ads_by_type_and_state(std::string* out, const collector::AdStore& store) {
  // (type, state) -> count; an absent or offline ad counts under that word as its state.
  std::map<std::pair<std::string, std::string>, uint64_t> counts;
  for (const auto& [key, s] : store.ads()) {
    std::string state;
    if (s.absent) {
      state = "Absent";
    } else if (s.offline) {
      state = "Offline";
    } else if (!s.ad || !s.ad->evaluate_string("State", state)) {
      state = "";
    }
    ++counts[{s.type, state}];
  }
  family(out, "kite_collector_ads", "gauge",
         "Ads the collector holds, by type and State (Absent and Offline ads by that word).");
  for (const auto& [k, n] : counts)
    sample(out, "kite_collector_ads",
           "type=\"" + escaped(k.first) + "\",state=\"" + escaped(k.second) + "\"", n);
}

void query_latency(std::string* out, const CollectorStats& st) {
  family(out, "kite_collector_query_duration_seconds", "histogram",
         "Time from a query's arrival to its last reply frame.");
  uint64_t cumulative = 0;
  for (size_t i = 0; i < CollectorStats::kQueryBuckets; ++i) {
    cumulative += st.query_buckets[i];
    char le[32];
    if (i + 1 < CollectorStats::kQueryBuckets) {
      std::snprintf(le, sizeof le, "%g", CollectorStats::kQueryBounds[i]);
    } else {
      std::snprintf(le, sizeof le, "+Inf");
    }
    sample(out, "kite_collector_query_duration_seconds_bucket", std::string("le=\"") + le + "\"",
           cumulative);
  }
  sample(out, "kite_collector_query_duration_seconds_count", "", st.queries);
  sample(out, "kite_collector_query_duration_seconds_sum", "", st.query_seconds);
}

#if KITE_HAS_JOB_STORE
void jobs_by_status(std::string* out, const queue::JobStore& jobs) {
  // Removed and Completed jobs leave the queue for the history, so they are not counted here.
  static const std::pair<int, const char*> kShown[] = {
      {queue::kIdle, "Idle"},
      {queue::kRunning, "Running"},
      {queue::kHeld, "Held"},
      {queue::kTransferringOutput, "TransferringOutput"},
      {queue::kSuspended, "Suspended"}};
  uint64_t counts[8] = {};
  for (const queue::JobSummary& j : jobs.jobs())
    if (j.status >= 0 && j.status < 8) ++counts[j.status];
  family(out, "kite_queue_jobs", "gauge", "Jobs in the queue, by JobStatus.");
  for (const auto& [status, name] : kShown)
    sample(out, "kite_queue_jobs", std::string("status=\"") + name + "\"", counts[status]);
}
#endif

}  // namespace

std::string render_metrics(const CmContext& ctx) {
  std::string out;
  out.reserve(4096);
  const CollectorServer& col = *ctx.collector;
  const CollectorStats& st = col.stats();
  ads_by_type_and_state(&out, col.store());
  counter(&out, "kite_collector_updates", "Ads stored by update frames (rate: updates per second).",
          st.updates);
  counter(&out, "kite_collector_updates_refused",
          "Update frames refused (not authorized, bad ad, store full).",
          st.update_frames - st.updates);
  counter(&out, "kite_collector_invalidations", "Ads removed by invalidate frames.",
          st.invalidations);
  gauge(&out, "kite_collector_connections", "TLS connections open now (handshaking or ready).",
        static_cast<double>(col.connections()));
  counter(&out, "kite_collector_handshake_failures",
          "Connections closed before the TLS handshake and hello completed.",
          col.handshake_failures());
  family(&out, "kite_collector_handshakes", "counter",
         "TLS handshakes completed: full, or resumed with a session ticket.");
  sample(&out, "kite_collector_handshakes_total", "kind=\"full\"",
         col.handshakes() - col.handshakes_resumed());
  sample(&out, "kite_collector_handshakes_total", "kind=\"resumed\"", col.handshakes_resumed());
  query_latency(&out, st);
#if KITE_HAS_JOB_STORE
  if (ctx.jobs) jobs_by_status(&out, *ctx.jobs);
#endif
  const NegotiatorStats& n = ctx.negotiator_stats;
  counter(&out, "kite_negotiator_cycles", "Negotiation cycles run.", n.cycles);
  counter(&out, "kite_negotiator_matches", "Matches made over every cycle.", n.matches);
  gauge(&out, "kite_negotiator_last_cycle_duration_seconds", "Wall time of the last cycle.",
        n.last_cycle_seconds);
  gauge(&out, "kite_negotiator_last_cycle_matches", "Matches made by the last cycle.",
        static_cast<double>(n.last_cycle_matches));
  gauge(&out, "kite_negotiator_last_cycle_idle_jobs", "Idle jobs the last cycle considered.",
        static_cast<double>(n.last_cycle_idle_jobs));
  out += "# EOF\n";
  return out;
}

}  // namespace kite::cm
