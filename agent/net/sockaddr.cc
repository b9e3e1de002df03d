// Numeric socket addresses (see sockaddr.h).
#include "agent/net/sockaddr.h"

#include <uv.h>

namespace kite::net {

bool numeric_sockaddr(const std::string& host, int port, sockaddr_storage* out) {
  const std::string h = host == "localhost" ? "127.0.0.1" : host;
  if (uv_ip4_addr(h.c_str(), port, reinterpret_cast<sockaddr_in*>(out)) == 0) return true;
  return uv_ip6_addr(h.c_str(), port, reinterpret_cast<sockaddr_in6*>(out)) == 0;
}

int sockaddr_port(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(ss).sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(ss).sin6_port);
  return 0;
}

}  // namespace kite::net
