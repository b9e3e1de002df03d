// Socket address helpers for the transport: numeric IPv4/IPv6 text to sockaddr, and back.
#pragma once

#include <sys/socket.h>

#include <string>

namespace kite::net {

/// "127.0.0.1", "::1", "0.0.0.0"; "localhost" is taken as 127.0.0.1. False for other names.
bool numeric_sockaddr(const std::string& host, int port, sockaddr_storage* out);
int sockaddr_port(const sockaddr_storage& ss);

}  // namespace kite::net
