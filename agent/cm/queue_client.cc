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
  const submit::Result* r = nullptr;
  SubmitReply* reply = nullptr;

  void start(net::NetClient* c) override {
    size_t next = 0;
    do {
      core::Json f = core::Json::message("submit");
      size_t bytes = 0;
      if (next == 0) f.set_json("cluster", core::Json(attrs_object(r->cluster, &bytes)));
      cJSON* procs = cJSON_CreateArray();
      while (next < r->procs.size() && bytes < kFrameBudget)
        cJSON_AddItemToArray(procs, attrs_object(r->procs[next++].own, &bytes));
      f.set_json("procs", core::Json(procs));
      f.set_bool("more", next < r->procs.size());
      c->send(f);
    } while (next < r->procs.size());
  }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
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
    core::Json all(cJSON_Duplicate(msg.child("all"), true));
    queue::JobCounts& n = reply->all;
    n.idle = all.num("idle");
    n.running = all.num("running");
    n.removed = all.num("removed");
    n.completed = all.num("completed");
    n.held = all.num("held");
    n.suspended = all.num("suspended");
    return true;
  }
};

}  // namespace

bool submit_to_cm(const std::string& pool, const submit::Result& r, SubmitReply* reply,
                  std::string* err) {
  Submit s;
  s.r = &r;
  s.reply = reply;
  return talk_to_cm(pool, "the submit", &s, kTimeoutMs, err);
}

bool query_jobs(const std::string& pool, const JobQuery& q, JobQueryReply* reply,
                std::string* err) {
  Query c;
  c.q = &q;
  c.reply = reply;
  return talk_to_cm(pool, "the query", &c, kTimeoutMs, err);
}

}  // namespace kite::cli
