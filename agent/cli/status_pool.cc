// The CLI side of a collector query: a libuv loop, a NetClient that tries once, the reply.
#include "agent/cli/status_pool.h"

#include "agent/net/client.h"
#include "agent/net/tls_config.h"
#include "policy/classad/json.h"

namespace kite::cli {
namespace {

constexpr uint64_t kQueryTimeoutMs = 30000;

const char* ad_type_of(StatusMode m) {
  switch (m) {
    case StatusMode::kSubmitters: return "Submitter";
    case StatusMode::kSchedd:
    case StatusMode::kScheddRun: return "Scheduler";
    case StatusMode::kNegotiator: return "Negotiator";
    case StatusMode::kCollector: return "Collector";
    default: return "Machine";
  }
}

struct PoolQuery final : net::NetClientHandler {
  const StatusOptions* o = nullptr;
  std::string where;
  std::vector<classad::AdPtr>* ads = nullptr;
  std::string err;
  bool done = false;

  void finish(net::NetClient* c, std::string why) {
    if (done) return;
    done = true;
    err = std::move(why);
    c->stop();
  }
  void on_connected(net::NetClient* c) override {
    core::Json q = core::Json::message("query");
    q.set("ad_type", ad_type_of(o->mode));
    // The CM filters too (by its indexes on Name, Machine, State); the table filters again.
    if (!o->constraint.empty()) q.set("constraint", o->constraint);
    q.set_bool("absent", o->mode == StatusMode::kAbsent);
    q.set_bool("offline", o->mode == StatusMode::kOffline);
    c->send(q);
  }
  bool on_frame(net::NetClient* c, core::Json& msg) override {
    std::string type = msg.type();
    if (type == "error") {
      finish(c, "the central manager at " + where + " refused the query: " + msg.str("error"));
      return true;
    }
    if (type != "ads") return false;
    const cJSON* item = nullptr;
    cJSON_ArrayForEach(item, msg.child("ads")) {
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      if (ad) ads->push_back(std::move(ad));
    }
    if (msg.flag("done")) finish(c, "");
    return true;
  }
  void on_disconnected(net::NetClient* c, const std::string& why) override {
    std::string hint;
    if (why.find("fatal alert") != std::string::npos) {
      hint = " (the central manager did not trust your certificate)";
    } else if (why.find("verification failed") != std::string::npos) {
      hint = " (the central manager's certificate is not trusted by your KITE_CA)";
    }
    finish(c, "cannot query the central manager at " + where + ": " + why + hint);
  }
};

}  // namespace

bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err) {
  net::ClientOptions copts;
  if (!net::parse_host_port(pool, &copts.host, &copts.port, err)) {
    *err = "-pool " + *err;
    return false;
  }
  net::TlsFiles files = net::user_tls_files();
  auto tls = net::TlsContext::load(net::TlsContext::Role::kClient, files, err);
  if (!tls) {
    *err = "your certificate (~/.kite/ or KITE_CA/KITE_CERT/KITE_KEY): " + *err;
    return false;
  }
  // A name (not a numeric address) must be one the CM's certificate carries.
  bool numeric = copts.host.find_first_not_of("0123456789.") == std::string::npos ||
                 copts.host.find(':') != std::string::npos;
  if (!numeric) copts.server_name = copts.host;
  copts.conn.name = "kite-status";
  uv_loop_t loop;
  uv_loop_init(&loop);
  PoolQuery h;
  h.o = &o;
  h.where = copts.host + ":" + std::to_string(copts.port);
  h.ads = ads;
  {
    net::NetClient client(&loop, tls.get(), &h, copts);
    uv_timer_t timeout;
    uv_timer_init(&loop, &timeout);
    timeout.data = &client;
    uv_timer_start(
        &timeout, [](uv_timer_t* t) { static_cast<net::NetClient*>(t->data)->stop(); },
        kQueryTimeoutMs, 0);
    client.start();
    while (!h.done && uv_run(&loop, UV_RUN_ONCE) != 0) {
      if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&timeout)) && !h.done) {
        h.finish(&client, "no answer from the central manager at " + h.where + " in time");
      }
    }
    client.stop();
    uv_close(reinterpret_cast<uv_handle_t*>(&timeout), nullptr);
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // the client's own handles close after its destructor
  uv_loop_close(&loop);
  if (!h.done) h.err = "no answer from the central manager at " + h.where;
  *err = h.err;
  return err->empty();
}

}  // namespace kite::cli
