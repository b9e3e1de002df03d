// The CLI side of a collector query: a libuv loop, a NetClient that tries once, the reply.
#include "agent/cli/status_pool.h"

#include "agent/cli/cm_client.h"
#include "policy/classad/json.h"

namespace kite::cli {
namespace {

constexpr uint64_t kQueryTimeoutMs = 30000;

const char* ad_type_of(StatusMode m) {
  switch (m) {
    case StatusMode::kSubmitters: return "Submitter";
    case StatusMode::kSchedd:
    case StatusMode::kScheddRun: return "Scheduler";
    case StatusMode::kNegotiator: return "Negotiator";
    case StatusMode::kCollector: return "Collector";
    case StatusMode::kAny: return "";
    default: return "Machine";
  }
}

struct PoolQuery final : CmConversation {
  const StatusOptions* o = nullptr;
  std::vector<classad::AdPtr>* ads = nullptr;

  void start(net::NetClient* c) override {
    core::Json q = core::Json::message("query");
    q.set("ad_type", ad_type_of(o->mode));
    // The CM filters too (by its indexes on Name, Machine, State); the table filters again.
    if (!o->constraint.empty()) q.set("constraint", o->constraint);
    q.set_bool("absent", o->mode == StatusMode::kAbsent);
    q.set_bool("offline", o->mode == StatusMode::kOffline);
    c->send(q);
  }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    if (msg.type() != "ads") return false;
    const cJSON* item = nullptr;
    cJSON_ArrayForEach(item, msg.child("ads")) {
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      if (ad) ads->push_back(std::move(ad));
    }
    *done = msg.flag("done");
    return true;
  }
};

}  // namespace

bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err) {
  PoolQuery q;
  q.o = &o;
  q.ads = ads;
  return talk_to_cm(pool, "the query", &q, kQueryTimeoutMs, err);
}

}  // namespace kite::cli
