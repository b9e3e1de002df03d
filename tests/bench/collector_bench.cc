// The fleet simulator of scripts/bench-collector (not in CTest): N mutual-TLS agent connections
// on one libuv loop against a running `kite cm`. Each connection advertises its machine's slot
// ads, then in rounds sends updates followed by a cheap indexed query; the query's answer comes
// after the CM handled every update sent before it on that connection, so a round is done when
// every connection has its answer. Meanwhile `kite status -constraint` runs as a child and is
// timed. Prints key=value lines: handshakes/s, updates/s, the CM's CPU and RSS, query latency.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "agent/net/client.h"
#include "agent/net/tls_context.h"
#include "tests/bench/realistic_slots.h"

namespace {

using kite::core::Json;
using kite::net::NetClient;

struct Options {
  std::string host = "127.0.0.1";
  int port = 9618;
  kite::net::TlsFiles tls;
  int connections = 2000;
  int slots = 5;       // ads per machine
  int machines = 1;    // machines per connection (scripts/bench-cm-connections: same ads, fewer)
  int rounds = 4;      // timed update rounds
  int per_round = 30;  // updates per connection per round
  int cm_pid = 0;
  std::string kite;  // the kite binary, for the timed `kite status` queries
  int status_runs = 20;
  int paced_rate = 20000;  // updates/s of the paced phase (the goal's load); 0: none
  int dial_window = 64;
  bool full = false;    // updates carry the whole ad instead of the changed attributes
  std::string ad_file;  // a real slot ad: the fleet advertises realistic ads made from it
};

double now_s() {
  return static_cast<double>(uv_hrtime()) / 1e9;
}

// With --ad-file: the realistic ads (the reference's 185-attribute slot ad per machine and slot).
kite::bench::RealisticSlots g_realistic;
bool g_use_realistic = false;

// A machine ad: the realistic one (--ad-file), else a trimmed one of 30 attributes.
std::string slot_ad(int conn, int slot, int load) {
  char machine[32], buf[2048];
  std::snprintf(machine, sizeof machine, "bench-%05d", conn);
  if (g_use_realistic) return g_realistic.full(machine, slot, 1000 + conn * 97 + load);
  std::snprintf(
      buf, sizeof buf,
      "{\"MyType\":\"Machine\",\"TargetType\":\"Job\",\"Name\":\"slot%d@%s\",\"Machine\":\"%s\","
      "\"SlotID\":%d,\"Cpus\":1,\"Memory\":%d,\"Disk\":104857600,\"Arch\":\"X86_64\","
      "\"OpSys\":\"LINUX\",\"OpSysAndVer\":\"Debian12\",\"State\":\"%s\",\"Activity\":\"%s\","
      "\"LoadAvg\":%d.25,\"CondorLoadAvg\":0.0,\"TotalCpus\":8,\"TotalMemory\":64000,"
      "\"Mips\":30000,\"KFlops\":2000000,\"KeyboardIdle\":%d,\"ConsoleIdle\":%d,"
      "\"FileSystemDomain\":\"bench.example.org\",\"UidDomain\":\"bench.example.org\","
      "\"Start\":true,\"Rank\":0.0,\"IsOwner\":false,\"HasFileTransfer\":true,"
      "\"StarterAbilityList\":\"HasFileTransfer,HasJobDeferral,HasTDP\","
      "\"CondorVersion\":\"$CondorVersion: 25.14.0 2026-11-20 $\",\"MyCurrentTime\":%d,"
      "\"TotalSlots\":8,\"NumPids\":%d,\"UpdateSequenceNumber\":%d}",
      slot, machine, machine, slot, 8000 + slot, slot % 3 == 0 ? "Unclaimed" : "Claimed",
      slot % 3 == 0 ? "Idle" : "Busy", load % 8, 100 + load, 100 + load, 1764000000 + load,
      load % 50, load);
  return buf;
}

// What changes between two updates of a slot (the agent sends these after the full ad, as a
// merge): the load, idle times, the clock, the sequence number.
std::string slot_delta(int conn, int slot, int load) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"Name\":\"slot%d@bench-%05d\",\"LoadAvg\":%d.25,\"KeyboardIdle\":%d,"
                "\"ConsoleIdle\":%d,\"MyCurrentTime\":%d,\"NumPids\":%d,"
                "\"UpdateSequenceNumber\":%d}",
                slot, conn, load % 8, 100 + load, 100 + load, 1764000000 + load, load % 50, load);
  return buf;
}

struct Fleet;

struct Agent final : kite::net::NetClientHandler {
  Fleet* fleet = nullptr;
  int id = 0;
  bool up = false;
  int round_answered = 0;
  void on_connected(NetClient* c) override;
  bool on_frame(NetClient* c, Json& msg) override;
  void on_disconnected(NetClient*, const std::string& why) override;
};

struct Fleet {
  Options o;
  uv_loop_t* loop;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<std::unique_ptr<NetClient>> clients;
  int connected = 0, answered = 0, round = 0, failures = 0;
  std::string last_failure;
  // Handshakes the fleet runs at once. 2,000 real agents have 2,000 CPUs for their side of the
  // handshake; this one process has one, so it dials in a window to stay off the critical path.
  int dial_window = 64, dialled = 0, dialling = 0;

  void dial_more() {
    while (dialling < dial_window && dialled < static_cast<int>(clients.size())) {
      ++dialling;
      clients[static_cast<size_t>(dialled++)]->start();
    }
  }

  // A round's frames go as one batch, as an agent sends the updates of its slots.
  void send_round(int i) {
    std::vector<Json> batch;
    for (int u = 0; u < o.per_round; ++u) {
      Json m = Json::message("update");
      int k = u % (o.slots * o.machines), load = round * 1000 + u;
      int machine = i * o.machines + k / o.slots, slot = 1 + k % o.slots;
      if (o.full) {
        m.set("ad_type", "Machine").set("ad", slot_ad(machine, slot, load));
      } else {
        m.set("ad_type", "Machine")
            .set("ad", slot_delta(machine, slot, load))
            .set_bool("merge", true);
      }
      batch.push_back(std::move(m));
    }
    Json q = Json::message("query");
    q.set("ad_type", "Machine").set("constraint", "Name == \"none\"");
    batch.push_back(std::move(q));
    clients[static_cast<size_t>(i)]->send_all(batch);
  }

  // The paced phase: every tick, the next connections in turn send their slots' changes, so
  // that o.paced_rate updates/s arrive evenly (as a fleet's agents report, each on its own
  // timer) instead of in rounds of bursts.
  int next_paced = 0;
  long paced_sent = 0;
  double paced_start = 0;
  long paced_sent_at_start = 0;
  void send_paced(int updates) {
    for (; updates > 0; next_paced = (next_paced + 1) % static_cast<int>(clients.size())) {
      std::vector<Json> batch;
      for (int s = 1; s <= o.slots && updates > 0; ++s, --updates) {
        Json m = Json::message("update");
        m.set("ad_type", "Machine")
            .set("ad",
                 slot_delta(next_paced * o.machines, s, 500000 + static_cast<int>(paced_sent)))
            .set_bool("merge", true);
        batch.push_back(std::move(m));
        ++paced_sent;
      }
      clients[static_cast<size_t>(next_paced)]->send_all(batch);
    }
  }
};

void Agent::on_connected(NetClient* c) {
  if (!up) {
    ++fleet->connected;
    --fleet->dialling;
    fleet->dial_more();
  }
  up = true;
  for (int k = 0; k < fleet->o.machines; ++k) {
    for (int s = 1; s <= fleet->o.slots; ++s) {
      Json m = Json::message("update");
      m.set("ad_type", "Machine").set("ad", slot_ad(id * fleet->o.machines + k, s, 0));
      c->send(m);
    }
  }
}

bool Agent::on_frame(NetClient*, Json& msg) {
  if (msg.type() == "ads" && msg.flag("done")) {
    if (round_answered < fleet->round) {
      round_answered = fleet->round;
      ++fleet->answered;
    }
  } else if (msg.type() == "error") {
    ++fleet->failures;
    fleet->last_failure = msg.str("error");
  }
  return true;
}

void Agent::on_disconnected(NetClient*, const std::string& why) {
  ++fleet->failures;
  fleet->last_failure = why;
}

// CPU seconds (user + system) and VmRSS in KiB of a process.
bool proc_usage(int pid, double* cpu, long* rss_kib) {
  char path[64], buf[4096];
  std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');
  unsigned long utime = 0, stime = 0;
  if (!p || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                        &stime) != 2)
    return false;
  *cpu = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  std::snprintf(path, sizeof path, "/proc/%d/status", pid);
  f = std::fopen(path, "r");
  if (!f) return false;
  *rss_kib = 0;
  while (std::fgets(buf, sizeof buf, f))
    if (std::sscanf(buf, "VmRSS: %ld", rss_kib) == 1) break;
  std::fclose(f);
  return true;
}

// This process's CPU seconds: the fleet's own cost, printed apart from the CM's.
double self_cpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Runs the loop until `pred` holds or `secs` pass.
template <typename Pred>
bool run_until(uv_loop_t* loop, Pred pred, double secs) {
  double end = now_s() + secs;
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(
      &tick, [](uv_timer_t*) {}, 5, 5);
  while (!pred() && now_s() < end) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return pred();
}

// `kite status -pool ... -constraint 'Memory > 100000' -af Name`, timed from its spawn to its
// exit by a launcher: a small process forked before the fleet exists. Forking the fleet itself
// (2,000 TLS connections, ~100 MB) takes tens of milliseconds on a loaded machine, which would
// be the bench's cost, not the command's (the idle figures spawn it from the shell).
struct StatusRun {
  double took = -1;
  int64_t status = -1;
};

struct LaunchResult {
  double took;
  int64_t status;
};

struct Launcher {
  int cmd_fd = -1, result_fd = -1;
  uv_poll_t poll;
  std::deque<StatusRun*> pending;  // started, in order; the launcher runs one at a time
};
Launcher g_launcher;

[[noreturn]] void launcher_main(const Options& o, int cmd_fd, int result_fd) {
  std::string pool = o.host + ":" + std::to_string(o.port);
  const char* args[] = {o.kite.c_str(),    "status", "-pool", pool.c_str(), "-constraint",
                        "Memory > 100000", "-af",    "Name",  nullptr};
  // 't': the default table instead (the same command without its constraint and -af).
  const char* table_args[] = {o.kite.c_str(), "status", "-pool", pool.c_str(), nullptr};
  char c;
  while (::read(cmd_fd, &c, 1) == 1) {
    double t0 = now_s();
    pid_t pid = ::fork();
    if (pid == 0) {
      int null_fd = ::open("/dev/null", O_RDWR);
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 1);  // stderr stays: a failed query says why on the bench's stderr
      ::execv(o.kite.c_str(), const_cast<char**>(c == 't' ? table_args : args));
      ::_exit(127);
    }
    int st = 0;
    if (pid < 0 || ::waitpid(pid, &st, 0) != pid) st = 127 << 8;
    LaunchResult r{now_s() - t0, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)};
    if (::write(result_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) break;
  }
  ::_exit(0);
}

bool start_launcher(const Options& o) {
  int cmd[2], result[2];
  if (::pipe(cmd) != 0 || ::pipe(result) != 0) return false;
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::close(cmd[1]);
    ::close(result[0]);
    launcher_main(o, cmd[0], result[1]);
  }
  ::close(cmd[0]);
  ::close(result[1]);
  g_launcher.cmd_fd = cmd[1];
  g_launcher.result_fd = result[0];
  return true;
}

void watch_launcher(uv_loop_t* loop) {
  uv_poll_init(loop, &g_launcher.poll, g_launcher.result_fd);
  uv_poll_start(&g_launcher.poll, UV_READABLE, [](uv_poll_t*, int, int) {
    LaunchResult r;
    if (::read(g_launcher.result_fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r) ||
        g_launcher.pending.empty())
      return;
    StatusRun* run = g_launcher.pending.front();
    g_launcher.pending.pop_front();
    run->took = r.took;
    run->status = r.status;
  });
}

// Starts `kite status -constraint` (or, with `table`, the default table) in the launcher.
void start_status(uv_loop_t*, const Options&, StatusRun* r, bool table = false) {
  g_launcher.pending.push_back(r);
  if (::write(g_launcher.cmd_fd, table ? "t" : "r", 1) != 1) {
    g_launcher.pending.pop_back();
    r->took = 0;
  }
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int usage() {
  std::fprintf(stderr,
               "usage: collector_bench --port P --ca F --cert F --key F --cm-pid PID --kite BIN\n"
               "       [--host H] [--connections N] [--slots N] [--rounds N] [--per-round N]\n"
               "       [--dial-window N] [--status-runs N] [--paced-rate N] [--full-updates]\n"
               "       [--ad-file SLOT_AD] [--machines-per-connection N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--full-updates") {
      o.full = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) return usage();
    std::string v = argv[i + 1];
    if (k == "--host")
      o.host = v;
    else if (k == "--port")
      o.port = std::atoi(v.c_str());
    else if (k == "--ca")
      o.tls.ca = v;
    else if (k == "--cert")
      o.tls.cert = v;
    else if (k == "--key")
      o.tls.key = v;
    else if (k == "--connections")
      o.connections = std::atoi(v.c_str());
    else if (k == "--slots")
      o.slots = std::atoi(v.c_str());
    else if (k == "--machines-per-connection")
      o.machines = std::max(1, std::atoi(v.c_str()));
    else if (k == "--rounds")
      o.rounds = std::atoi(v.c_str());
    else if (k == "--per-round")
      o.per_round = std::atoi(v.c_str());
    else if (k == "--status-runs")
      o.status_runs = std::max(0, std::atoi(v.c_str()));
    else if (k == "--paced-rate")
      o.paced_rate = std::max(0, std::atoi(v.c_str()));
    else if (k == "--dial-window")
      o.dial_window = std::max(1, std::atoi(v.c_str()));
    else if (k == "--cm-pid")
      o.cm_pid = std::atoi(v.c_str());
    else if (k == "--kite")
      o.kite = v;
    else if (k == "--ad-file")
      o.ad_file = v;
    else
      return usage();
  }
  if (o.tls.ca.empty() || o.cm_pid <= 0 || o.kite.empty()) return usage();
  if (!start_launcher(o)) {
    std::fprintf(stderr, "collector_bench: cannot start the status launcher\n");
    return 1;
  }
  std::string err;
  if (!o.ad_file.empty()) {
    if (!g_realistic.load(o.ad_file, &err)) {
      std::fprintf(stderr, "collector_bench: %s\n", err.c_str());
      return 1;
    }
    g_use_realistic = true;
  }
  auto tls = kite::net::TlsContext::load(kite::net::TlsContext::Role::kClient, o.tls, &err);
  if (!tls) {
    std::fprintf(stderr, "collector_bench: %s\n", err.c_str());
    return 1;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a connection the CM closed must not kill the fleet
  uv_loop_t loop;
  uv_loop_init(&loop);
  Fleet fleet;
  fleet.o = o;
  fleet.loop = &loop;
  fleet.dial_window = o.dial_window;
  watch_launcher(&loop);
  double cpu0 = 0, cpu1 = 0;
  long rss0 = 0, rss1 = 0;
  proc_usage(o.cm_pid, &cpu0, &rss0);

  // Handshakes: every connection dialled at once, full handshakes (no session to resume).
  double t0 = now_s(), fleet_cpu0 = self_cpu();
  for (int i = 0; i < o.connections; ++i) {
    auto a = std::make_unique<Agent>();
    a->fleet = &fleet;
    a->id = i;
    kite::net::ClientOptions co;
    co.host = o.host;
    co.port = o.port;
    co.conn.name = "bench";
    co.conn.handshake_timeout_ms = 120000;  // keepalive stays the default: the CM expects it
    fleet.clients.push_back(std::make_unique<NetClient>(&loop, tls.get(), a.get(), co));
    fleet.agents.push_back(std::move(a));
  }
  fleet.dial_more();
  bool all_up = run_until(
      &loop, [&] { return fleet.connected == o.connections; }, 300);
  double t_up = now_s() - t0;
  double cpu_up = 0;
  long rss_up = 0;
  proc_usage(o.cm_pid, &cpu_up, &rss_up);
  std::printf("connections=%d\nhandshake_seconds=%.2f\nhandshakes_per_s=%.0f\n", fleet.connected,
              t_up, fleet.connected / t_up);
  // The CM before the fleet and with every connection up, before any ad: the connections' own
  // memory (scripts/bench-cm-connections divides it by their number).
  std::printf("cm_rss_kib_before=%ld\ncm_rss_kib_connected=%ld\n", rss0, rss_up);
  std::printf("dial_window=%d\ncm_cpu_per_handshake_ms=%.2f\nfleet_cpu_per_handshake_ms=%.2f\n",
              o.dial_window, (cpu_up - cpu0) * 1000.0 / std::max(fleet.connected, 1),
              (self_cpu() - fleet_cpu0) * 1000.0 / std::max(fleet.connected, 1));
  if (!all_up) {
    std::fprintf(stderr, "collector_bench: only %d of %d connections came up (%s)\n",
                 fleet.connected, o.connections, fleet.last_failure.c_str());
    return 1;
  }
  // The initial ads in: one round that carries no timed updates.
  fleet.round = 1;
  fleet.answered = 0;
  for (int i = 0; i < o.connections; ++i) {
    Json q = Json::message("query");
    q.set("ad_type", "Machine").set("constraint", "Name == \"none\"");
    fleet.clients[static_cast<size_t>(i)]->send(q);
  }
  run_until(
      &loop, [&] { return fleet.answered == o.connections; }, 120);
  double cpu_a = 0;
  long rss_a = 0;
  proc_usage(o.cm_pid, &cpu_a, &rss_a);
  std::printf(
      "ads_held=%d\nad_attributes=%zu\ncm_rss_kib_holding_ads=%ld\n"
      "cm_cpu_handshakes_and_ads_s=%.3f\n",
      o.connections * o.machines * o.slots, g_use_realistic ? g_realistic.attributes() : 30, rss_a,
      cpu_a - cpu0);
  std::fflush(stdout);  // the update phase starts now (a profiler may wait for this line)

  // Timed rounds of updates, with `kite status -constraint` runs spread over them.
  std::vector<std::unique_ptr<StatusRun>> runs;
  double busy = 0;
  long updates = 0;
  double cpu_b = 0;
  long rss_b = 0;
  proc_usage(o.cm_pid, &cpu_b, &rss_b);
  double fleet_cpu_b = self_cpu();
  for (int r = 0; r < o.rounds; ++r) {
    fleet.round = 2 + r;
    fleet.answered = 0;
    double rs = now_s();
    for (int i = 0; i < o.connections; ++i) fleet.send_round(i);
    int per = o.status_runs ? o.status_runs / o.rounds + 1 : 0;
    for (int k = 0; k < per; ++k) {
      runs.push_back(std::make_unique<StatusRun>());
      start_status(&loop, o, runs.back().get());
      run_until(
          &loop, [&] { return runs.back()->took >= 0 || fleet.answered == o.connections; }, 60);
    }
    if (!run_until(
            &loop, [&] { return fleet.answered == o.connections; }, 300)) {
      std::fprintf(stderr, "collector_bench: round %d: %d of %d answered (%s)\n", r, fleet.answered,
                   o.connections, fleet.last_failure.c_str());
      return 1;
    }
    busy += now_s() - rs;
    updates += static_cast<long>(o.connections) * o.per_round;
  }
  run_until(
      &loop,
      [&] { return std::all_of(runs.begin(), runs.end(), [](auto& x) { return x->took >= 0; }); },
      60);
  proc_usage(o.cm_pid, &cpu1, &rss1);
  double fleet_cpu_updates = self_cpu() - fleet_cpu_b;
  std::vector<double> lat;
  int bad = 0;
  for (auto& x : runs) {
    if (x->status == 0)
      lat.push_back(x->took);
    else
      ++bad;
  }
  std::printf("updates=%ld\nupdate_seconds=%.2f\nupdates_per_s=%.0f\n", updates, busy,
              updates / busy);
  std::printf("cm_cpu_updates_s=%.3f\ncm_cpu_per_10k_updates_s=%.4f\ncm_rss_kib=%ld\n",
              cpu1 - cpu_b, (cpu1 - cpu_b) * 10000.0 / static_cast<double>(updates), rss1);
  std::printf("fleet_cpu_updates_s=%.3f\n", fleet_cpu_updates);
  std::printf("status_runs=%zu\nstatus_failed=%d\nstatus_p50_s=%.4f\nstatus_p99_s=%.4f\n",
              lat.size(), bad, percentile(lat, 0.5), percentile(lat, 0.99));

  // `kite status -constraint` again, one run after another, while o.paced_rate updates/s
  // arrive evenly: the goal's load (the rounds above send as fast as the CM takes them).
  if (o.paced_rate > 0 && o.status_runs > 0) {
    constexpr int kTickMs = 5;
    uv_timer_t pace;
    uv_timer_init(&loop, &pace);
    pace.data = &fleet;
    double p0 = now_s();
    long sent0 = fleet.paced_sent;
    fleet.paced_start = p0;
    fleet.paced_sent_at_start = sent0;
    uv_timer_start(
        &pace,
        [](uv_timer_t* t) {
          // What is owed since the start, so late ticks do not lower the rate.
          auto* f = static_cast<Fleet*>(t->data);
          double owed = (now_s() - f->paced_start) * f->o.paced_rate;
          f->send_paced(static_cast<int>(owed) -
                        static_cast<int>(f->paced_sent - f->paced_sent_at_start));
        },
        kTickMs, kTickMs);
    run_until(
        &loop, [&] { return now_s() - p0 >= 0.5; }, 1);  // the load settles first
    std::vector<double> paced, paced_table;
    int paced_bad = 0;
    std::vector<std::unique_ptr<StatusRun>> paced_runs;
    // The -constraint form o.status_runs times, then the default table as many times.
    for (int k = 0; k < 2 * o.status_runs; ++k) {
      bool table = k >= o.status_runs;
      paced_runs.push_back(std::make_unique<StatusRun>());
      StatusRun* run = paced_runs.back().get();
      start_status(&loop, o, run, table);
      run_until(
          &loop, [&] { return run->took >= 0; }, 60);
      if (run->status == 0)
        (table ? paced_table : paced).push_back(run->took);
      else
        ++paced_bad;
    }
    uv_timer_stop(&pace);
    uv_close(reinterpret_cast<uv_handle_t*>(&pace), nullptr);
    double took = now_s() - p0;
    std::printf("paced_updates_per_s=%.0f\npaced_status_failed=%d\n",
                static_cast<double>(fleet.paced_sent - sent0) / took, paced_bad);
    std::printf("paced_status_p50_s=%.4f\npaced_status_p99_s=%.4f\n", percentile(paced, 0.5),
                percentile(paced, 0.99));
    std::printf("paced_table_p50_s=%.4f\npaced_table_p99_s=%.4f\n", percentile(paced_table, 0.5),
                percentile(paced_table, 0.99));
  }
  std::printf("transport_failures=%d\n", fleet.failures);
  if (fleet.failures) std::printf("last_failure=%s\n", fleet.last_failure.c_str());
  uv_close(reinterpret_cast<uv_handle_t*>(&g_launcher.poll), nullptr);
  ::close(g_launcher.cmd_fd);  // the launcher exits
  for (auto& c : fleet.clients) c->stop();
  fleet.clients.clear();
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  return 0;
}
