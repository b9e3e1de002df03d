// Sealing and opening session tickets, and keeping their keys on disk (see ticket_keys.h).
#include "agent/net/ticket_keys.h"

#include <mbedtls/platform_util.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "agent/core/files.h"
#include "agent/core/log.h"

namespace kite::net {
namespace {

// A ticket: key id (4 bytes, big-endian) | nonce (12) | the session, sealed | GCM tag (16).
// The id and nonce are authenticated with the session.
constexpr size_t kIdLen = 4, kNonceLen = 12, kTagLen = 16;
constexpr size_t kHeadLen = kIdLen + kNonceLen;
constexpr char kMagic[] = "kite-ticket-keys 1";

void put_id(unsigned char* p, uint32_t id) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(id >> (24 - 8 * i));
}

uint32_t get_id(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

std::string hex(const unsigned char* p, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

bool unhex(const char* text, unsigned char* out, size_t n) {
  auto nibble = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < n; ++i) {
    int hi = nibble(text[2 * i]), lo = hi < 0 ? -1 : nibble(text[2 * i + 1]);
    if (lo < 0) return false;
    out[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return text[2 * n] == '\0';
}

}  // namespace

int64_t TicketKeys::wall_clock() {
  return static_cast<int64_t>(std::time(nullptr));
}

TicketKeys::TicketKeys(mbedtls_ctr_drbg_context* drbg, uint32_t lifetime_s, Clock clock)
    : drbg_(drbg), lifetime_s_(lifetime_s), clock_(clock) {}

TicketKeys::~TicketKeys() = default;

TicketKeys::Key::~Key() {
  drop_key(this);
  mbedtls_gcm_free(&gcm);
}

void TicketKeys::drop_key(Key* k) {
  mbedtls_gcm_free(&k->gcm);
  mbedtls_gcm_init(&k->gcm);
  mbedtls_platform_zeroize(k->bytes, sizeof k->bytes);
  k->id = 0;
  k->created = 0;
}

bool TicketKeys::install(Key* k, uint32_t id, int64_t created, const unsigned char* bytes) {
  drop_key(k);
  if (mbedtls_gcm_setkey(&k->gcm, MBEDTLS_CIPHER_ID_AES, bytes, 256) != 0) return false;
  std::memmove(k->bytes, bytes, sizeof k->bytes);
  k->id = id;
  k->created = created;
  return true;
}

bool TicketKeys::make_key(Key* k, int64_t now) {
  unsigned char id[kIdLen], bytes[sizeof k->bytes];
  do {
    if (mbedtls_ctr_drbg_random(drbg_, id, sizeof id) != 0) return false;
  } while (get_id(id) == 0 || get_id(id) == keys_[0].id || get_id(id) == keys_[1].id);
  bool ok = mbedtls_ctr_drbg_random(drbg_, bytes, sizeof bytes) == 0 &&
            install(k, get_id(id), now, bytes);
  mbedtls_platform_zeroize(bytes, sizeof bytes);
  return ok;
}

bool TicketKeys::open(const std::string& path, std::string* err) {
  path_ = path;
  std::string why;
  bool loaded = !path_.empty() && load_file(&why);
  if (!loaded && !path_.empty()) {
    if (why.empty()) {
      KLOG_INFO("tls: no session ticket keys in %s yet: made fresh ones", path_.c_str());
    } else {
      KLOG_WARN("tls: session ticket keys %s: %s; made fresh ones (clients do full handshakes)",
                path_.c_str(), why.c_str());
    }
  }
  if (!loaded) {
    drop_key(&keys_[0]);
    drop_key(&keys_[1]);
    if (!make_key(&keys_[0], clock_())) {
      if (err) *err = "making a session ticket key: the random generator failed";
      return false;
    }
    save();
  }
  if (!rotate_if_due()) {
    if (err) *err = "rotating the session ticket key: the random generator failed";
    return false;
  }
  return true;
}

bool TicketKeys::load_file(std::string* why) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return false;  // missing: not worth a warning
  if ((st.st_mode & 077) != 0) {
    *why = "readable or writable by others (must be mode 0600)";
    return false;
  }
  std::string data, err;
  if (!core::read_file(path_, &data, &err, 4096)) {
    *why = err;
    return false;
  }
  // kMagic, then "current ID CREATED KEY" and optionally "previous ID CREATED KEY".
  Key read[2];
  int line_no = 0, n = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string::npos) nl = data.size();
    std::string line = data.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1) {
      if (line != kMagic) {
        *why = "line 1: not a ticket key file";
        break;
      }
      continue;
    }
    char label[16], id_hex[16], key_hex[80];
    long long created = 0;
    const char* want = n == 0 ? "current" : "previous";
    if (n >= 2 ||
        std::sscanf(line.c_str(), "%15s %15s %lld %79s", label, id_hex, &created, key_hex) != 4 ||
        std::strcmp(label, want) != 0) {
      *why = "line " + std::to_string(line_no) + ": expected '" + want + " ID CREATED KEY'";
      break;
    }
    unsigned char id[kIdLen];
    if (!unhex(id_hex, id, kIdLen) || get_id(id) == 0 ||
        !unhex(key_hex, read[n].bytes, sizeof read[n].bytes)) {
      *why = "line " + std::to_string(line_no) + ": a bad key id or key";
      break;
    }
    read[n].id = get_id(id);
    read[n].created = created;
    ++n;
  }
  if (why->empty() && n == 0) *why = "no current key";
  for (int i = 0; i < 2 && why->empty(); ++i) {
    drop_key(&keys_[i]);
    if (i < n && !install(&keys_[i], read[i].id, read[i].created, read[i].bytes))
      *why = "a key mbedTLS refused";
  }
  return why->empty();
}

void TicketKeys::save() {
  if (path_.empty()) return;
  std::string text = std::string(kMagic) + "\n";
  const char* labels[] = {"current", "previous"};
  for (int i = 0; i < 2; ++i) {
    if (keys_[i].id == 0) continue;
    unsigned char id[kIdLen];
    put_id(id, keys_[i].id);
    char created[32];
    std::snprintf(created, sizeof created, "%" PRId64, keys_[i].created);
    text += std::string(labels[i]) + " " + hex(id, kIdLen) + " " + created + " " +
            hex(keys_[i].bytes, sizeof keys_[i].bytes) + "\n";
  }
  std::string err;
  if (!core::write_file_atomic(path_, text, 0600, &err))
    KLOG_WARN(
        "tls: session ticket keys not saved (%s): clients will do full handshakes after a "
        "restart",
        err.c_str());
  mbedtls_platform_zeroize(&text[0], text.size());
}

bool TicketKeys::rotate_if_due() {
  int64_t now = clock_();
  // A key in the future means the clock went back: its age is unknown, so it is replaced too.
  auto due = [&](const Key& k) {
    return k.id == 0 || now < k.created || now - k.created >= static_cast<int64_t>(lifetime_s_);
  };
  if (!due(keys_[0])) return true;
  // Tickets under the current key live one more lifetime; older ones are past theirs.
  bool keep_previous = keys_[0].id != 0 && now >= keys_[0].created &&
                       now - keys_[0].created < 2 * static_cast<int64_t>(lifetime_s_);
  if (keep_previous) {
    install(&keys_[1], keys_[0].id, keys_[0].created, keys_[0].bytes);
  } else {
    drop_key(&keys_[1]);
  }
  bool ok = make_key(&keys_[0], now);
  if (ok) {
    KLOG_INFO("tls: session ticket key rotated");
    save();
  }
  return ok;
}

const TicketKeys::Key* TicketKeys::key_for(uint32_t id) const {
  for (const Key& k : keys_)
    if (k.id != 0 && k.id == id) return &k;
  return nullptr;
}

int TicketKeys::write(void* p, const mbedtls_ssl_session* session, unsigned char* start,
                      const unsigned char* end, size_t* tlen, uint32_t* lifetime) {
  auto* self = static_cast<TicketKeys*>(p);
  *tlen = 0;
  if (!self->rotate_if_due() || self->keys_[0].id == 0) return MBEDTLS_ERR_SSL_INTERNAL_ERROR;
  size_t room = static_cast<size_t>(end - start);
  if (room < kHeadLen + kTagLen) return MBEDTLS_ERR_SSL_BUFFER_TOO_SMALL;
  unsigned char* sealed = start + kHeadLen;
  size_t len = 0;
  int rc = mbedtls_ssl_session_save(session, sealed, room - kHeadLen - kTagLen, &len);
  if (rc != 0) return rc;
  const Key& k = self->keys_[0];
  put_id(start, k.id);
  if ((rc = mbedtls_ctr_drbg_random(self->drbg_, start + kIdLen, kNonceLen)) != 0) return rc;
  rc = mbedtls_gcm_crypt_and_tag(const_cast<mbedtls_gcm_context*>(&k.gcm), MBEDTLS_GCM_ENCRYPT, len,
                                 start + kIdLen, kNonceLen, start, kHeadLen, sealed, sealed,
                                 kTagLen, sealed + len);
  if (rc != 0) return rc;
  *tlen = kHeadLen + len + kTagLen;
  *lifetime = self->lifetime_s_;
  return 0;
}

int TicketKeys::parse(void* p, mbedtls_ssl_session* session, unsigned char* buf, size_t len) {
  auto* self = static_cast<TicketKeys*>(p);
  if (!self->rotate_if_due()) return MBEDTLS_ERR_SSL_INTERNAL_ERROR;
  if (len < kHeadLen + kTagLen) return MBEDTLS_ERR_SSL_BAD_INPUT_DATA;
  const Key* k = self->key_for(get_id(buf));
  if (!k) return MBEDTLS_ERR_SSL_INVALID_MAC;  // another server's, or rotated out
  size_t sealed_len = len - kHeadLen - kTagLen;
  unsigned char* sealed = buf + kHeadLen;
  if (mbedtls_gcm_auth_decrypt(const_cast<mbedtls_gcm_context*>(&k->gcm), sealed_len, buf + kIdLen,
                               kNonceLen, buf, kHeadLen, sealed + sealed_len, kTagLen, sealed,
                               sealed) != 0)
    return MBEDTLS_ERR_SSL_INVALID_MAC;
  int rc = mbedtls_ssl_session_load(session, sealed, sealed_len);
  mbedtls_platform_zeroize(sealed, sealed_len);
  if (rc != 0) return rc;
  // The lifetime counts from the full handshake that verified the peer's certificate: a
  // resumption carries that moment on, so a chain of resumptions cannot outlive it.
  int64_t now = self->clock_();
  int64_t started = static_cast<int64_t>(session->start);
  if (now < started || now - started > static_cast<int64_t>(self->lifetime_s_))
    return MBEDTLS_ERR_SSL_SESSION_TICKET_EXPIRED;
  return 0;
}

}  // namespace kite::net
