// Name lookup in /etc/hosts, the resolver the static image has until c-ares is built in: glibc's
// getaddrinfo would go through NSS, which a static program cannot load.
#pragma once

#include <sys/socket.h>

#include <string>

namespace kite::net {

/// The first address `hosts_file` gives `name` (case ignored, canonical name or alias), with
/// `port`. False when the file does not name it or cannot be read.
bool hosts_file_lookup(const std::string& name, int port, sockaddr_storage* out,
                       const char* hosts_file = "/etc/hosts");

}  // namespace kite::net
