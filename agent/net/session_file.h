// A client's TLS session kept in a file between commands (the CLI's ticket, 0600 next to the
// user's certificate), so the next command resumes it instead of paying a full handshake.
// A missing, foreign, corrupt or expired file only costs that full handshake.
#pragma once

#include <mbedtls/ssl.h>

#include <string>

#include "agent/net/tls_context.h"

namespace kite::net {

/// What a saved session is good for: the server's address and the TLS files' contents (a new
/// CA, certificate or key makes old sessions useless). Hex text; empty when a file is unreadable.
std::string session_key(const std::string& server, const TlsFiles& files);

/// Reads the session saved for `key` at `path` into `out` (initialised by the caller). False
/// when the file is missing, readable by others, saved for another key, or corrupt.
bool load_session_file(const std::string& path, const std::string& key, mbedtls_ssl_session* out);

/// Replaces the file atomically (mode 0600). False on failure: the caller carries on without.
bool save_session_file(const std::string& path, const std::string& key,
                       const mbedtls_ssl_session& session);

}  // namespace kite::net
