// DNS name resolution on the libuv loop through c-ares, which reads /etc/resolv.conf and speaks
// DNS itself: no glibc NSS, so it works in the static node image, and the loop never blocks on
// a lookup (c-ares' sockets are watched with uv_poll, its timeouts with a uv_timer).
#pragma once

#include <sys/socket.h>
#include <uv.h>

#include <functional>
#include <string>

struct ares_channeldata;

namespace kite::net {

class Resolver {
 public:
  /// The answer: an address with the port filled in, or a message (ok false).
  using Done = std::function<void(bool ok, const sockaddr_storage& addr, const std::string& err)>;

  /// `servers`: "host:port,..." to ask instead of /etc/resolv.conf's (tests); empty: the system's.
  explicit Resolver(uv_loop_t* loop, std::string servers = "");
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  /// Looks `name` up (A, then AAAA when it has no IPv4 address); `done` runs later on the loop,
  /// never inside this call, and never after cancel() or the destructor.
  void resolve(const std::string& name, int port, Done done);
  /// Drops the lookup in flight (its `done` is not called).
  void cancel();

 private:
  struct Lookup;
  struct Watch;
  bool ensure_channel(std::string* err);
  void arm_timer();
  void finish(Lookup* l, bool ok, const sockaddr_storage& addr, const std::string& err);
  static void on_sock_state(void* self, int fd, int readable, int writable);
  static void on_answer(void* arg, int status, int timeouts, unsigned char* abuf, int alen);

  uv_loop_t* loop_;
  std::string servers_;
  ares_channeldata* channel_ = nullptr;
  uv_timer_t* timer_ = nullptr;
  Watch* watches_ = nullptr;  // one uv_poll per c-ares socket
  Lookup* current_ = nullptr;
};

}  // namespace kite::net
