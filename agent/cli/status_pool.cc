// The CLI side of a collector query: a libuv loop, a NetClient that tries once, the reply.
#include "agent/cli/status_pool.h"

#include <cctype>

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

bool plain_af(const StatusOptions& o) {
  if (!o.have_af || o.af.empty() || !o.sort.empty() || o.compact || o.longform || o.json ||
      !o.formats.empty() || o.total_only)
    return false;
  for (const std::string& a : o.af) {
    if (a.empty() || !(std::isalpha(static_cast<unsigned char>(a[0])) || a[0] == '_')) return false;
    for (char c : a)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

struct PoolQuery final : CmConversation {
  const StatusOptions* o = nullptr;
  std::vector<classad::AdPtr>* ads = nullptr;

  void start(net::NetClient* c) override {
    core::Json q = core::Json::message("query");
    q.set("ad_type", ad_type_of(o->mode));
    // The CM applies the whole filter (by its indexes on Name, Machine, State where it can).
    std::string constraint = status_mode_constraint(*o);
    if (!constraint.empty()) q.set("constraint", constraint);
    // -af of plain attributes in the default order, and the slot totals, need only some
    // attributes (the CM sends whole ads when one of them is an expression).
    std::vector<std::string> attrs;
    if (plain_af(*o)) {
      attrs = o->af;
    } else if (o->total_only && !o->compact && o->sort.empty() &&
               (o->mode == StatusMode::kSlots || o->mode == StatusMode::kAvail ||
                o->mode == StatusMode::kClaimed)) {
      attrs = {"State",        "Activity",          "Memory",    "Disk",  "Mips",
               "KFlops",       "LoadAvg",           "Arch",      "OpSys", "Cpus",
               "SlotBackfill", "PartitionableSlot", "ChildState"};
    }
    if (!attrs.empty()) {
      cJSON* list = cJSON_CreateArray();
      for (const std::string& a : attrs) cJSON_AddItemToArray(list, cJSON_CreateString(a.c_str()));
      for (const char* a : {"MyType", "Machine", "Name"})
        cJSON_AddItemToArray(list, cJSON_CreateString(a));
      q.set_json("projection", core::Json(list));
    }
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
