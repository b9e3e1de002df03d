// A TLS server's session-ticket keys: tickets sealed with AES-256-GCM under a key kept in the
// server's state directory (mode 0600, replaced atomically), so a fleet reconnecting after a
// restart resumes its sessions instead of paying a full handshake each. The key rotates once
// per ticket lifetime and the previous one still opens tickets for one more lifetime. A
// missing, corrupt or group/other-readable file means fresh keys (logged). Tickets under a key
// this server never had (another pool's, a rotated-out one) and expired tickets are refused,
// which mbedTLS turns into a full handshake.
#pragma once

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/gcm.h>
#include <mbedtls/ssl.h>

#include <cstdint>
#include <string>

namespace kite::net {

class TicketKeys {
 public:
  using Clock = int64_t (*)();  // Unix seconds
  static int64_t wall_clock();

  TicketKeys(mbedtls_ctr_drbg_context* drbg, uint32_t lifetime_s, Clock clock = wall_clock);
  ~TicketKeys();
  TicketKeys(const TicketKeys&) = delete;
  TicketKeys& operator=(const TicketKeys&) = delete;

  /// Takes the keys from `path` (empty: keep them in memory only), making and writing fresh
  /// ones when it is missing, unusable or due for rotation. False when no key could be made;
  /// a file that cannot be written is only logged (tickets then die with the process).
  bool open(const std::string& path, std::string* err);

  /// mbedtls_ssl_ticket_write_t and mbedtls_ssl_ticket_parse_t, `p` being a TicketKeys.
  static int write(void* p, const mbedtls_ssl_session* session, unsigned char* start,
                   const unsigned char* end, size_t* tlen, uint32_t* lifetime);
  static int parse(void* p, mbedtls_ssl_session* session, unsigned char* buf, size_t len);

  /// The key tickets are sealed with now, and the one before it (0: none).
  uint32_t current_id() const { return keys_[0].id; }
  uint32_t previous_id() const { return keys_[1].id; }

 private:
  struct Key {
    Key() { mbedtls_gcm_init(&gcm); }
    ~Key();
    Key(const Key&) = delete;
    Key& operator=(const Key&) = delete;
    uint32_t id = 0;  // 0: no key
    int64_t created = 0;
    unsigned char bytes[32] = {};
    mbedtls_gcm_context gcm;
  };
  bool make_key(Key* k, int64_t now);
  static void drop_key(Key* k);
  /// Sets `k` to `id`, `created`, `bytes` and readies its cipher; false (and no key) on failure.
  static bool install(Key* k, uint32_t id, int64_t created, const unsigned char* bytes);
  bool rotate_if_due();
  bool load_file(std::string* why);
  void save();
  const Key* key_for(uint32_t id) const;

  mbedtls_ctr_drbg_context* drbg_;
  uint32_t lifetime_s_;
  Clock clock_;
  std::string path_;
  Key keys_[2];  // [0] current, [1] previous
};

}  // namespace kite::net
