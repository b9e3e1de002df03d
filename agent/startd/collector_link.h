// The agent's side of the central manager: one NetClient per COLLECTOR_HOST entry, the slot
// ads sent whole after each (re)connect and every UPDATE_INTERVAL, and in between only their
// changed attributes (merges) when they change; slots that went away invalidated.
#pragma once

#include <uv.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/net/client.h"
#include "agent/startd/ad_delta.h"
#include "policy/config/config.h"

namespace kite::agent {

/// Where the link gets the ads: slot name -> the ad's JSON text (ad_json's form).
class AdSource {
 public:
  virtual ~AdSource() = default;
  virtual std::map<std::string, std::string> current_ads() = 0;
};

/// Where the link hands frames from a central manager that are not the collector's (claims,
/// commands), and tells when a CM connection comes and goes. Replies go back with
/// CollectorLink::send to the same `cm`.
class CmFrameSink {
 public:
  virtual ~CmFrameSink() = default;
  virtual void cm_frame(net::NetClient* cm, core::Json& msg) = 0;
  virtual void cm_connected(net::NetClient* cm) { (void)cm; }
  virtual void cm_disconnected(net::NetClient* cm) { (void)cm; }
};

/// What the link is configured from: COLLECTOR_HOST, UPDATE_INTERVAL and the TLS files, read
/// (and the TLS context loaded) before anything changes, so a reconfig that does not read
/// leaves the running connections alone.
struct CollectorSettings {
  std::vector<net::ClientOptions> collectors;  // one per COLLECTOR_HOST entry; empty: none
  uint64_t interval_ms = 300000;
  std::unique_ptr<net::TlsContext> tls;  // null when there are no collectors
  std::string tls_fingerprint;           // the TLS files' paths and contents
};

class CollectorLink final : private net::NetClientHandler {
 public:
  /// Reads the link's settings from `cfg` (`machine`: the name the connections carry). False
  /// with `err` when COLLECTOR_HOST, UPDATE_INTERVAL or the TLS files do not read.
  static bool read_settings(const config::Config& cfg, const std::string& machine,
                            CollectorSettings* out, std::string* err);
  /// Null (and no error) when COLLECTOR_HOST is unset: the agent runs alone. Null with `err`
  /// when it is set but the TLS files or the host do not read.
  static std::unique_ptr<CollectorLink> create(uv_loop_t* loop, const config::Config& cfg,
                                               const std::string& machine, AdSource* source,
                                               std::string* err);
  /// A reconfig: collectors no longer named are left (their ads invalidated there first), new
  /// ones dialled, the others keep their connection unless the TLS files changed (then every
  /// collector is dialled again with the new certificates).
  void apply(CollectorSettings settings);
  /// How many collectors the link talks to (connected or not).
  size_t collectors() const { return peers_.size(); }
  ~CollectorLink() override;
  /// Sends the ads that changed since the last send (all of them when `all`).
  void publish(bool all);
  /// Sends `ads` (slot name -> JSON text) to every connected collector at once, in place of
  /// those slots' ads (a node about to sleep sends its offline ads); how many collectors took
  /// them. The next publish() sends the slots' own ads again.
  int send_now(const std::map<std::string, std::string>& ads);
  /// Frames other than the collector's go to `sink` (not owned; null: refused as unknown).
  void set_sink(CmFrameSink* sink) { sink_ = sink; }
  /// Sends one frame to the central manager `cm`; false when it is not connected.
  bool send(net::NetClient* cm, const core::Json& msg);
  /// Stops every connection and the timer (before the loop's handles are walked).
  void close();
  /// A handle of a connection close() left closing (the walk that frees handles skips it).
  bool closing_handle(const uv_handle_t* h) const;

 private:
  struct Peer {
    std::string endpoint;  // "host:port" as configured
    std::unique_ptr<net::NetClient> client;
    // Hashes of what this collector holds of each ad, by name: enough to tell a change and
    // which attributes to send as a merge; the agent keeps no second copy of every slot ad.
    std::map<std::string, AdDigest> sent;
  };
  CollectorLink(uv_loop_t* loop, AdSource* source) : loop_(loop), source_(source) {}
  /// Stops the peer's connection and tells the sink; `invalidate`: this node's ads there are
  /// invalidated first (not when the same collector is dialled again at once).
  void drop(Peer* p, bool invalidate);
  void publish_to(Peer* p, const std::map<std::string, std::string>& ads, bool all);
  Peer* peer_of(net::NetClient* c);
  void on_connected(net::NetClient* c) override;
  bool on_frame(net::NetClient* c, core::Json& msg) override;
  void on_disconnected(net::NetClient* c, const std::string& why) override;

  uv_loop_t* loop_;
  AdSource* source_;
  CmFrameSink* sink_ = nullptr;
  std::unique_ptr<net::TlsContext> tls_;
  std::string tls_fingerprint_;
  // Contexts replaced by a reconfig: connections still closing may use them.
  std::vector<std::unique_ptr<net::TlsContext>> retired_tls_;
  uint64_t interval_ms_ = 0;
  std::vector<Peer> peers_;
  uv_timer_t* timer_ = nullptr;
  std::vector<const void*> closing_;  // connections close() stopped
};

}  // namespace kite::agent
