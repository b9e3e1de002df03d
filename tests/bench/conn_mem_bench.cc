// Where the CM's memory per agent connection goes (not in CTest; scripts/bench-cm-connections
// --breakdown runs it; --mmap-threshold tries glibc's M_MMAP_THRESHOLD): the CM's collector
// (CollectorServer, as `kite cm` runs it) in this process, N mutual-TLS agent connections from a
// forked fleet. At each phase (before the fleet, every connection up, the ads in, rounds of
// updates) it prints the process's RSS and glibc's heap figures (mallinfo2), before and after
// malloc_trim, and with every connection up the heap blocks of one connection part by part
// (agent/net/conn_memory.h) against the heap growth per connection; what the parts leave is the
// CM's own per-connection state and malloc's bookkeeping.
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "agent/cm/collector_server.h"
#include "agent/core/log.h"
#include "agent/net/client.h"
#include "agent/net/conn_memory.h"
#include "agent/net/pki.h"
#include "tests/bench/realistic_slots.h"
#include "tests/bench/self_rss.h"

namespace {

using kite::core::Json;
using kite::net::NetClient;

struct Options {
  int connections = 2000;
  int slots = 0;       // ads per connection (0: connections only)
  int rounds = 0;      // rounds of updates after the ads
  int per_round = 30;  // merges per connection per round
  int dial_window = 64;
  std::string ad_file;     // the reference slot ad; else a small ad of a few attributes
  int mmap_threshold = 0;  // > 0: glibc's M_MMAP_THRESHOLD in the CM process (bytes)
};

double now_s() {
  return static_cast<double>(uv_hrtime()) / 1e9;
}

// ---- the fleet (the forked child) ----------------------------------------------------------

kite::bench::RealisticSlots g_slots;
bool g_realistic = false;

std::string machine_of(int conn) {
  char m[32];
  std::snprintf(m, sizeof m, "bench-%05d", conn);
  return m;
}

std::string ad_text(int conn, int slot, int seed, bool merge) {
  std::string m = machine_of(conn);
  if (g_realistic) return merge ? g_slots.delta(m, slot, seed) : g_slots.full(m, slot, seed);
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"MyType\":\"Machine\",\"Name\":\"slot%d@%s\",\"Machine\":\"%s\","
                "\"LoadAvg\":%d.5,\"MyCurrentTime\":%d}",
                slot, m.c_str(), m.c_str(), seed % 8, 1764000000 + seed);
  return buf;
}

struct Fleet;

struct Member final : kite::net::NetClientHandler {
  Fleet* fleet = nullptr;
  int id = 0;
  bool up = false;
  int answered_round = -1;
  void on_connected(NetClient* c) override;
  bool on_frame(NetClient* c, Json& msg) override;
  void on_disconnected(NetClient*, const std::string& why) override;
};

struct Fleet {
  Options o;
  std::vector<std::unique_ptr<Member>> members;
  std::vector<std::unique_ptr<NetClient>> clients;
  int dialled = 0, dialling = 0, connected = 0, answered = 0, round = -1, failures = 0;
  int from_parent = -1, to_parent = -1;

  void dial_more() {
    while (dialling < o.dial_window && dialled < static_cast<int>(clients.size())) {
      ++dialling;
      clients[static_cast<size_t>(dialled++)]->start();
    }
  }
  void tell(char c) {
    if (::write(to_parent, &c, 1) != 1) std::exit(1);
  }
  // One round: each connection's frames in a batch, then a query whose answer says the CM
  // has handled them.
  void send_round(bool merges) {
    ++round;
    answered = 0;
    for (size_t i = 0; i < clients.size(); ++i) {
      std::vector<Json> batch;
      int n = merges ? o.per_round : o.slots;
      for (int u = 0; u < n && o.slots > 0; ++u) {
        Json m = Json::message("update");
        m.set("ad_type", "Machine")
            .set("ad", ad_text(static_cast<int>(i), 1 + u % o.slots, round * 1000 + u, merges));
        if (merges) m.set_bool("merge", true);
        batch.push_back(std::move(m));
      }
      Json q = Json::message("query");
      q.set("ad_type", "Machine").set("constraint", "Name == \"none\"");
      batch.push_back(std::move(q));
      clients[i]->send_all(batch);
    }
  }
};

void Member::on_connected(NetClient* c) {
  if (up) return;
  up = true;
  ++fleet->connected;
  --fleet->dialling;
  fleet->dial_more();
  c->send(Json::message("probe"));  // the CM side notes this connection (ProbeService)
  if (fleet->connected == static_cast<int>(fleet->clients.size())) fleet->tell('C');
}

bool Member::on_frame(NetClient*, Json& msg) {
  if (msg.type() == "ads" && msg.flag("done") && answered_round < fleet->round) {
    answered_round = fleet->round;
    if (++fleet->answered == static_cast<int>(fleet->clients.size())) fleet->tell('R');
  }
  return true;
}

void Member::on_disconnected(NetClient*, const std::string& why) {
  ++fleet->failures;
  std::fprintf(stderr, "conn_mem_bench: fleet connection %d: %s\n", id, why.c_str());
}

[[noreturn]] void fleet_main(const Options& o, const kite::net::TlsFiles& files, int port,
                             int from_parent, int to_parent) {
  std::string err;
  auto tls = kite::net::TlsContext::load(kite::net::TlsContext::Role::kClient, files, &err);
  if (!tls) {
    std::fprintf(stderr, "conn_mem_bench: fleet: %s\n", err.c_str());
    std::_Exit(1);
  }
  ::signal(SIGPIPE, SIG_IGN);
  uv_loop_t loop;
  uv_loop_init(&loop);
  Fleet fleet;
  fleet.o = o;
  fleet.from_parent = from_parent;
  fleet.to_parent = to_parent;
  for (int i = 0; i < o.connections; ++i) {
    auto m = std::make_unique<Member>();
    m->fleet = &fleet;
    m->id = i;
    kite::net::ClientOptions co;
    co.host = "127.0.0.1";
    co.port = port;
    co.conn.name = "bench";
    co.conn.handshake_timeout_ms = 120000;
    fleet.clients.push_back(std::make_unique<NetClient>(&loop, tls.get(), m.get(), co));
    fleet.members.push_back(std::move(m));
  }
  fleet.dial_more();
  // Commands from the parent: 'a' the ads, 'u' a round of merges, 'q' the end.
  uv_poll_t cmd;
  uv_poll_init(&loop, &cmd, from_parent);
  cmd.data = &fleet;
  uv_poll_start(&cmd, UV_READABLE, [](uv_poll_t* h, int, int) {
    auto* f = static_cast<Fleet*>(h->data);
    char c = 'q';
    if (::read(f->from_parent, &c, 1) != 1 || c == 'q') std::_Exit(0);
    f->send_round(c == 'u');
  });
  uv_run(&loop, UV_RUN_DEFAULT);
  std::_Exit(0);
}

// ---- the CM side (this process) ------------------------------------------------------------

// Notes the connection of every fleet member (its "probe" frame) for the breakdown.
class ProbeService final : public kite::cm::CmService {
 public:
  explicit ProbeService(size_t n) { conns_.reserve(n); }
  bool on_frame(kite::net::TlsConn* c, Json& msg) override {
    if (msg.type() != "probe") return false;
    if (conns_.size() < conns_.capacity()) conns_.push_back(c);
    return true;
  }
  void on_closed(kite::net::TlsConn* c) override {
    for (auto& p : conns_)
      if (p == c) p = nullptr;
  }
  const std::vector<kite::net::TlsConn*>& conns() const { return conns_; }

 private:
  std::vector<kite::net::TlsConn*> conns_;
};

struct Snapshot {
  long rss_kib = 0, rss_trimmed_kib = 0;
  size_t in_use = 0, free_in_heap = 0, heap = 0, mmapped = 0;
};

Snapshot snapshot() {
  Snapshot s;
  s.rss_kib = kite::bench::self_rss_kib();
  struct mallinfo2 m = mallinfo2();
  s.in_use = m.uordblks;
  s.free_in_heap = m.fordblks;
  s.heap = m.arena;
  s.mmapped = m.hblkhd;
  malloc_trim(0);
  s.rss_trimmed_kib = kite::bench::self_rss_kib();
  return s;
}

void print_phase(const char* name, const Snapshot& s, const Snapshot& base, int n) {
  double per = n > 0 ? 1.0 / n : 0;
  std::printf("%-34s %9.2f %9.2f %9.2f %9.2f %9.0f %9.0f %9.0f\n", name, s.rss_kib / 1024.0,
              s.rss_trimmed_kib / 1024.0, (s.in_use + s.mmapped) / 1048576.0,
              s.free_in_heap / 1048576.0, (s.rss_kib - base.rss_kib) * 1024.0 * per,
              (s.rss_trimmed_kib - base.rss_trimmed_kib) * 1024.0 * per,
              (static_cast<double>(s.in_use + s.mmapped) -
               static_cast<double>(base.in_use + base.mmapped)) *
                  per);
  if (std::getenv("CONN_MEM_DEBUG"))
    std::printf("  uordblks=%zu hblkhd=%zu fordblks=%zu arena=%zu\n", s.in_use, s.mmapped,
                s.free_in_heap, s.heap);
  std::fflush(stdout);
}

struct Parent {
  uv_loop_t* loop;
  int from_child, to_child;
  char last = 0;
};

// Runs the loop until the fleet reports `want` (or `secs` pass).
bool await_fleet(Parent* p, char want, double secs) {
  uv_poll_t poll;
  uv_poll_init(p->loop, &poll, p->from_child);
  poll.data = p;
  p->last = 0;
  uv_poll_start(&poll, UV_READABLE, [](uv_poll_t* h, int, int) {
    auto* pp = static_cast<Parent*>(h->data);
    if (::read(pp->from_child, &pp->last, 1) != 1) pp->last = 'x';
  });
  uv_timer_t tick;
  uv_timer_init(p->loop, &tick);
  uv_timer_start(
      &tick, [](uv_timer_t*) {}, 50, 50);
  double end = now_s() + secs;
  while (p->last == 0 && now_s() < end) uv_run(p->loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&poll), nullptr);
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(p->loop, UV_RUN_NOWAIT);
  return p->last == want;
}

// Lets the loop run for `ms` (connections settle: parked buffers, the server's trims).
void spin(uv_loop_t* loop, int ms) {
  double end = now_s() + ms / 1000.0;
  uv_timer_t tick;
  uv_timer_init(loop, &tick);
  uv_timer_start(
      &tick, [](uv_timer_t*) {}, 10, 10);
  while (now_s() < end) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
}

void print_breakdown(const ProbeService& probe, double heap_per_conn) {
  kite::net::ConnMemory sum;
  size_t n = 0, parked = 0;
  for (kite::net::TlsConn* c : probe.conns()) {
    if (!c) continue;
    kite::net::add_conn_memory(*c, &sum);
    ++n;
    if (c->buffers_parked()) ++parked;
  }
  if (n == 0) return;
  double d = static_cast<double>(n);
  std::printf("\nheap blocks of one server-side connection (mean of %zu, %zu parked), bytes:\n", n,
              parked);
  const std::pair<const char*, size_t> parts[] = {
      {"TlsConn object (ssl context, uv handles, inline)", sum.object},
      {"mbedTLS session", sum.session},
      {"mbedTLS transform and cipher contexts", sum.transform},
      {"mbedTLS record buffers", sum.records},
      {"handshake leftovers", sum.handshake},
      {"Kite strings and buffers outside the object", sum.buffers},
  };
  for (const auto& p : parts) std::printf("  %-52s %8.0f\n", p.first, p.second / d);
  std::printf("  %-52s %8.0f (%.1f blocks)\n", "sum of the connection's blocks", sum.total() / d,
              sum.blocks / d);
  std::printf("  %-52s %8.0f\n", "heap growth per connection (mallinfo2)", heap_per_conn);
  std::printf("  %-52s %8.0f\n", "the rest: the CM's per-connection state, libuv, malloc",
              heap_per_conn - sum.total() / d);
  std::printf("conn_object=%.0f\nconn_session=%.0f\nconn_transform=%.0f\nconn_records=%.0f\n",
              sum.object / d, sum.session / d, sum.transform / d, sum.records / d);
  std::printf("conn_handshake=%.0f\nconn_buffers=%.0f\nconn_total=%.0f\nconn_heap_growth=%.0f\n",
              sum.handshake / d, sum.buffers / d, sum.total() / d, heap_per_conn);
}

int usage() {
  std::fprintf(
      stderr,
      "usage: conn_mem_bench [--connections N] [--slots S] [--rounds R] [--per-round U]\n"
      "                      [--dial-window W] [--ad-file SLOT_AD] [--mmap-threshold BYTES]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    std::string k = argv[i];
    if (i + 1 >= argc) return usage();
    std::string v = argv[i + 1];
    int n = std::atoi(v.c_str());
    if (k == "--connections" && n > 0)
      o.connections = n;
    else if (k == "--slots" && n >= 0)
      o.slots = n;
    else if (k == "--rounds" && n >= 0)
      o.rounds = n;
    else if (k == "--per-round" && n > 0)
      o.per_round = n;
    else if (k == "--dial-window" && n > 0)
      o.dial_window = n;
    else if (k == "--ad-file")
      o.ad_file = v;
    else if (k == "--mmap-threshold" && n > 0)
      o.mmap_threshold = n;
    else
      return usage();
  }
  kite::core::Log::set_level(kite::core::LogLevel::kWarn);
  if (o.mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, o.mmap_threshold);
  std::string err;
  if (!o.ad_file.empty()) {
    if (!g_slots.load(o.ad_file, &err)) {
      std::fprintf(stderr, "conn_mem_bench: %s\n", err.c_str());
      return 1;
    }
    g_realistic = true;
  }
  char dir_template[] = "/tmp/kite-conn-mem.XXXXXX";
  std::string dir = ::mkdtemp(dir_template) ? dir_template : "";
  kite::net::IssueRequest req;
  req.ca_dir = dir + "/ca";
  req.out_dir = dir;
  req.role = "cm";
  bool made = !dir.empty() && kite::net::pki_init(req.ca_dir, "bench", 30, &err);
  for (const char* name : {"cm1", "fleet"}) {
    req.name = name;
    made = made && kite::net::pki_issue(req, &err);
  }
  if (!made) {
    std::fprintf(stderr, "conn_mem_bench: certificates in %s: %s\n", dir.c_str(), err.c_str());
    return 1;
  }
  kite::net::TlsFiles server_files{dir + "/ca/ca.crt", dir + "/cm1.crt", dir + "/cm1.key", "", ""};
  kite::net::TlsFiles fleet_files{dir + "/ca/ca.crt", dir + "/fleet.crt", dir + "/fleet.key", "",
                                  ""};

  uv_loop_t loop;
  uv_loop_init(&loop);
  auto tls = kite::net::TlsContext::load(kite::net::TlsContext::Role::kServer, server_files, &err);
  if (!tls) {
    std::fprintf(stderr, "conn_mem_bench: %s\n", err.c_str());
    return 1;
  }
  kite::cm::CollectorOptions copts;
  copts.host = "127.0.0.1";
  copts.port = 0;
  copts.store.classad_lifetime = 3600;
  copts.authz = kite::policy::authz_policy(
      [](void*, const char* name) {
        return std::string(std::string(name) == "ALLOW_DAEMON" ? "cm/*" : "");
      },
      nullptr);
  kite::cm::CollectorServer server(&loop, std::move(tls), std::move(copts));
  ProbeService probe(static_cast<size_t>(o.connections));
  server.add_service(&probe);
  if (!server.start(&err)) {
    std::fprintf(stderr, "conn_mem_bench: %s\n", err.c_str());
    return 1;
  }
  Parent p{&loop, -1, -1};
  auto command = [&](char c) { return ::write(p.to_child, &c, 1) == 1; };
  int rc = 0;
  spin(&loop, 100);
  Snapshot base = snapshot();  // before the fleet dials in
  int down[2], up[2];
  if (::pipe(down) != 0 || ::pipe(up) != 0) return 1;
  pid_t child = ::fork();
  if (child == 0) {
    ::close(down[1]);
    ::close(up[0]);
    fleet_main(o, fleet_files, server.port(), down[0], up[1]);
  }
  ::close(down[0]);
  ::close(up[1]);
  p = Parent{&loop, up[0], down[1]};
  std::printf("%-34s %9s %9s %9s %9s %9s %9s %9s\n", "phase (MiB; B per connection)", "RSS",
              "trimmed", "in use", "free", "RSS/c", "trim/c", "heap/c");
  print_phase("before the fleet", base, base, o.connections);
  double t0 = now_s();
  if (!await_fleet(&p, 'C', 600)) {
    std::fprintf(stderr, "conn_mem_bench: the fleet did not come up\n");
    rc = 1;
  }
  while (rc == 0 && server.handshakes() < static_cast<uint64_t>(o.connections) &&
         now_s() - t0 < 600)
    uv_run(&loop, UV_RUN_ONCE);
  spin(&loop, 300);
  std::printf("handshakes=%llu in %.2f s\n", static_cast<unsigned long long>(server.handshakes()),
              now_s() - t0);
  Snapshot up_snap = snapshot();
  print_phase("connections up", up_snap, base, o.connections);
  double heap_per = (static_cast<double>(up_snap.in_use + up_snap.mmapped) -
                     static_cast<double>(base.in_use + base.mmapped)) /
                    o.connections;
  if (rc == 0 && o.slots > 0) {
    if (!command('a') || !await_fleet(&p, 'R', 600)) rc = 1;
    spin(&loop, 300);
    print_phase("ads in", snapshot(), base, o.connections);
    for (int r = 0; rc == 0 && r < o.rounds; ++r) {
      if (!command('u') || !await_fleet(&p, 'R', 600)) rc = 1;
      spin(&loop, 100);
      if (r < 3 || r + 1 == o.rounds || (r + 1) % 10 == 0) {
        std::string name = "after " + std::to_string(r + 1) + " rounds of updates";
        print_phase(name.c_str(), snapshot(), base, o.connections);
      }
    }
    std::printf("ads_held=%zu\n", server.store().size());
  }
  print_breakdown(probe, heap_per);
  command('q');
  ::close(p.to_child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  server.stop();
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  std::string rm = "rm -rf '" + dir + "'";
  if (std::system(rm.c_str()) != 0) rc = 1;
  return rc;
}
