// The rooster service: its timer, the offline ads from the collector, the idle jobs from the
// queue, and the wake-ups (a UDP magic packet, or ROOSTER_WAKEUP_CMD with the ad on stdin).
#include "agent/cm/rooster_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "agent/cm/collector_server.h"
#include "agent/core/log.h"
#include "policy/classad/unparse.h"
#include "policy/negotiator/rooster.h"
#if KITE_HAS_JOB_STORE
#include "agent/queue/job_store.h"
#endif

namespace kite::cm {
namespace {

// Idle jobs looked at per cycle: enough for "is any job waiting for this machine", bounded so
// a huge queue does not stall the CM's loop.
constexpr size_t kMaxIdleJobs = 1000;

using IdleJobs = std::function<void(std::vector<classad::AdPtr>*)>;

// The wake-up command of one machine: its process and the ad it reads on stdin.
struct WakeCmd {
  uv_process_t proc{};
  uv_pipe_t in{};
  uv_write_t write{};
  std::string text;
  std::string machine;
  int closing = 2;  // handles still open
};

void wake_cmd_closed(uv_handle_t* h) {
  auto* w = static_cast<WakeCmd*>(h->data);
  if (--w->closing == 0) delete w;
}

class Rooster final : public PeriodicCmService {
 public:
  Rooster(CmContext* ctx, negotiator::RoosterConfig cfg, IdleJobs idle)
      : ctx_(ctx), cfg_(std::move(cfg)), idle_(std::move(idle)) {
    start_every(ctx_->loop, cfg_.interval);
    KLOG_INFO("rooster: every %lld s, packets to %s:%d%s%s", static_cast<long long>(cfg_.interval),
              cfg_.wol_address.c_str(), cfg_.wol_port,
              cfg_.wakeup_cmd.empty() ? "" : ", wake-up command ", cfg_.wakeup_cmd.c_str());
  }

 private:
  void tick() override {
    collector::QuerySpec q;
    q.type = "Machine";
    q.constraint = "Offline =?= True";
    q.offline = true;
    std::vector<classad::AdPtr> offline;
    std::string err;
    if (!ctx_->collector->store().query(q, &offline, &err)) {
      KLOG_ERROR("rooster: offline ads: %s", err.c_str());
      return;
    }
    std::vector<classad::AdPtr> jobs;
    if (offline.empty()) {
      KLOG_INFO("rooster: no offline ads");
      return;
    }
    if (idle_) idle_(&jobs);
    std::vector<std::string> skipped;
    int64_t now = static_cast<int64_t>(::time(nullptr));
    std::vector<negotiator::WakeTarget> wake =
        negotiator::rooster_pick(cfg_, offline, idle_ ? &jobs : nullptr, now, &skipped);
    KLOG_INFO("rooster: %zu offline ad(s), %zu idle job(s) looked at, waking %zu machine(s)",
              offline.size(), jobs.size(), wake.size());
    for (const std::string& m : skipped)
      KLOG_WARN("rooster: %s should wake but its offline ad has no HardwareAddress", m.c_str());
    for (const negotiator::WakeTarget& t : wake) {
      if (cfg_.wakeup_cmd.empty()) {
        send_packet(t);
      } else {
        run_wakeup_cmd(t);
      }
    }
  }

  void send_packet(const negotiator::WakeTarget& t) {
    std::vector<uint8_t> pkt;
    std::string err;
    if (!negotiator::wol_magic_packet(t.mac, &pkt, &err)) {
      KLOG_ERROR("rooster: %s: %s", t.machine.c_str(), err.c_str());
      return;
    }
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(cfg_.wol_port));
    if (inet_pton(AF_INET, cfg_.wol_address.c_str(), &to.sin_addr) != 1) {
      KLOG_ERROR("rooster: ROOSTER_WOL_ADDRESS %s is not an IPv4 address",
                 cfg_.wol_address.c_str());
      return;
    }
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int on = 1;
    ssize_t n = -1;
    if (fd >= 0) {
      ::setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, sizeof on);
      n = ::sendto(fd, pkt.data(), pkt.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    }
    int e = errno;
    if (fd >= 0) ::close(fd);
    if (n != static_cast<ssize_t>(pkt.size())) {
      KLOG_ERROR("rooster: waking %s (%s): sendto %s:%d: %s", t.machine.c_str(), t.mac.c_str(),
                 cfg_.wol_address.c_str(), cfg_.wol_port, std::strerror(e));
      return;
    }
    KLOG_INFO("rooster: woke %s: magic packet for %s to %s:%d", t.machine.c_str(), t.mac.c_str(),
              cfg_.wol_address.c_str(), cfg_.wol_port);
  }

  // HTCONDOR: condor_rooster ROOSTER_WAKEUP_CMD reads the offline machine's ad on its stdin.
  void run_wakeup_cmd(const negotiator::WakeTarget& t) {
    auto* w = new WakeCmd;
    w->machine = t.machine;
    for (const classad::ClassAd::Entry& e : t.ad->sorted_entries()) {
      w->text.append(e.name->view());
      w->text += " = ";
      classad::unparse_expr(w->text, e.expr);
      w->text += '\n';
    }
    uv_pipe_init(ctx_->loop, &w->in, 0);
    w->in.data = w->proc.data = w;
    uv_stdio_container_t stdio[3];
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&w->in);
    stdio[1].flags = UV_INHERIT_FD;
    stdio[1].data.fd = 1;
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    const char* argv[] = {"/bin/sh", "-c", cfg_.wakeup_cmd.c_str(), nullptr};
    uv_process_options_t o{};
    o.file = argv[0];
    o.args = const_cast<char**>(argv);
    o.stdio = stdio;
    o.stdio_count = 3;
    o.exit_cb = [](uv_process_t* p, int64_t status, int sig) {
      auto* w = static_cast<WakeCmd*>(p->data);
      if (status != 0 || sig != 0) {
        KLOG_WARN("rooster: ROOSTER_WAKEUP_CMD for %s exited with %lld (signal %d)",
                  w->machine.c_str(), static_cast<long long>(status), sig);
      } else {
        KLOG_INFO("rooster: woke %s with ROOSTER_WAKEUP_CMD", w->machine.c_str());
      }
      uv_close(reinterpret_cast<uv_handle_t*>(p), wake_cmd_closed);
    };
    int rc = uv_spawn(ctx_->loop, &w->proc, &o);
    if (rc != 0) {
      KLOG_ERROR("rooster: ROOSTER_WAKEUP_CMD %s: %s", cfg_.wakeup_cmd.c_str(), uv_strerror(rc));
      w->closing = 1;
      uv_close(reinterpret_cast<uv_handle_t*>(&w->in), wake_cmd_closed);
      return;
    }
    uv_buf_t buf = uv_buf_init(w->text.data(), static_cast<unsigned>(w->text.size()));
    w->write.data = w;
    uv_write(&w->write, reinterpret_cast<uv_stream_t*>(&w->in), &buf, 1, [](uv_write_t* req, int) {
      auto* w = static_cast<WakeCmd*>(req->data);
      uv_close(reinterpret_cast<uv_handle_t*>(&w->in), wake_cmd_closed);
    });
  }

  CmContext* ctx_;
  negotiator::RoosterConfig cfg_;
  IdleJobs idle_;
};

bool wanted(const config::Config& cfg) {
  std::string v;
  if (cfg.get("ROOSTER_INTERVAL", &v) && !v.empty()) return true;
  if (!cfg.get("DAEMON_LIST", &v)) return false;
  for (size_t i = 0; (i = v.find_first_not_of(" \t,", i)) != std::string::npos;) {
    size_t end = v.find_first_of(" \t,", i);
    std::string word = v.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (strcasecmp(word.c_str(), "ROOSTER") == 0) return true;
    i = end == std::string::npos ? v.size() : end;
  }
  return false;
}

}  // namespace

std::unique_ptr<CmService> make_rooster(CmContext* ctx, std::string* err) {
  if (!wanted(*ctx->cfg)) return nullptr;
  negotiator::RoosterConfig cfg;
  if (!negotiator::rooster_config(*ctx->cfg, &cfg, err)) return nullptr;
  IdleJobs idle;
#if KITE_HAS_JOB_STORE
  // Until the negotiator marks offline ads (MachineLastMatchTime), the rooster asks the queue
  // itself: an idle job that matches an offline ad is a reason to wake that machine.
  if (ctx->jobs) {
    queue::JobStore* jobs = ctx->jobs;
    idle = [jobs](std::vector<classad::AdPtr>* out) {
      for (const queue::JobSummary& j : jobs->jobs()) {
        if (j.status != queue::kIdle) continue;
        std::string e;
        if (classad::AdPtr ad = jobs->job_ad(j.id, &e)) out->push_back(std::move(ad));
        if (out->size() >= kMaxIdleJobs) break;
      }
    };
  }
#endif
  return std::make_unique<Rooster>(ctx, std::move(cfg), std::move(idle));
}

}  // namespace kite::cm
