// The collector's frames: who may send them and what they do to the ad store.
#include "agent/cm/collector_server.h"

#include <strings.h>
#include <unistd.h>

#include <ctime>

#include "agent/core/ad_json.h"
#include "agent/core/ad_rows.h"
#include "agent/core/log.h"
#include "policy/classad/json.h"

namespace kite::cm {
namespace {

int64_t now_s() {
  return static_cast<int64_t>(std::time(nullptr));
}

// Replies to a query carry the ads as JSON texts, split so no frame nears the 1 MiB cap.
constexpr size_t kReplyBytes = 512 * 1024;
// Rows go in smaller frames: the client reads each while the next is written.
constexpr size_t kRowFrameBytes = 64 * 1024;
// A query examines ads in chunks for up to kQueryTurnNs per loop turn, then updates get their
// turn: a scan of 10,000 ads ends in a turn or two instead of one chunk per turn, each turn
// behind thousands of connections' updates.
constexpr size_t kQueryChunk = 500;
constexpr uint64_t kQueryTurnNs = 2000000;
constexpr uint64_t kArrivalWindowNs = 10000000;
// Ads the collector holds at most: an agent may advertise any number of names for its own
// machine, so the store is bounded as a whole (10x the 10,000-ad fleet the benchmarks use).
constexpr size_t kMaxAds = 100000;

// A row for an ad that does not fit one: its projection's JSON text.
void append_projection_json(std::string* out, const classad::ClassAd& ad,
                            const std::vector<std::string>& attrs) {
  core::append_json_row(out, classad::classad_to_json(*collector::project(ad, attrs), false));
}

policy::AuthSubject subject_of(const net::TlsConn* c) {
  return {c->peer().cn, c->peer().role, c->peer().sans};
}

}  // namespace

CollectorServer::CollectorServer(uv_loop_t* loop, std::unique_ptr<net::TlsContext> tls,
                                 CollectorOptions opts)
    : loop_(loop),
      tls_(std::move(tls)),
      opts_(std::move(opts)),
      store_(std::move(opts_.store)),
      server_(loop, tls_.get(), this, net::ConnOptions{"collector"}) {}

CollectorServer::~CollectorServer() {
  stop();
}

bool CollectorServer::start(std::string* err) {
  if (!opts_.persist_path.empty() && ::access(opts_.persist_path.c_str(), F_OK) == 0) {
    std::string e;
    if (!store_.load(opts_.persist_path, now_s(), &e)) {
      *err = "saved ads " + opts_.persist_path + ": " + e;
      return false;
    }
    if (store_.size()) KLOG_INFO("collector: %zu saved ad(s) loaded", store_.size());
  }
  if (!server_.listen(opts_.host, opts_.port, err)) return false;
  query_idle_ = new uv_idle_t;
  uv_idle_init(loop_, query_idle_);
  query_idle_->data = this;
  expire_timer_ = new uv_timer_t;
  uv_timer_init(loop_, expire_timer_);
  expire_timer_->data = this;
  uv_timer_start(expire_timer_, on_expire_timer, opts_.expire_every_ms, opts_.expire_every_ms);
  KLOG_INFO("collector listening on %s:%d", opts_.host.c_str(), server_.port());
  return true;
}

void CollectorServer::stop() {
  server_.stop();
  running_.clear();
  if (query_idle_) {
    uv_close(reinterpret_cast<uv_handle_t*>(query_idle_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
    query_idle_ = nullptr;
  }
  if (expire_timer_) {
    uv_close(reinterpret_cast<uv_handle_t*>(expire_timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    expire_timer_ = nullptr;
  }
}

void CollectorServer::on_expire_timer(uv_timer_t* t) {
  auto* self = static_cast<CollectorServer*>(t->data);
  size_t n = self->store_.expire(now_s());
  // Kept rows of projections no query asked for in a minute are given back.
  self->row_cache_.drop_idle(now_s() - 60);
  if (n) KLOG_INFO("collector: %zu ad(s) expired", n);
  self->persist();
}

void CollectorServer::persist() {
  if (opts_.persist_path.empty() || !store_.persistent_dirty()) return;
  std::string err;
  if (!store_.save(opts_.persist_path, &err)) {
    KLOG_ERROR("collector: cannot save ads to %s: %s", opts_.persist_path.c_str(), err.c_str());
  }
}

void CollectorServer::on_ready(net::TlsConn* c) {
  KLOG_INFO("collector: %s/%s connected from %s", c->peer().role.c_str(), c->peer().cn.c_str(),
            c->address().c_str());
}

void CollectorServer::on_closed(net::TlsConn* c, const std::string& why) {
  // Not erased here: run_queries may be sending to this connection (a failed send closes it).
  for (Running& r : running_)
    if (r.conn == c) r.conn = nullptr;
  for (auto it = nodes_.begin(); it != nodes_.end();)
    it = it->second == c ? nodes_.erase(it) : ++it;
  levels_.erase(c);
  for (CmService* s : services_) s->on_closed(c);
  KLOG_INFO("collector: %s/%s disconnected: %s", c->peer().role.c_str(), c->peer().cn.c_str(),
            why.c_str());
}

void CollectorServer::refuse(net::TlsConn* c, const std::string& why) {
  ++stats_.refused;
  KLOG_WARN("collector: refused %s/%s (%s): %s", c->peer().role.c_str(), c->peer().cn.c_str(),
            c->address().c_str(), why.c_str());
  c->send_error(why);
}

bool CollectorServer::has_level(const net::TlsConn* c, policy::AuthLevel level) const {
  // A connection's identity and the policy stay as they are for its life: each level is
  // judged once per connection, not on every frame. Only open connections are remembered
  // (on_closed forgets them), so a later connection at the same address starts afresh.
  if (c->closing()) return policy::authorized(opts_.authz, subject_of(c), level);
  uint8_t& known = levels_[c];
  const auto judged = static_cast<uint8_t>(1u << (2 * static_cast<int>(level)));
  const auto granted = static_cast<uint8_t>(judged << 1);
  if (!(known & judged)) {
    known |= judged;
    if (policy::authorized(opts_.authz, subject_of(c), level)) known |= granted;
  }
  return known & granted;
}

bool CollectorServer::allowed(net::TlsConn* c, policy::AuthLevel level, const std::string& what) {
  if (has_level(c, level)) return true;
  refuse(c, what + ": not authorized: " + c->peer().role + "/" + c->peer().cn + " lacks " +
                policy::auth_level_name(level));
  return false;
}

bool CollectorServer::on_frame(net::TlsConn* c, core::Json& msg) {
  std::string type = msg.type();
  if (type == "update") {
    update(c, msg);
  } else if (type == "invalidate") {
    invalidate(c, msg);
  } else if (type == "query") {
    query(c, msg);
  } else if (type == "error") {
    // Already logged by the transport; never answered.
  } else {
    for (CmService* s : services_)
      if (s->on_frame(c, msg)) return true;
    return false;
  }
  return true;
}

net::TlsConn* CollectorServer::node(const std::string& machine) const {
  auto it = nodes_.find(machine);
  return it == nodes_.end() ? nullptr : it->second;
}

namespace {

// The literal string value of attribute `id` among parsed attributes (the last one named so, as
// a repeated name replaces the earlier value). kAbsent: not there; kOther: there but not a
// string literal (an expression, or another type), which the whole-ad path judges.
enum class Lit { kAbsent, kString, kOther };
Lit literal_string(const std::vector<classad::JsonAttr>& attrs, uint32_t id,
                   std::string_view* out) {
  for (size_t i = attrs.size(); i-- > 0;) {
    if (attrs[i].name.id != id) continue;
    const classad::Expr* e = attrs[i].expr;
    if (e->kind != classad::ExprKind::kLiteral || !classad::as_literal(e)->value.is_string())
      return Lit::kOther;
    *out = classad::as_literal(e)->value.as_string();
    return Lit::kString;
  }
  return Lit::kAbsent;
}

}  // namespace

void CollectorServer::update(net::TlsConn* c, core::Json& msg) {
  ++stats_.update_frames;
  if (!allowed(c, policy::AuthLevel::kDaemon, "update")) return;
  const cJSON* text = msg.child("ad");
  if (!msg.flag("merge") || !cJSON_IsString(text)) {
    update_whole(c, msg);
    return;
  }
  // A merge (the changed attributes after a full ad, nearly every update): its attributes are
  // parsed once and move into the stored ad, with no ad built of them. Merges whose Name,
  // Machine or MyType is not a plain string take the whole-ad path, which evaluates them.
  classad::ParseError pe;
  if (!classad::classad_json_attrs(text->valuestring, merge_attrs_, &pe)) {
    refuse(c, "update: \"ad\": " + pe.to_string());
    return;
  }
  static const uint32_t kName = classad::intern_name("Name").id;
  static const uint32_t kMachine = classad::intern_name("Machine").id;
  static const uint32_t kMyType = classad::intern_name("MyType").id;
  std::string_view name, machine, my_type;
  const cJSON* ad_type = msg.child("ad_type");
  std::string_view type = cJSON_IsString(ad_type) ? ad_type->valuestring : "";
  Lit has_machine = literal_string(merge_attrs_, kMachine, &machine);
  if (literal_string(merge_attrs_, kName, &name) != Lit::kString || has_machine == Lit::kOther ||
      (type.empty() && literal_string(merge_attrs_, kMyType, &my_type) != Lit::kString)) {
    classad::AdPtr ad(classad::ClassAd::make());
    for (const classad::JsonAttr& a : merge_attrs_) classad::classad_insert_attr(*ad, a);
    merge_attrs_.clear();
    store_update(c, msg, std::move(ad));
    return;
  }
  if (type.empty()) type = my_type;
  const collector::StoredAd* known = store_.find(type, name);
  // A merge may leave Machine out: it keeps the stored ad's.
  std::string scratch;
  std::string_view before;
  bool known_machine = known && collector::string_attr(*known->ad, kMachine, &scratch, &before);
  if (has_machine == Lit::kAbsent && known_machine) machine = before;
  if (!may_advertise(c, machine, known_machine ? &before : nullptr) ||
      (!known && !room_for_new(c))) {
    for (const classad::JsonAttr& a : merge_attrs_) classad::expr_unref(a.expr);
    merge_attrs_.clear();
    return;
  }
  std::string machine_copy(machine);  // the views point into the ads the merge replaces
  store_.merge(type, name, &merge_attrs_, now_s());
  stored(c, machine_copy);
}

void CollectorServer::update_whole(net::TlsConn* c, core::Json& msg) {
  std::string err;
  classad::AdPtr ad = core::get_ad(msg, "ad", &err);
  if (!ad) {
    refuse(c, "update: " + err);
    return;
  }
  store_update(c, msg, std::move(ad));
}

void CollectorServer::store_update(net::TlsConn* c, core::Json& msg, classad::AdPtr ad) {
  std::string err;
  std::string type = msg.str("ad_type"), machine, name;
  if (type.empty() && !ad->evaluate_string("MyType", type)) {
    refuse(c, "update: the ad has no type (ad_type or MyType)");
    return;
  }
  ad->evaluate_string("Name", name);
  const collector::StoredAd* known = store_.find(type, name);
  bool merge = msg.flag("merge");
  // A merge (the changed attributes after a full ad) may leave Machine out: it keeps the
  // stored ad's.
  if (!ad->evaluate_string("Machine", machine) && merge && known)
    known->ad->evaluate_string("Machine", machine);
  std::string before;
  bool known_machine = known && known->ad->evaluate_string("Machine", before);
  std::string_view before_view = before;
  if (!may_advertise(c, machine, known_machine ? &before_view : nullptr) ||
      (!known && !room_for_new(c)))
    return;
  if (!store_.update(type, std::move(ad), now_s(), merge, &err)) {
    refuse(c, "update: " + err);
    return;
  }
  stored(c, machine);
}

bool CollectorServer::may_advertise(net::TlsConn* c, std::string_view machine,
                                    const std::string_view* before) {
  // An agent speaks only for the machine its certificate names, and replaces or merges into
  // only ads of that machine.
  if (c->peer().role != "agent") return true;
  if (c->peer().may_act_for_machine(machine) && (!before || c->peer().may_act_for_machine(*before)))
    return true;
  refuse(c, "update: agent " + c->peer().cn + " may not advertise for machine '" +
                std::string(machine.empty() && before ? *before : machine) + "'");
  return false;
}

bool CollectorServer::room_for_new(net::TlsConn* c) {
  if (store_.size() < kMaxAds) return true;
  refuse(c, "update: the collector holds its maximum of " + std::to_string(kMaxAds) + " ads");
  return false;
}

void CollectorServer::stored(net::TlsConn* c, const std::string& machine) {
  ++stats_.updates;
  // Commands for a machine travel on the connection of the agent that advertises it.
  if (c->peer().role == "agent" && !machine.empty()) {
    net::TlsConn*& node = nodes_[machine];
    if (node != c) {
      node = c;
      for (CmService* s : services_) s->on_node(machine, c);
    }
  }
  persist();
}

void CollectorServer::invalidate(net::TlsConn* c, core::Json& msg) {
  if (!allowed(c, policy::AuthLevel::kDaemon, "invalidate")) return;
  std::string type = msg.str("ad_type"), name = msg.str("name");
  const collector::StoredAd* s = store_.find(type, name);
  if (!s) return;  // already gone: nothing to refuse
  std::string machine;
  s->ad->evaluate_string("Machine", machine);
  if (c->peer().role == "agent" && !c->peer().may_act_for_machine(machine)) {
    refuse(c, "invalidate: agent " + c->peer().cn + " may not invalidate ads of machine '" +
                  machine + "'");
    return;
  }
  if (store_.invalidate(type, name, now_s())) ++stats_.invalidations;
  persist();
}

bool CollectorServer::publish(std::string_view type, classad::AdPtr ad, std::string* err) {
  return store_.update(type, std::move(ad), now_s(), false, err);
}

void CollectorServer::withdraw(std::string_view type, std::string_view name) {
  store_.invalidate(type, name, now_s());
}

void CollectorServer::query(net::TlsConn* c, core::Json& msg) {
  if (!allowed(c, policy::AuthLevel::kRead, "query")) return;
  // One query at a time per connection, so a client cannot queue work without bound.
  for (const Running& r : running_) {
    if (r.conn == c) {
      refuse(c, "query: a query of this connection is still running");
      return;
    }
  }
  collector::QuerySpec spec;
  spec.type = msg.str("ad_type");
  spec.constraint = msg.str("constraint");
  int64_t limit = msg.num("limit");
  spec.limit = limit > 0 ? static_cast<size_t>(limit) : 0;
  spec.absent = msg.flag("absent");
  spec.offline = msg.flag("offline");
  spec.shared = true;  // run_queries serializes the matches in the same loop turn
  // A table's rows in the order it lists them, so the client can print each frame as it comes.
  spec.table_order = msg.flag("table_order");
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, msg.child("projection")) {
    if (cJSON_IsString(item)) spec.projection.push_back(item->valuestring);
  }
  // A counted query examines the stored ads themselves and counts their projections; a query
  // in rows writes their values straight from them.
  std::unique_ptr<collector::AdGroups> groups;
  std::vector<std::string> row_attrs;
  if (msg.flag("group") && !spec.projection.empty()) {
    groups = std::make_unique<collector::AdGroups>(std::move(spec.projection));
    spec.projection.clear();
  } else if (msg.flag("rows") && !spec.projection.empty()) {
    for (std::string& a : spec.projection) {
      bool seen = false;
      for (size_t i = 0; i < row_attrs.size() && !seen; ++i)
        seen = strcasecmp(row_attrs[i].c_str(), a.c_str()) == 0;
      if (!seen) row_attrs.push_back(std::move(a));
    }
    spec.projection.clear();
  }
  std::unique_ptr<collector::Query> q = store_.start_query(spec);
  if (!q->ok()) {
    c->send_error("query: " + q->error());
    return;
  }
  std::unique_ptr<core::RowWriter> writer;
  std::string row_key;
  if (!row_attrs.empty() && msg.num("rows_v") >= 2) {
    // "rows_v" 3: the client reads integers as deltas too.
    writer = std::make_unique<core::RowWriter>(row_attrs.size(), msg.num("rows_v") >= 3);
    for (const std::string& a : row_attrs) row_key += a + '\n';
  }
  running_.emplace_back();
  Running& run = running_.back();
  run.conn = c;
  run.query = std::move(q);
  run.started_ns = uv_hrtime();
  run.groups = std::move(groups);
  run.row_attrs = std::move(row_attrs);
  run.row_writer = std::move(writer);
  run.row_key = std::move(row_key);
  if (run.row_writer) row_cache_.reserve(run.row_key, &run.row_fill);
  // Its first slice at once: a query that fits in one is answered without waiting a loop turn
  // behind every connection's updates; a longer one goes on a slice per turn. Slices run at
  // arrival share kQueryTurnNs per kArrivalWindowNs, so a burst of queries from many connections
  // cannot stall updates either.
  uint64_t now = uv_hrtime();
  if (now - arrival_window_start_ >= kArrivalWindowNs) {
    arrival_window_start_ = now;
    arrival_spent_ns_ = 0;
  }
  bool finished = false;
  if (arrival_spent_ns_ < kQueryTurnNs) {
    finished = advance(&running_.back(), now + (kQueryTurnNs - arrival_spent_ns_));
    arrival_spent_ns_ += uv_hrtime() - now;
  }
  if (finished) {
    running_.pop_back();
  } else if (query_idle_) {
    uv_idle_start(query_idle_,
                  [](uv_idle_t* h) { static_cast<CollectorServer*>(h->data)->run_queries(); });
  }
}

bool CollectorServer::advance(Running* r, uint64_t end) {
  // Updates between slices may have brought names no ad had before.
  if (!r->row_attrs.empty()) core::refresh_row_ids(r->row_attrs, &r->row_ids);
  bool more = r->conn != nullptr;
  while (more) {
    more = r->query->next(store_, kQueryChunk, &r->found);
    for (const classad::AdPtr& ad : r->found) {
      if (r->groups) {
        r->groups->add(*ad);
        // The counts add up on the client, so a group may be sent before it is complete.
        if (r->groups->bytes() >= kReplyBytes) send_ads(r, false);
      } else if (!r->row_attrs.empty()) {
        if (r->row_writer) {
          // An ad unchanged since the projection's last query has its row kept.
          std::string_view row;
          uint64_t gen = ad->generation();
          if (!row_cache_.find(r->row_key, gen, &row, &r->row_cursor)) {
            r->row_scratch.clear();
            if (!core::RowWriter::write_row(&r->row_scratch, *ad, r->row_ids))
              append_projection_json(&r->row_scratch, *ad, r->row_attrs);
            row = r->row_scratch;
          }
          r->row_fill.add(gen, row);
          r->row_writer->append(&r->rows, row);
        } else if (!core::append_ad_row(&r->rows, *ad, r->row_ids)) {
          append_projection_json(&r->rows, *ad, r->row_attrs);
        }
        if (r->rows.size() >= kRowFrameBytes) send_ads(r, false);
      } else {
        r->texts.push_back(classad::classad_to_json(*ad, false));
        r->bytes += r->texts.back().size();
        if (r->bytes >= kReplyBytes) send_ads(r, false);  // frames stay far below the 1 MiB cap
      }
    }
    r->found.clear();
    if (!r->conn) break;  // the connection closed meanwhile
    if (more && uv_hrtime() >= end) break;
  }
  if (more && r->conn) return false;
  if (r->conn) send_ads(r, true);
  if (r->conn && r->row_writer) row_cache_.replace(r->row_key, std::move(r->row_fill), now_s());
  stats_.observe_query(static_cast<double>(uv_hrtime() - r->started_ns) / 1e9);
  return true;
}

void CollectorServer::run_queries() {
  uint64_t end = uv_hrtime() + kQueryTurnNs;
  for (auto it = running_.begin(); it != running_.end();)
    it = advance(&*it, end) ? running_.erase(it) : std::next(it);
  if (running_.empty() && query_idle_) uv_idle_stop(query_idle_);
}

void CollectorServer::send_ads(Running* r, bool done) {
  if (!r->conn) return;
  if (!r->row_attrs.empty()) {
    // Rows are written as the frame's JSON text at once: a cJSON string would copy the 64 KiB
    // of rows twice more and print them a byte at a time.
    std::string& text = r->frame_text;
    text.assign(R"({"type":"ads","attrs":[)");
    for (size_t i = 0; i < r->row_attrs.size(); ++i) {
      if (i) text += ',';
      core::append_json_string(&text, r->row_attrs[i]);
    }
    text += R"(],"rows":)";
    core::append_json_string(&text, r->rows);
    text += done ? R"(,"ads":[],"done":true})" : R"(,"ads":[],"done":false})";
    r->conn->send_text(text);
    r->rows.clear();
    if (r->row_writer) r->row_writer->reset();
    return;
  }
  core::Json reply = core::Json::message("ads");
  cJSON* arr = cJSON_CreateArray();
  const std::vector<std::string>& texts = r->groups ? r->groups->texts() : r->texts;
  for (const std::string& text : texts) cJSON_AddItemToArray(arr, cJSON_CreateString(text.c_str()));
  reply.set_json("ads", core::Json(arr));
  if (r->groups) {
    cJSON* counts = cJSON_CreateArray();
    for (uint64_t n : r->groups->counts())
      cJSON_AddItemToArray(counts, cJSON_CreateNumber(static_cast<double>(n)));
    reply.set_json("counts", core::Json(counts));
    r->groups->clear();
  }
  reply.set_bool("done", done);
  r->conn->send(reply);
  r->texts.clear();
  r->bytes = 0;
}

}  // namespace kite::cm
