// The /metrics HTTP server: one request per connection, parsed by http-parser; 400 for a
// malformed or oversized request, 404 for another path, 405 for another method, 408 when the
// request is not in within kRequestMs. Replies are written without blocking; the connection
// is then half-closed and dropped once the client closes it (or after kLingerMs).
#include "agent/cm/metrics_http.h"

#include <http_parser.h>
#include <strings.h>

#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "agent/cm/metrics_text.h"
#include "agent/core/log.h"
#include "agent/net/tls_config.h"

namespace kite::cm {
namespace {

constexpr size_t kMaxClients = 32;        // connections at once; more are closed at accept
constexpr size_t kMaxHeaderBytes = 8192;  // request line and headers
constexpr size_t kMaxUrlBytes = 1024;
constexpr size_t kMaxBodyBytes = 1024;  // a GET has no body; a little is tolerated
constexpr uint64_t kRequestMs = 5000;   // the whole request must be in by then
constexpr uint64_t kLingerMs = 2000;    // after the reply, for the client to read and close

class MetricsEndpoint;

struct Client {
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_write_t write_req;
  uv_shutdown_t shutdown_req;
  http_parser parser;
  MetricsEndpoint* ep = nullptr;
  std::string url;
  size_t bytes = 0;       // request bytes received
  size_t body_bytes = 0;  // of which body
  bool headers_done = false;
  bool complete = false;
  bool too_big = false;
  bool answered = false;
  int open_handles = 2;
  std::string reply;
};

class MetricsEndpoint final : public CmService {
 public:
  explicit MetricsEndpoint(CmContext* ctx) : ctx_(ctx) {
    http_parser_settings_init(&settings_);
    settings_.on_url = on_url;
    settings_.on_headers_complete = [](http_parser* p) {
      static_cast<Client*>(p->data)->headers_done = true;
      return 0;
    };
    settings_.on_body = [](http_parser* p, const char*, size_t n) {
      Client* c = static_cast<Client*>(p->data);
      c->body_bytes += n;
      if (c->body_bytes <= kMaxBodyBytes) return 0;
      c->too_big = true;
      return 1;
    };
    settings_.on_message_complete = [](http_parser* p) {
      static_cast<Client*>(p->data)->complete = true;
      http_parser_pause(p, 1);  // one request per connection: whatever follows is ignored
      return 0;
    };
  }
  ~MetricsEndpoint() override { stop(); }

  bool listen(const sockaddr* addr, std::string* err) {
    listener_ = new uv_tcp_t;
    uv_tcp_init(ctx_->loop, listener_);
    listener_->data = this;
    int rc = uv_tcp_bind(listener_, addr, 0);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener_), 64, on_connection);
    if (rc != 0) {
      *err = uv_strerror(rc);
      return false;
    }
    sockaddr_storage ss{};
    int len = sizeof ss;
    uv_tcp_getsockname(listener_, reinterpret_cast<sockaddr*>(&ss), &len);
    char host[64] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET6) {
      auto* a6 = reinterpret_cast<sockaddr_in6*>(&ss);
      uv_ip6_name(a6, host, sizeof host);
      port = ntohs(a6->sin6_port);
    } else {
      auto* a4 = reinterpret_cast<sockaddr_in*>(&ss);
      uv_ip4_name(a4, host, sizeof host);
      port = ntohs(a4->sin_port);
    }
    KLOG_INFO("metrics endpoint on http://%s%s%s:%d/metrics", ss.ss_family == AF_INET6 ? "[" : "",
              host, ss.ss_family == AF_INET6 ? "]" : "", port);
    return true;
  }

  bool on_frame(net::TlsConn*, core::Json&) override { return false; }

  void stop() override {
    if (listener_) {
      uv_close(reinterpret_cast<uv_handle_t*>(listener_),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      listener_ = nullptr;
    }
    std::unordered_set<Client*> all = clients_;
    for (Client* c : all) close_client(c);
  }

 private:
  static int on_url(http_parser* p, const char* at, size_t n) {
    Client* c = static_cast<Client*>(p->data);
    if (c->url.size() + n > kMaxUrlBytes) {
      c->too_big = true;
      return 1;
    }
    c->url.append(at, n);
    return 0;
  }

  static void on_connection(uv_stream_t* s, int status) {
    auto* self = static_cast<MetricsEndpoint*>(s->data);
    if (status < 0) return;
    auto* c = new Client;
    c->ep = self;
    uv_tcp_init(s->loop, &c->tcp);
    uv_timer_init(s->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
    self->clients_.insert(c);
    if (uv_accept(s, reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0 ||
        self->clients_.size() > kMaxClients) {
      self->close_client(c);
      return;
    }
    uv_timer_start(&c->timer, on_timeout, kRequestMs, 0);
    uv_read_start(reinterpret_cast<uv_stream_t*>(&c->tcp), on_alloc, on_read);
  }

  static void on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
    // One read is handled before the next buffer is asked for: the endpoint's buffer serves all.
    auto* self = static_cast<Client*>(h->data)->ep;
    *buf = uv_buf_init(self->buf_, sizeof self->buf_);
  }

  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
    Client* c = static_cast<Client*>(s->data);
    MetricsEndpoint* self = c->ep;
    if (n < 0) {
      // The client closed (or the connection failed): a request cut short gets no answer.
      self->close_client(c);
      return;
    }
    if (c->answered || n == 0) return;  // after the reply, input is read and dropped
    c->bytes += static_cast<size_t>(n);
    size_t used = http_parser_execute(&c->parser, &self->settings_, buf->base, n);
    (void)used;
    http_errno e = HTTP_PARSER_ERRNO(&c->parser);
    if (c->complete) {
      self->answer(c);
    } else if (c->too_big || (!c->headers_done && c->bytes > kMaxHeaderBytes)) {
      self->reply(c, 400, "Bad Request", "request too large\n");
    } else if (e != HPE_OK) {
      std::string why = std::string("malformed request: ") + http_errno_description(e) + "\n";
      self->reply(c, 400, "Bad Request", why);
    }
  }

  static void on_timeout(uv_timer_t* t) {
    Client* c = static_cast<Client*>(t->data);
    if (c->answered) {
      c->ep->close_client(c);
    } else {
      c->ep->reply(c, 408, "Request Timeout", "request not received in time\n");
    }
  }

  void answer(Client* c) {
    unsigned method = c->parser.method;
    std::string path = c->url.substr(0, c->url.find('?'));
    if (path != "/metrics") {
      reply(c, 404, "Not Found", "only /metrics is served here\n");
    } else if (method != HTTP_GET && method != HTTP_HEAD) {
      reply(c, 405, "Method Not Allowed", "use GET\n", "Allow: GET, HEAD\r\n");
    } else {
      reply(c, 200, "OK", render_metrics(*ctx_), "", kOpenMetricsType, method == HTTP_HEAD);
    }
  }

  void reply(Client* c, int code, const char* reason, const std::string& body,
             const char* extra = "", const char* type = "text/plain; charset=utf-8",
             bool head = false) {
    c->answered = true;
    char header[512];
    std::snprintf(header, sizeof header,
                  "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                  "Connection: close\r\n\r\n",
                  code, reason, type, body.size(), extra);
    c->reply = header;
    if (!head) c->reply += body;
    uv_buf_t b = uv_buf_init(c->reply.data(), static_cast<unsigned>(c->reply.size()));
    int rc = uv_write(&c->write_req, reinterpret_cast<uv_stream_t*>(&c->tcp), &b, 1,
                      [](uv_write_t* w, int status) {
                        if (status == UV_ECANCELED) return;  // closing already
                        Client* cl = static_cast<Client*>(w->handle->data);
                        if (status < 0 || uv_shutdown(&cl->shutdown_req, w->handle,
                                                      [](uv_shutdown_t*, int) {}) != 0)
                          cl->ep->close_client(cl);
                      });
    if (rc != 0) {
      close_client(c);
      return;
    }
    // The client has kLingerMs to read the reply and close its side.
    uv_timer_start(&c->timer, on_timeout, kLingerMs, 0);
  }

  void close_client(Client* c) {
    if (!clients_.erase(c)) return;  // already closing
    auto closed = [](uv_handle_t* h) {
      Client* cl = static_cast<Client*>(h->data);
      if (--cl->open_handles == 0) delete cl;
    };
    uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), closed);
    uv_close(reinterpret_cast<uv_handle_t*>(&c->timer), closed);
  }

  CmContext* ctx_;
  http_parser_settings settings_;
  uv_tcp_t* listener_ = nullptr;
  std::unordered_set<Client*> clients_;
  char buf_[4096];
};

// CM_METRICS_ADDRESS: "PORT" (on 127.0.0.1) or "HOST:PORT" with a numeric address
// ("localhost" is 127.0.0.1); unset, empty or "off": no endpoint.
bool read_address(const std::string& text, sockaddr_storage* out, std::string* err) {
  std::string host = "127.0.0.1";
  int port = -1;
  if (text.find_first_not_of("0123456789") == std::string::npos) {
    port = std::atoi(text.c_str());
  } else {
    size_t colon = text.rfind(':'), bracket = text.rfind(']');
    if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) {
      *err = "no port (write HOST:PORT, or PORT for 127.0.0.1)";
      return false;
    }
    if (!net::parse_host_port(text, &host, &port, err)) return false;
  }
  if (port < 0 || port > 65535) {
    *err = "port out of range";
    return false;
  }
  if (strcasecmp(host.c_str(), "localhost") == 0) host = "127.0.0.1";
  if (uv_ip4_addr(host.c_str(), port, reinterpret_cast<sockaddr_in*>(out)) != 0 &&
      uv_ip6_addr(host.c_str(), port, reinterpret_cast<sockaddr_in6*>(out)) != 0) {
    *err = "'" + host + "' is not a numeric address";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<CmService> make_metrics_endpoint(CmContext* ctx, std::string* err) {
  std::string text;
  if (!ctx->cfg || !ctx->cfg->get("CM_METRICS_ADDRESS", &text)) return nullptr;
  if (text.empty() || strcasecmp(text.c_str(), "off") == 0) return nullptr;
  sockaddr_storage addr{};
  if (!read_address(text, &addr, err)) {
    *err = "CM_METRICS_ADDRESS = " + text + ": " + *err;
    return nullptr;
  }
  auto ep = std::make_unique<MetricsEndpoint>(ctx);
  if (!ep->listen(reinterpret_cast<const sockaddr*>(&addr), err)) {
    *err = "metrics endpoint " + text + ": " + *err;
    ep->stop();
    return nullptr;
  }
  return ep;
}

}  // namespace kite::cm
