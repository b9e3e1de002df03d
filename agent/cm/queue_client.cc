// Submits and job queries as conversations with the central manager.
#include "agent/cm/queue_client.h"

#include <map>

#include "agent/cli/cm_client.h"
#include "agent/queue/job_render.h"
#include "policy/classad/json.h"

namespace kite::cli {
namespace {

// A submit's frames stay well under the transport's 1 MiB cap.
constexpr size_t kFrameBudget = 512 * 1024;
constexpr uint64_t kTimeoutMs = 120000;

cJSON* attrs_object(const std::vector<submit::Attr>& attrs, size_t* bytes) {
  cJSON* o = cJSON_CreateObject();
  for (const submit::Attr& a : attrs) {
    cJSON_AddItemToObject(o, a.name.c_str(), cJSON_CreateString(a.value.c_str()));
    *bytes += a.name.size() + a.value.size() + 8;  // quotes, colon, comma; escapes are rare
  }
  return o;
}

struct Submit final : CmConversation {
  const ExpandFn* expand = nullptr;
  SubmitReply* reply = nullptr;
  submit::Result r;

  void start(net::NetClient* c) override { c->send(core::Json::message("new_cluster")); }
  void send_procs(net::NetClient* c, int cluster) {
    size_t next = 0;
    do {
      core::Json f = core::Json::message("submit");
      size_t bytes = 0;
      if (next == 0) {
        f.set_json("cluster", core::Json(attrs_object(r.cluster, &bytes)));
        f.set("cluster_id", static_cast<int64_t>(cluster));
      }
      cJSON* procs = cJSON_CreateArray();
      while (next < r.procs.size() && bytes < kFrameBudget)
        cJSON_AddItemToArray(procs, attrs_object(r.procs[next++].own, &bytes));
      f.set_json("procs", core::Json(procs));
      f.set_bool("more", next < r.procs.size());
      c->send(f);
    } while (next < r.procs.size());
  }
  bool on_reply(net::NetClient* c, core::Json& msg, bool* done) override {
    if (msg.type() == "new_cluster") {
      int cluster = static_cast<int>(msg.num("cluster"));
      if (!(*expand)(cluster, &r)) {
        reply->not_expanded = true;  // the reservation is dropped with the connection
        *done = true;
        return true;
      }
      send_procs(c, cluster);
      return true;
    }
    if (msg.type() != "submitted") return false;
    reply->cluster = static_cast<int>(msg.num("cluster"));
    reply->procs = static_cast<int>(msg.num("procs"));
    reply->warning = msg.str("warning");
    *done = true;
    return true;
  }
};

cJSON* string_array(const std::vector<std::string>& v) {
  cJSON* a = cJSON_CreateArray();
  for (const std::string& s : v) cJSON_AddItemToArray(a, cJSON_CreateString(s.c_str()));
  return a;
}

// {idle, running, ...} -> counts; false when the reply has none.
bool read_counts(const cJSON* obj, queue::JobCounts* n) {
  if (!cJSON_IsObject(obj)) return false;
  core::Json c(cJSON_Duplicate(obj, true));
  n->idle = c.num("idle");
  n->running = c.num("running");
  n->removed = c.num("removed");
  n->completed = c.num("completed");
  n->held = c.num("held");
  n->suspended = c.num("suspended");
  return true;
}

struct Query final : CmConversation {
  const JobQuery* q = nullptr;
  JobQueryReply* reply = nullptr;
  std::map<int64_t, classad::AdPtr> clusters;

  void start(net::NetClient* c) override {
    core::Json f = core::Json::message("job_query");
    f.set_bool("history", q->history);
    f.set_bool("mine", q->mine);
    f.set_json("args", core::Json(string_array(q->args)));
    f.set_json("constraints", core::Json(string_array(q->constraints)));
    f.set("limit", static_cast<int64_t>(q->limit));
    if (!q->projection.empty()) f.set_json("projection", core::Json(string_array(q->projection)));
    if (q->totals) f.set_bool("totals", true);
    c->send(f);
  }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    if (msg.type() != "jobs") return false;
    const cJSON* item = nullptr;
    cJSON_ArrayForEach(item, msg.child("clusters")) {
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      int64_t id = 0;
      if (ad && queue::ad_int(*ad, "ClusterId", &id)) clusters[id] = std::move(ad);
    }
    cJSON_ArrayForEach(item, msg.child("ads")) {
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      if (!ad) continue;
      // A queue's proc comes as its own attributes after its cluster's ad.
      int64_t id = 0;
      auto c = queue::ad_int(*ad, "ClusterId", &id) ? clusters.find(id) : clusters.end();
      reply->ads.push_back(c == clusters.end() ? std::move(ad) : queue::merge(*c->second, *ad));
    }
    if (!msg.flag("done")) return true;
    *done = true;
    reply->schedd = msg.str("schedd");
    read_counts(msg.child("all"), &reply->all);
    reply->counted = read_counts(msg.child("query"), &reply->query);
    reply->server_time = msg.num("server_time", 0);
    return true;
  }
};

}  // namespace

bool submit_to_cm(const std::string& pool, const ExpandFn& expand, SubmitReply* reply,
                  std::string* err) {
  Submit s;
  s.expand = &expand;
  s.reply = reply;
  return talk_to_cm(pool, "the submit", &s, kTimeoutMs, err) && !reply->not_expanded;
}

bool query_jobs(const std::string& pool, const JobQuery& q, JobQueryReply* reply,
                std::string* err) {
  Query c;
  c.q = &q;
  c.reply = reply;
  return talk_to_cm(pool, "the query", &c, kTimeoutMs, err);
}

}  // namespace kite::cli
