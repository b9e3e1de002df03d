// The CLI's side of a request to the central manager: a libuv loop, a NetClient that tries
// once, replies until done or a deadline.
#include "agent/cli/cm_client.h"

#include <cstdlib>

#include "agent/net/session_file.h"
#include "agent/net/tls_config.h"
#include "policy/config/config.h"

namespace kite::cli {
namespace {

struct Handler final : net::NetClientHandler {
  CmConversation* conv = nullptr;
  std::string where, what, err;
  bool done = false;

  void finish(net::NetClient* c, std::string why) {
    if (done) return;
    done = true;
    err = std::move(why);
    c->stop();
  }
  void on_connected(net::NetClient* c) override { conv->start(c); }
  bool on_frame(net::NetClient* c, core::Json& msg) override {
    if (done) return true;
    if (msg.type() == "error") {
      finish(c, "the central manager at " + where + " refused " + what + ": " + msg.str("error"));
      return true;
    }
    bool over = false;
    if (!conv->on_reply(c, msg, &over)) return false;
    if (over) finish(c, "");
    return true;
  }
  void on_disconnected(net::NetClient* c, const std::string& why) override {
    std::string hint;
    if (why.find("fatal alert") != std::string::npos) {
      hint = " (the central manager did not trust your certificate)";
    } else if (why.find("verification failed") != std::string::npos) {
      hint = " (the central manager's certificate is not trusted by your KITE_CA)";
    }
    finish(c, "cannot reach the central manager at " + where + ": " + why + hint);
  }
};

}  // namespace

bool talk_to_cm(const std::string& pool, const std::string& what, CmConversation* conv,
                uint64_t timeout_ms, std::string* err) {
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
  tls->use_full_records();  // a command's connection lives for one reply: speed, not memory
  // A name (not a numeric address) must be one the CM's certificate carries.
  bool numeric = copts.host.find_first_not_of("0123456789.") == std::string::npos ||
                 copts.host.find(':') != std::string::npos;
  if (!numeric) copts.server_name = copts.host;
  copts.conn.name = "kite-cli";
  // The request goes with our hello, not a round trip later after the CM's.
  copts.conn.ready_at_handshake = true;
  // The session is kept next to the user's certificate, so the next command resumes it.
  copts.session_file = files.cert + ".session";
  // Sessions of full records are kept apart from sessions of small ones: a CM resuming a
  // session echoes the record size it was made with, which a client asking for none refuses.
  // Likewise sessions made before a static build offered ChaCha20-Poly1305 only (a resumed
  // session keeps its cipher, which the client would now refuse).
  copts.session_key = net::session_key(
      copts.host + ":" + std::to_string(copts.port) + "\nfull records\nchacha offered alone",
      files);
  uv_loop_t loop;
  uv_loop_init(&loop);
  Handler h;
  h.conv = conv;
  h.where = copts.host + ":" + std::to_string(copts.port);
  h.what = what;
  {
    net::NetClient client(&loop, tls.get(), &h, copts);
    uv_timer_t timeout;
    uv_timer_init(&loop, &timeout);
    timeout.data = &client;
    uv_timer_start(
        &timeout, [](uv_timer_t* t) { static_cast<net::NetClient*>(t->data)->stop(); }, timeout_ms,
        0);
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

namespace {

struct OneRequest final : CmConversation {
  const core::Json* request = nullptr;
  const CmReplyFn* reply_fn = nullptr;
  void start(net::NetClient* c) override { c->send(*request); }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    return (*reply_fn)(msg, done);
  }
};

}  // namespace

bool cm_request(const std::string& pool, const char* what, const core::Json& request,
                const CmReplyFn& on_reply, std::string* err) {
  OneRequest conv;
  conv.request = &request;
  conv.reply_fn = &on_reply;
  return talk_to_cm(pool, std::string("the ") + what, &conv, 60000, err);
}

bool cm_address(const std::string& given, std::string* out, std::string* err) {
  if (!given.empty()) {
    *out = given;
    return true;
  }
  config::Config cfg("TOOL");
  const char* env = std::getenv("KITE_CONFIG");
  bool named = env && env[0];
  std::string value;
  if (cfg.load_main(named ? env : "/etc/kite/kite.conf", named).ok &&
      cfg.get("COLLECTOR_HOST", &value) && !value.empty()) {
    *out = value;
    return true;
  }
  *err = "no central manager: give -pool HOST[:PORT] or set COLLECTOR_HOST in $KITE_CONFIG";
  return false;
}

}  // namespace kite::cli
