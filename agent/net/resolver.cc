// c-ares driven by libuv (see resolver.h).
#include "agent/net/resolver.h"

#include <ares.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace kite::net {

// One name being looked up: A first, then AAAA. Freed by c-ares' last callback; `owner` is
// cleared when the lookup is dropped, so a late answer goes nowhere.
struct Resolver::Lookup {
  Resolver* owner;
  std::string name;
  int port;
  bool ipv6 = false;
  Done done;
};

// A socket c-ares asked to be watched, with its poll handle (freed once closed).
struct Resolver::Watch {
  uv_poll_t poll;
  int fd;
  Resolver* owner;
  Watch* next;
};

namespace {

constexpr int kTimeoutMs = 3000;

bool library_ready() {
  static const int rc = ares_library_init(ARES_LIB_INIT_ALL);
  return rc == ARES_SUCCESS;
}

}  // namespace

Resolver::Resolver(uv_loop_t* loop, std::string servers)
    : loop_(loop), servers_(std::move(servers)) {}

Resolver::~Resolver() {
  cancel();
  if (channel_) ares_destroy(channel_);  // answers ARES_EDESTRUCTION to nobody now
  for (Watch* w = watches_; w;) {
    Watch* next = w->next;
    uv_close(reinterpret_cast<uv_handle_t*>(&w->poll),
             [](uv_handle_t* h) { delete reinterpret_cast<Watch*>(h->data); });
    w = next;
  }
  if (timer_)
    uv_close(reinterpret_cast<uv_handle_t*>(timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

bool Resolver::ensure_channel(std::string* err) {
  if (channel_) return true;
  if (!library_ready()) {
    *err = "the DNS resolver (c-ares) did not initialise";
    return false;
  }
  ares_options opts{};
  opts.sock_state_cb = [](void* self, ares_socket_t fd, int r, int w) {
    on_sock_state(self, static_cast<int>(fd), r, w);
  };
  opts.sock_state_cb_data = this;
  // A dead server costs 3 s, then 6 s for the second try (c-ares doubles), not c-ares' default
  // of about a minute: the caller's reconnect backoff does the waiting after that.
  opts.timeout = kTimeoutMs;
  opts.tries = 2;
  int rc = ares_init_options(&channel_, &opts,
                             ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES);
  if (rc != ARES_SUCCESS) {
    channel_ = nullptr;
    *err = std::string("DNS resolver: ") + ares_strerror(rc);
    return false;
  }
  if (!servers_.empty() && (rc = ares_set_servers_ports_csv(channel_, servers_.c_str())) != 0) {
    *err = "DNS servers '" + servers_ + "': " + ares_strerror(rc);
    ares_destroy(channel_);
    channel_ = nullptr;
    return false;
  }
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  return true;
}

void Resolver::resolve(const std::string& name, int port, Done done) {
  cancel();
  auto* l = new Lookup{this, name, port, false, std::move(done)};
  current_ = l;
  std::string err;
  if (!ensure_channel(&err)) {
    // Answered on the next loop turn, as every answer is.
    auto* t = new uv_timer_t;
    uv_timer_init(loop_, t);
    struct Late {
      Lookup* l;
      std::string err;
    };
    t->data = new Late{l, err};
    uv_timer_start(
        t,
        [](uv_timer_t* h) {
          auto* late = static_cast<Late*>(h->data);
          sockaddr_storage none{};
          if (late->l->owner) late->l->owner->finish(late->l, false, none, late->err);
          delete late->l;
          delete late;
          uv_close(reinterpret_cast<uv_handle_t*>(h),
                   [](uv_handle_t* x) { delete reinterpret_cast<uv_timer_t*>(x); });
        },
        0, 0);
    return;
  }
  ares_search(channel_, name.c_str(), 1 /* C_IN */, 1 /* T_A */, on_answer, l);
  arm_timer();
}

void Resolver::cancel() {
  if (current_) current_->owner = nullptr;
  current_ = nullptr;
}

void Resolver::finish(Lookup* l, bool ok, const sockaddr_storage& addr, const std::string& err) {
  if (current_ == l) current_ = nullptr;
  l->owner = nullptr;
  Done done = std::move(l->done);
  done(ok, addr, err);  // may start another lookup
}

void Resolver::on_answer(void* arg, int status, int, unsigned char* abuf, int alen) {
  auto* l = static_cast<Lookup*>(arg);
  Resolver* self = l->owner;
  if (!self || status == ARES_EDESTRUCTION || status == ARES_ECANCELLED) {
    delete l;
    return;
  }
  sockaddr_storage ss{};
  if (status == ARES_SUCCESS && !l->ipv6) {
    ares_addrttl a[1];
    int n = 1;
    if (ares_parse_a_reply(abuf, alen, nullptr, a, &n) == ARES_SUCCESS && n > 0) {
      auto* in = reinterpret_cast<sockaddr_in*>(&ss);
      in->sin_family = AF_INET;
      in->sin_port = htons(static_cast<uint16_t>(l->port));
      in->sin_addr = a[0].ipaddr;
      self->finish(l, true, ss, "");
      delete l;
      return;
    }
  } else if (status == ARES_SUCCESS) {
    ares_addr6ttl a[1];
    int n = 1;
    if (ares_parse_aaaa_reply(abuf, alen, nullptr, a, &n) == ARES_SUCCESS && n > 0) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons(static_cast<uint16_t>(l->port));
      std::memcpy(&in6->sin6_addr, &a[0].ip6addr, sizeof in6->sin6_addr);
      self->finish(l, true, ss, "");
      delete l;
      return;
    }
  }
  if (!l->ipv6 && status != ARES_ETIMEOUT && status != ARES_ECONNREFUSED) {
    l->ipv6 = true;  // no IPv4 address: try IPv6
    ares_search(self->channel_, l->name.c_str(), 1 /* C_IN */, 28 /* T_AAAA */, on_answer, l);
    self->arm_timer();
    return;
  }
  self->finish(l, false, ss,
               std::string("DNS lookup of ") + l->name + ": " +
                   (status == ARES_SUCCESS ? "no address" : ares_strerror(status)));
  delete l;
}

void Resolver::arm_timer() {
  if (!channel_ || !timer_) return;
  timeval tv{};
  timeval* next = ares_timeout(channel_, nullptr, &tv);
  if (!next) {
    uv_timer_stop(timer_);
    return;
  }
  uint64_t ms = static_cast<uint64_t>(next->tv_sec) * 1000 + next->tv_usec / 1000 + 1;
  uv_timer_start(
      timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Resolver*>(t->data);
        ares_process_fd(self->channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
        self->arm_timer();
      },
      ms, 0);
}

void Resolver::on_sock_state(void* arg, int fd, int readable, int writable) {
  auto* self = static_cast<Resolver*>(arg);
  Watch** link = &self->watches_;
  while (*link && (*link)->fd != fd) link = &(*link)->next;
  Watch* w = *link;
  if (!readable && !writable) {
    if (!w) return;
    *link = w->next;
    uv_poll_stop(&w->poll);
    uv_close(reinterpret_cast<uv_handle_t*>(&w->poll),
             [](uv_handle_t* h) { delete reinterpret_cast<Watch*>(h->data); });
    return;
  }
  if (!w) {
    w = new Watch{};
    w->fd = fd;
    w->owner = self;
    w->next = self->watches_;
    if (uv_poll_init_socket(self->loop_, &w->poll, fd) != 0) {
      delete w;
      return;
    }
    w->poll.data = w;
    self->watches_ = w;
  }
  int events = (readable ? UV_READABLE : 0) | (writable ? UV_WRITABLE : 0);
  uv_poll_start(&w->poll, events, [](uv_poll_t* p, int status, int ev) {
    auto* watch = static_cast<Watch*>(p->data);
    Resolver* r = watch->owner;
    int fd = watch->fd;
    bool err = status < 0;
    ares_process_fd(r->channel_, (err || (ev & UV_READABLE)) ? fd : ARES_SOCKET_BAD,
                    (err || (ev & UV_WRITABLE)) ? fd : ARES_SOCKET_BAD);
    r->arm_timer();
  });
}

}  // namespace kite::net
