// Keeping the central manager's collectors up to date with this node's slot ads.
#include "agent/startd/collector_link.h"

#include <functional>

#include "agent/core/log.h"
#include "agent/net/tls_config.h"
#include "policy/config/typed.h"

namespace kite::agent {

std::unique_ptr<CollectorLink> CollectorLink::create(uv_loop_t* loop, const config::Config& cfg,
                                                     const std::string& machine, AdSource* source,
                                                     std::string* err) {
  std::string hosts;
  if (!cfg.get("COLLECTOR_HOST", &hosts) || hosts.find_first_not_of(" \t,") == std::string::npos)
    return nullptr;
  int64_t interval = 300;
  config::Status st = config::read_int(cfg, "UPDATE_INTERVAL", &interval, nullptr, 1);
  if (!st.ok) {
    *err = st.message;
    return nullptr;
  }
  net::TlsFiles files;
  if (!net::tls_files_from(&cfg, &files, err)) return nullptr;
  std::unique_ptr<CollectorLink> link(new CollectorLink(loop, source));
  link->tls_ = net::TlsContext::load(net::TlsContext::Role::kClient, files, err);
  if (!link->tls_) return nullptr;
  // Several collectors (comma or space separated) for high availability: each hears everything.
  size_t pos = 0;
  while ((pos = hosts.find_first_not_of(" \t,", pos)) != std::string::npos) {
    size_t end = hosts.find_first_of(" \t,", pos);
    std::string one = hosts.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end;
    net::ClientOptions o;
    if (!net::parse_host_port(one, &o.host, &o.port, err)) {
      *err = "COLLECTOR_HOST: " + *err;
      return nullptr;
    }
    o.conn.name = machine;
    o.backoff_min_ms = 200;
    o.backoff_max_ms = 2000;  // a restarted CM hears the whole fleet again within seconds
    Peer p;
    net::NetClientHandler* h = link.get();
    p.client = std::make_unique<net::NetClient>(loop, link->tls_.get(), h, o);
    link->peers_.push_back(std::move(p));
  }
  for (Peer& p : link->peers_) p.client->start();
  link->timer_ = new uv_timer_t;
  uv_timer_init(loop, link->timer_);
  link->timer_->data = link.get();
  uint64_t ms = static_cast<uint64_t>(interval) * 1000;
  uv_timer_start(
      link->timer_, [](uv_timer_t* t) { static_cast<CollectorLink*>(t->data)->publish(true); }, ms,
      ms);
  return link;
}

CollectorLink::~CollectorLink() {
  close();
}

void CollectorLink::close() {
  for (Peer& p : peers_) {
    // A node that shuts down takes its ads away (flushed before the connection closes).
    for (const auto& sent : p.sent) {
      core::Json m = core::Json::message("invalidate");
      m.set("ad_type", "Machine").set("name", sent.first);
      p.client->send(m);
    }
    if (p.client->conn()) closing_.push_back(p.client->conn());
    p.client->stop();
  }
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
    size_t hash = std::hash<std::string>{}(text);
    auto it = p->sent.find(name);
    if (!all && it != p->sent.end() && it->second == hash) continue;
    core::Json m = core::Json::message("update");
    m.set("ad_type", "Machine").set("ad", text);
    if (p->client->send(m)) p->sent[name] = hash;
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
        p.sent[name] = std::hash<std::string>{}(text);
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
