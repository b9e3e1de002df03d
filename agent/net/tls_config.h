// Where a side finds its TLS files and its peer: KITE_CA / KITE_CERT / KITE_KEY / KITE_CRL from
// the configuration, else from the environment, else (the CLI) ~/.kite/; COLLECTOR_HOST parsing.
#pragma once

#include <string>

#include "agent/net/tls_context.h"
#include "policy/config/config.h"

namespace kite::net {

inline constexpr int kDefaultCollectorPort = 9618;

/// The TLS files named by the KITE_CA, KITE_CERT, KITE_KEY and KITE_CRL configuration macros
/// (`cfg` may be null); a macro that is unset falls back to the environment variable of the
/// same name. False with a message naming what is missing.
bool tls_files_from(const config::Config* cfg, TlsFiles* out, std::string* err);

/// The user's files for the CLI: the environment variables, else ~/.kite/ca.crt,
/// ~/.kite/user.crt, ~/.kite/user.key (and ~/.kite/crl.pem when present).
TlsFiles user_tls_files();

/// "host[:port]" (IPv6 as "[addr]:port"); the port defaults to 9618. False with a message.
bool parse_host_port(const std::string& text, std::string* host, int* port, std::string* err);

}  // namespace kite::net
