// The CLI side of a collector query: the query frame, the ads back as ClassAds.
#include "agent/cli/status_pool.h"

#include "agent/cli/cm_client.h"
#include "policy/classad/json.h"

namespace kite::cli {
namespace {

const char* ad_type_of(StatusMode m) {
  switch (m) {
    case StatusMode::kSubmitters: return "Submitter";
    case StatusMode::kSchedd:
    case StatusMode::kScheddRun: return "Scheduler";
    case StatusMode::kNegotiator: return "Negotiator";
    case StatusMode::kCollector: return "Collector";
    default: return "Machine";
  }
}

}  // namespace

bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err) {
  core::Json q = core::Json::message("query");
  q.set("ad_type", ad_type_of(o.mode));
  // The CM filters too (by its indexes on Name, Machine, State); the table filters again.
  if (!o.constraint.empty()) q.set("constraint", o.constraint);
  q.set_bool("absent", o.mode == StatusMode::kAbsent);
  q.set_bool("offline", o.mode == StatusMode::kOffline);
  return cm_request(
      pool, "query", q,
      [ads](core::Json& msg, bool* done) {
        if (msg.type() != "ads") return false;
        const cJSON* item = nullptr;
        cJSON_ArrayForEach(item, msg.child("ads")) {
          if (!cJSON_IsString(item)) continue;
          classad::AdPtr ad = classad::classad_from_json(item->valuestring);
          if (ad) ads->push_back(std::move(ad));
        }
        *done = msg.flag("done");
        return true;
      },
      err);
}

}  // namespace kite::cli
