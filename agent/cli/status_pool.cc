// The CLI side of a collector query: a libuv loop, a NetClient that tries once, the reply.
#include "agent/cli/status_pool.h"

#include <strings.h>

#include <cctype>

#include "agent/cli/cm_client.h"
#include "agent/core/ad_rows.h"
#include "policy/classad/intern.h"
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
  std::vector<uint64_t>* counts = nullptr;   // parallel to ads (null: whole ads are wanted)
  std::vector<RowChunk>* chunks = nullptr;   // rows kept unread (null: read into ads)
  RowsTableStream* stream = nullptr;         // draws the table from chunks as they come
  std::vector<core::RowValue> spare_values;  // the values of the last chunk drawn
  std::string error;                         // a reply that could not be read

  void start(net::NetClient* c) override {
    core::Json q = core::Json::message("query");
    q.set("ad_type", ad_type_of(o->mode));
    // The CM applies the whole filter (by its indexes on Name, Machine, State where it can).
    std::string constraint = status_mode_constraint(*o);
    if (!constraint.empty()) q.set("constraint", constraint);
    // -af of plain attributes in the default order, the totals and the default table need only
    // some attributes (the CM sends whole ads when one of them is an expression). Totals alone
    // are counted on the CM: each distinct projection once, with how many ads it stands for.
    std::vector<std::string> attrs;
    bool group = counts && status_counts_only(*o);
    if (!counts) {
      // whole ads
    } else if (plain_af(*o)) {
      attrs = o->af;
      for (const char* a : {"MyType", "Machine", "Name"}) attrs.push_back(a);
    } else if (o->total_only && !o->compact && o->sort.empty() && o->mode == StatusMode::kClaimed &&
               !o->json && !o->longform && !o->have_af && o->formats.empty()) {
      // -claimed -total (its totals add reals, in the table's order: not counted on the CM).
      attrs = {"State",      "Activity", "Memory",  "Disk", "Mips",         "KFlops",
               "LoadAvg",    "Arch",     "OpSys",   "Cpus", "SlotBackfill", "PartitionableSlot",
               "ChildState", "MyType",   "Machine", "Name"};
    } else {
      attrs = status_needed_attrs(*o);
    }
    if (!attrs.empty()) {
      cJSON* list = cJSON_CreateArray();
      for (const std::string& a : attrs) cJSON_AddItemToArray(list, cJSON_CreateString(a.c_str()));
      q.set_json("projection", core::Json(list));
      q.set_bool("group", group);
      q.set_bool("rows", !group);  // the values in compact rows (agent/core/ad_rows.h)
      q.set("rows_v", 3);          // with expressions as text, repeats as '=', integers as deltas
      // The rows in the table's order (a CM that does not know it sends them in its own).
      // -limit keeps the first ads in the CM's order: that order stays the key order.
      if (stream && o->limit <= 0) q.set_bool("table_order", true);
    }
    q.set_bool("absent", o->mode == StatusMode::kAbsent);
    q.set_bool("offline", o->mode == StatusMode::kOffline);
    c->send(q);
  }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    if (msg.type() != "ads") return false;
    // A malformed reply ends the conversation with what was wrong.
    auto bad_reply = [&](const std::string& why) {
      error = "the central manager's reply: " + why;
      *done = true;
      return true;
    };
    if (const cJSON* rows = msg.child("rows"); cJSON_IsString(rows)) {
      RowChunk chunk;
      const cJSON* name = nullptr;
      cJSON_ArrayForEach(name, msg.child("attrs")) {
        if (!cJSON_IsString(name)) return bad_reply("an attribute name that is not a string");
        for (const std::string& a : chunk.attrs)
          if (strcasecmp(a.c_str(), name->valuestring) == 0)
            return bad_reply("an attribute named twice in the rows");
        chunk.attrs.push_back(name->valuestring);
      }
      chunk.text = rows->valuestring;
      if (chunks) {
        // Read now, while the CM writes the next frame.
        chunks->push_back(std::move(chunk));
        // A drawn chunk's values are not kept: the next chunk reads into their memory (fresh
        // memory for each chunk's quarter megabyte would be faulted in page by page). They are
        // read again should the stream end later.
        if (stream) chunks->back().values.swap(spare_values);
        read_chunk_values(&chunks->back());
        if (stream) {
          stream->add(chunks->back());
          if (stream->streaming()) {
            spare_values.swap(chunks->back().values);
            spare_values.clear();
          }
        }
      } else {
        std::string why;
        if (!read_row_chunks({chunk}, ads, counts, &why)) return bad_reply(why);
      }
    }
    // JSON ads after kept rows: the rows become ads first, so all keep the order they came in.
    if (chunks && cJSON_GetArraySize(msg.child("ads")) > 0) {
      std::string why;
      if (!read_row_chunks(*chunks, ads, counts, &why)) return bad_reply(why);
      if (stream) stream->abandon();
      chunks->clear();
      chunks = nullptr;
    }
    const cJSON* item = nullptr;
    const cJSON* count = cJSON_IsArray(msg.child("counts")) ? msg.child("counts")->child : nullptr;
    cJSON_ArrayForEach(item, msg.child("ads")) {
      uint64_t n = 1;  // a counted reply: how many ads this one stands for
      if (count) {
        if (cJSON_IsNumber(count) && count->valuedouble >= 1 && count->valuedouble < 1e15)
          n = static_cast<uint64_t>(count->valuedouble);
        count = count->next;
      }
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      if (!ad) continue;
      ads->push_back(std::move(ad));
      if (counts) counts->push_back(n);
    }
    *done = msg.flag("done");
    return true;
  }
};

}  // namespace

bool read_row_chunks(const std::vector<RowChunk>& chunks, std::vector<classad::AdPtr>* ads,
                     std::vector<uint64_t>* counts, std::string* err) {
  for (const RowChunk& chunk : chunks) {
    std::vector<classad::InternedName> attrs;
    for (const std::string& a : chunk.attrs) attrs.push_back(classad::intern_name(a));
    if (!core::read_ad_rows(chunk.text, attrs, ads, err)) return false;
    if (counts) counts->resize(ads->size(), 1);
  }
  return true;
}

bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::vector<uint64_t>* counts, std::string* err, std::vector<RowChunk>* chunks,
                RowsTableStream* stream) {
  PoolQuery q;
  q.stream = chunks ? stream : nullptr;
  q.o = &o;
  q.ads = ads;
  q.counts = counts;
  q.chunks = chunks;
  if (!talk_to_cm(pool, "the query", &q, kQueryTimeoutMs, err)) return false;
  *err = q.error;
  return q.error.empty();
}

bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err) {
  return query_pool(pool, o, ads, nullptr, err);
}

}  // namespace kite::cli
