// Saving and loading a client's TLS session (see session_file.h).
#include "agent/net/session_file.h"

#include <mbedtls/sha256.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "agent/core/files.h"

namespace kite::net {
namespace {

constexpr char kMagic[] = "kite-session 1 ";
constexpr size_t kMaxFile = 64 * 1024;

}  // namespace

std::string session_key(const std::string& server, const TlsFiles& files) {
  std::string text = server + '\n', content, err;
  for (const std::string* path : {&files.ca, &files.cert, &files.key}) {
    if (!core::read_file(*path, &content, &err, kMaxFile)) return "";
    text += content;
    text += '\n';
  }
  unsigned char digest[32];
  if (mbedtls_sha256_ret(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest,
                         0) != 0)
    return "";
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : digest) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

bool load_session_file(const std::string& path, const std::string& key, mbedtls_ssl_session* out) {
  struct stat st {};
  if (key.empty() || ::stat(path.c_str(), &st) != 0 || (st.st_mode & 077) != 0 ||
      st.st_uid != ::geteuid())
    return false;
  std::string data, err;
  if (!core::read_file(path, &data, &err, kMaxFile)) return false;
  std::string header = kMagic + key + '\n';
  if (data.compare(0, header.size(), header) != 0) return false;
  const auto* body = reinterpret_cast<const unsigned char*>(data.data()) + header.size();
  return mbedtls_ssl_session_load(out, body, data.size() - header.size()) == 0;
}

bool save_session_file(const std::string& path, const std::string& key,
                       const mbedtls_ssl_session& session) {
  if (key.empty()) return false;
  size_t len = 0;
  mbedtls_ssl_session_save(&session, nullptr, 0, &len);  // the size it needs
  if (len == 0 || len > kMaxFile) return false;
  std::string data = kMagic + key + '\n';
  size_t header = data.size();
  data.resize(header + len);
  if (mbedtls_ssl_session_save(&session, reinterpret_cast<unsigned char*>(&data[header]), len,
                               &len) != 0)
    return false;
  data.resize(header + len);
  std::string err;
  return core::write_file_atomic(path, data, 0600, &err, core::Durability::kProcessCrash);
}

}  // namespace kite::net
