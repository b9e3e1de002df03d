// Keeping the central manager's collectors up to date with this node's slot ads.
#include "agent/startd/collector_link.h"

#include <functional>

#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/net/tls_config.h"
#include "policy/config/typed.h"

namespace kite::agent {

namespace {

std::string endpoint_of(const net::ClientOptions& o) {
  return o.host + ":" + std::to_string(o.port);
}

}  // namespace

bool CollectorLink::read_settings(const config::Config& cfg, const std::string& machine,
                                  CollectorSettings* out, std::string* err) {
  *out = CollectorSettings{};
  std::string hosts;
  cfg.get("COLLECTOR_HOST", &hosts);
  int64_t interval = 300;
  config::Status st = config::read_int(cfg, "UPDATE_INTERVAL", &interval, nullptr, 1);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  out->interval_ms = static_cast<uint64_t>(interval) * 1000;
  // Several collectors (comma or space separated) for high availability: each hears everything.
  size_t pos = 0;
  while ((pos = hosts.find_first_not_of(" \t,", pos)) != std::string::npos) {
    size_t end = hosts.find_first_of(" \t,", pos);
    std::string one = hosts.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end;
    net::ClientOptions o;
    if (!net::parse_host_port(one, &o.host, &o.port, err)) {
      *err = "COLLECTOR_HOST: " + *err;
      return false;
    }
    o.conn.name = machine;
    o.backoff_min_ms = 200;
    o.backoff_max_ms = 2000;  // a restarted CM hears the whole fleet again within seconds
    bool dup = false;
    for (const net::ClientOptions& known : out->collectors)
      dup = dup || endpoint_of(known) == endpoint_of(o);
    if (!dup) out->collectors.push_back(std::move(o));
  }
  if (out->collectors.empty()) return true;
  net::TlsFiles files;
  if (!net::tls_files_from(&cfg, &files, err)) return false;
  out->tls = net::TlsContext::load(net::TlsContext::Role::kClient, files, err);
  if (!out->tls) return false;
  // What tells a certificate change: the paths and what the files hold now (a renewed
  // certificate keeps its path).
  for (const std::string* path : {&files.ca, &files.cert, &files.key, &files.crl}) {
    std::string text, ignored;
    if (!path->empty()) core::read_file(*path, &text, &ignored);
    out->tls_fingerprint += *path + "\n" + std::to_string(std::hash<std::string>{}(text)) + "\n";
  }
  return true;
}

std::unique_ptr<CollectorLink> CollectorLink::create(uv_loop_t* loop, const config::Config& cfg,
                                                     const std::string& machine, AdSource* source,
                                                     std::string* err) {
  CollectorSettings settings;
  if (!read_settings(cfg, machine, &settings, err) || settings.collectors.empty()) return nullptr;
  std::unique_ptr<CollectorLink> link(new CollectorLink(loop, source));
  link->apply(std::move(settings));
  return link;
}

void CollectorLink::apply(CollectorSettings settings) {
  bool new_tls = settings.tls && settings.tls_fingerprint != tls_fingerprint_;
  for (auto it = peers_.begin(); it != peers_.end();) {
    bool kept = false;
    for (const net::ClientOptions& o : settings.collectors)
      kept = kept || endpoint_of(o) == it->endpoint;
    if (kept && !new_tls) {
      ++it;
      continue;
    }
    KLOG_INFO("collector: leaving %s (%s)", it->endpoint.c_str(),
              kept ? "new certificates" : "no longer in COLLECTOR_HOST");
    drop(&*it, !kept);
    it = peers_.erase(it);
  }
  if (new_tls) {
    if (tls_) retired_tls_.push_back(std::move(tls_));
    tls_ = std::move(settings.tls);
    tls_fingerprint_ = settings.tls_fingerprint;
  }
  for (net::ClientOptions& o : settings.collectors) {
    std::string endpoint = endpoint_of(o);
    bool known = false;
    for (const Peer& p : peers_) known = known || p.endpoint == endpoint;
    if (known) continue;
    Peer p;
    p.endpoint = endpoint;
    net::NetClientHandler* h = this;
    p.client = std::make_unique<net::NetClient>(loop_, tls_.get(), h, std::move(o));
    peers_.push_back(std::move(p));
    peers_.back().client->start();
  }
  if (!timer_) {
    timer_ = new uv_timer_t;
    uv_timer_init(loop_, timer_);
    timer_->data = this;
  }
  if (settings.interval_ms != interval_ms_) {
    interval_ms_ = settings.interval_ms;
    uv_timer_start(
        timer_, [](uv_timer_t* t) { static_cast<CollectorLink*>(t->data)->publish(true); },
        interval_ms_, interval_ms_);
  }
}

void CollectorLink::drop(Peer* p, bool invalidate) {
  // A node that leaves a collector takes its ads away (flushed before the connection closes).
  if (invalidate) {
    for (const auto& sent : p->sent) {
      core::Json m = core::Json::message("invalidate");
      m.set("ad_type", "Machine").set("name", sent.first);
      p->client->send(m);
    }
  }
  p->sent.clear();
  if (p->client->conn()) closing_.push_back(p->client->conn());
  if (sink_ && p->client->connected()) sink_->cm_disconnected(p->client.get());
  p->client->stop();
}

CollectorLink::~CollectorLink() {
  close();
}

void CollectorLink::close() {
  for (Peer& p : peers_) drop(&p, true);
  peers_.clear();
  if (timer_) {
    uv_close(reinterpret_cast<uv_handle_t*>(timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    timer_ = nullptr;
  }
}

bool CollectorLink::closing_handle(const uv_handle_t* h) const {
  for (const void* c : closing_)
    if (h->data == c) return true;
  return false;
}

void CollectorLink::publish(bool all) {
  bool any = false;
  for (const Peer& p : peers_) any = any || p.client->connected();
  if (!any) return;  // each connection sends everything once it is up
  std::map<std::string, std::string> ads = source_->current_ads();
  for (Peer& p : peers_) publish_to(&p, ads, all);
}

void CollectorLink::publish_to(Peer* p, const std::map<std::string, std::string>& ads, bool all) {
  if (!p->client->connected()) return;
  for (const auto& [name, text] : ads) {
    auto it = p->sent.find(name);
    if (!all && it != p->sent.end() && it->second.whole == std::hash<std::string>{}(text)) continue;
    AdDigest now = digest_ad(text);
    // Between full updates only what changed travels; a removed attribute needs the whole ad.
    std::string delta = !all && it != p->sent.end() ? ad_delta(it->second, now, text) : "";
    core::Json m = core::Json::message("update");
    m.set("ad_type", "Machine").set("ad", delta.empty() ? text : delta);
    if (!delta.empty()) m.set_bool("merge", true);
    if (p->client->send(m)) p->sent[name] = std::move(now);
  }
  for (auto it = p->sent.begin(); it != p->sent.end();) {
    if (ads.count(it->first)) {
      ++it;
      continue;
    }
    core::Json m = core::Json::message("invalidate");
    m.set("ad_type", "Machine").set("name", it->first);
    p->client->send(m);
    it = p->sent.erase(it);
  }
}

int CollectorLink::send_now(const std::map<std::string, std::string>& ads) {
  int reached = 0;
  for (Peer& p : peers_) {
    if (!p.client->connected()) continue;
    bool all = true;
    for (const auto& [name, text] : ads) {
      core::Json m = core::Json::message("update");
      m.set("ad_type", "Machine").set("ad", text);
      if (p.client->send(m)) {
        p.sent[name] = digest_ad(text);
      } else {
        all = false;
      }
    }
    if (all) ++reached;
  }
  return reached;
}

CollectorLink::Peer* CollectorLink::peer_of(net::NetClient* c) {
  for (Peer& p : peers_)
    if (p.client.get() == c) return &p;
  return nullptr;
}

void CollectorLink::on_connected(net::NetClient* c) {
  KLOG_INFO("collector: connected to %s", c->conn() ? c->conn()->address().c_str() : "?");
  Peer* p = peer_of(c);
  if (!p) return;
  p->sent.clear();  // a new connection (maybe a restarted CM): send every ad
  publish_to(p, source_->current_ads(), true);
  if (sink_) sink_->cm_connected(c);
}

bool CollectorLink::on_frame(net::NetClient* c, core::Json& msg) {
  // The collector answers only refusals (already logged by the transport).
  if (msg.type() == "error") return true;
  if (!sink_) return false;
  sink_->cm_frame(c, msg);
  return true;
}

void CollectorLink::on_disconnected(net::NetClient* c, const std::string& why) {
  KLOG_WARN("collector: connection lost or refused: %s", why.c_str());
  if (sink_) sink_->cm_disconnected(c);
}

bool CollectorLink::send(net::NetClient* cm, const core::Json& msg) {
  return peer_of(cm) && cm->connected() && cm->send(msg);
}

}  // namespace kite::agent
