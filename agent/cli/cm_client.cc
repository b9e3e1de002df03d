// The CLI's connection to the central manager (see cm_client.h).
#include "agent/cli/cm_client.h"

#include <uv.h>

#include "agent/net/client.h"
#include "agent/net/tls_config.h"

namespace kite::cli {
namespace {

constexpr uint64_t kRequestTimeoutMs = 30000;

struct Exchange final : net::NetClientHandler {
  const core::Json* request = nullptr;
  const CmReplyFn* on_reply = nullptr;
  std::string what, where, err;
  bool done = false;

  void finish(net::NetClient* c, std::string why) {
    if (done) return;
    done = true;
    err = std::move(why);
    c->stop();
  }
  void on_connected(net::NetClient* c) override { c->send(*request); }
  bool on_frame(net::NetClient* c, core::Json& msg) override {
    if (msg.type() == "error") {
      finish(c,
             "the central manager at " + where + " refused the " + what + ": " + msg.str("error"));
      return true;
    }
    bool last = false;
    if (!(*on_reply)(msg, &last)) return false;
    if (last) finish(c, "");
    return true;
  }
  void on_disconnected(net::NetClient* c, const std::string& why) override {
    std::string hint;
    if (why.find("fatal alert") != std::string::npos) {
      hint = " (the central manager did not trust your certificate)";
    } else if (why.find("verification failed") != std::string::npos) {
      hint = " (the central manager's certificate is not trusted by your KITE_CA)";
    }
    std::string verb = what == "query" ? "query" : "reach";
    finish(c, "cannot " + verb + " the central manager at " + where + ": " + why + hint);
  }
};

}  // namespace

bool cm_request(const std::string& pool, const char* what, const core::Json& request,
                const CmReplyFn& on_reply, std::string* err) {
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
  copts.conn.name = std::string("kite-") + what;
  uv_loop_t loop;
  uv_loop_init(&loop);
  Exchange h;
  h.request = &request;
  h.on_reply = &on_reply;
  h.what = what;
  h.where = copts.host + ":" + std::to_string(copts.port);
  {
    net::NetClient client(&loop, tls.get(), &h, copts);
    uv_timer_t timeout;
    uv_timer_init(&loop, &timeout);
    timeout.data = &client;
    uv_timer_start(
        &timeout, [](uv_timer_t* t) { static_cast<net::NetClient*>(t->data)->stop(); },
        kRequestTimeoutMs, 0);
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
