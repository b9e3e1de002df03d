// The collector's ad store: ads by type and name, update/merge, invalidation, lifetime expiry,
// absent and offline ads (persisted), and indexed, chunked constraint queries.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/collector/ad_columns.h"
#include "agent/collector/table_order.h"
#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/classad/json.h"

namespace kite::collector {

// Collector settings, HTCondor's names and defaults.
struct StoreConfig {
  int64_t classad_lifetime = 900;             // CLASSAD_LIFETIME
  int64_t absent_expire_after = 30 * 86400;   // ABSENT_EXPIRE_ADS_AFTER (0: never)
  int64_t offline_expire_after = 2147483647;  // OFFLINE_EXPIRE_ADS_AFTER
  bool expire_invalidated_ads = false;        // EXPIRE_INVALIDATED_ADS
  classad::ExprPtr absent_requirements;       // ABSENT_REQUIREMENTS (null: no absent ads)
};

// One stored ad and its bookkeeping.
// (Its Name is the ad's own attribute and, lower-cased, its key's: no third copy here.)
struct StoredAd {
  std::string type;  // MyType as given ("Machine", "Negotiator", ...)
  classad::AdPtr ad;
  int64_t updated = 0;  // time of the last update
  int64_t expires = 0;  // absolute expiry time; 0: never
  // The lower-cased values of kIndexedAttrs as indexed: the keys of the store's indexes (stable
  // while indexed), null where the attribute is not a string, and for a Name that is the name
  // in the ad's own key, that key (the ad is found by key: no index entry). An update that
  // leaves them alone costs the indexes nothing, and no ad keeps its own copy of the text.
  const std::string* indexed[3] = {nullptr, nullptr, nullptr};
  uint32_t slot = AdColumns::kNoSlot;  // its place in the store's AdColumns
  bool absent = false;                 // kept after expiry because ABSENT_REQUIREMENTS held
  bool offline = false;                // the ad says Offline = true (a hibernating machine)
  // Some indexed attribute is an expression (its value may follow other attributes), so every
  // update re-indexes; otherwise a merge that names none of them leaves the indexes alone.
  bool index_exprs = false;
};

// The value of string attribute `id` of `ad`: a string literal is read in place, anything else
// evaluated into `scratch`. False when missing or not a string. For the update path, which
// reads Name, Machine and the indexed attributes of every ad it stores.
bool string_attr(const classad::ClassAd& ad, uint32_t id, std::string* scratch,
                 std::string_view* out);

// How the store keeps each ad it holds: its layout shared with ads of its shape, its own
// integers packed (ClassAd::share_layout, ClassAd::pack_numbers).
void compact(classad::ClassAd* ad);

// What a query asks for. Absent and offline ads are returned only when asked for (or when the
// constraint mentions Absent / Offline), as condor_collector does.
struct QuerySpec {
  std::string type;                     // empty: every type
  std::string constraint;               // ClassAd expression; empty: every ad
  std::vector<std::string> projection;  // empty: whole ads
  size_t limit = 0;                     // 0: no limit
  bool absent = false;                  // include absent ads
  bool offline = false;                 // include offline ads
  // Whole-ad matches are the stored ads themselves, not copies: read-only, and only until the
  // store next changes (a caller that serializes them at once).
  bool shared = false;
  // A scan walks the ads in table order (TableOrder: Machine, then Name) instead of key order.
  bool table_order = false;
};

class AdStore;

// Estimated heap bytes of the store's own bookkeeping (not the ads themselves), by part, each
// including malloc's chunk rounding: for memory figures.
struct StoreBytes {
  size_t records = 0;  // the map's nodes (key and StoredAd)
  size_t keys = 0;     // heap text of the keys (and of types too long to sit in place)
  size_t indexes = 0;  // the Name/Machine/State indexes, their value texts included
  size_t columns = 0;  // the attribute columns' per-slot vectors
  size_t order = 0;    // the flat key order scans walk
};

// The keys of the ads that have one indexed value: inline while there is one (nearly every
// Machine has a few, every State thousands), else an open-addressing table of key pointers
// (8 bytes a slot, at most half full), far smaller than a node-based set.
class KeySet {
 public:
  KeySet() { u_.one = nullptr; }
  ~KeySet();
  KeySet(KeySet&& o) noexcept : u_(o.u_), size_(o.size_), cap_(o.cap_) {
    o.u_.one = nullptr;
    o.size_ = o.cap_ = 0;
  }
  KeySet(const KeySet&) = delete;
  KeySet& operator=(const KeySet&) = delete;
  KeySet& operator=(KeySet&&) = delete;
  void insert(const std::string* k);
  void erase(const std::string* k);
  bool empty() const { return size_ == 0; }
  template <typename F>
  void for_each(F&& f) const {
    if (cap_ == 0) {
      if (u_.one) f(u_.one);
      return;
    }
    for (uint32_t i = 0; i < cap_; ++i)
      if (u_.slots[i]) f(u_.slots[i]);
  }
  // Heap bytes of its table (for memory figures).
  size_t table_bytes() const { return cap_ * sizeof(const std::string*); }

 private:
  size_t home(const std::string* k) const {
    return ((reinterpret_cast<uintptr_t>(k) >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap_ - 1);
  }
  void grow();
  void put(const std::string* k);  // into the table, known absent, with room

  union {
    const std::string* one;  // cap_ == 0: the one key, or null
    const std::string** slots;
  } u_;
  uint32_t size_ = 0, cap_ = 0;
};

// A query in progress, examined a chunk at a time so the caller can handle updates between
// chunks. Its candidates are the keys an index gives when the constraint is an equality on Name,
// Machine or State (fixed when it starts); otherwise the store's ads of the type, walked in key
// order from a cursor (no copy of the keys). Ads removed meanwhile are skipped.
class Query {
 public:
  // Examines up to `max_examined` candidates, appending matches (projected copies) to `out`.
  // Returns false once the query is finished (no candidates left or the limit reached).
  bool next(const AdStore& store, size_t max_examined, std::vector<classad::AdPtr>* out);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool used_index() const { return used_index_; }
  // The candidates came from attribute columns (ad_columns.h): ads sure not to match were
  // never examined.
  bool used_columns() const { return used_columns_; }
  size_t examined() const { return examined_; }

 private:
  friend class AdStore;
  // Examines one stored ad; true when it matched (appended to `out`).
  bool examine(const AdStore& store, const StoredAd& s, std::vector<classad::AdPtr>* out);
  // A scan's next chunk in table order (QuerySpec::table_order).
  bool next_in_table_order(const AdStore& store, size_t budget, std::vector<classad::AdPtr>* out);

  QuerySpec spec_;
  classad::ExprPtr constraint_;
  std::vector<std::string> keys_;  // the index's or the columns' candidates, sorted
  std::string prefix_;             // the lower-case "type\n" the type's keys start with
  std::string prefix_end_;         // "type\x0b": the first key after them
  std::string cursor_;             // a scan: the last key examined ("" before the first)
  std::string cursor_machine_;     // and, in table order, its lower-case Machine
  // A scan's place in the store's key order (AdStore::order_) while that order is unchanged:
  // the next position and the type's end.
  uint64_t order_epoch_ = 0;
  size_t order_at_ = 0, order_end_ = 0;
  size_t pos_ = 0, found_ = 0, examined_ = 0;
  bool used_index_ = false, used_columns_ = false, scan_done_ = false;
  std::string error_;
};

// Ads are keyed by (type, Name), both case-insensitive. HTCondor's collector keys startd ads by
// Name plus the IP of MyAddress; Kite leaves the address out because an agent's identity is its
// TLS certificate and agents behind NAT reconnect from changing addresses: a machine that comes
// back from elsewhere replaces its old (or absent) ad instead of appearing twice.
class AdStore {
 public:
  explicit AdStore(StoreConfig config) : config_(std::move(config)) {}

  // Stores `ad` of `type` (its Name attribute is the key, with the type). `merge`: attributes
  // are merged into the stored ad instead of replacing it. An update of an absent ad brings it
  // back (Absent is dropped). False with `err` when the ad has no Name.
  bool update(std::string_view type, classad::AdPtr ad, int64_t now, bool merge, std::string* err);
  // A merge of parsed attributes into the ad of `type` named `name` (which `attrs` must give
  // as its Name), without building an ad of them: the expressions move into the stored ad
  // (references taken over; `attrs` is left empty). With no such ad (or an absent one), they
  // make the new ad, as update() with `merge` does.
  void merge(std::string_view type, std::string_view name, std::vector<classad::JsonAttr>* attrs,
             int64_t now);
  // Removes the ad (or, with EXPIRE_INVALIDATED_ADS, treats it as expired). False if unknown.
  bool invalidate(std::string_view type, std::string_view name, int64_t now);
  // Drops or marks absent every ad whose time is up; returns how many changed.
  size_t expire(int64_t now);

  // Starts a query; check ok() for a constraint that does not parse.
  std::unique_ptr<Query> start_query(const QuerySpec& spec) const;
  // Whole query at once (a convenience over start_query/next).
  bool query(const QuerySpec& spec, std::vector<classad::AdPtr>* out, std::string* err) const;

  const StoredAd* find(std::string_view type, std::string_view name) const;
  size_t size() const { return ads_.size(); }
  // Every stored ad (absent and offline ones too), by key: for figures such as /metrics.
  const std::map<std::string, StoredAd>& ads() const { return ads_; }
  StoreBytes bookkeeping_bytes() const;
  // Total ads examined by queries since construction (shows whether an index was used).
  size_t ads_examined() const { return examined_total_; }

  // Absent and offline ads, written atomically to `path` / read back at start.
  bool persistent_dirty() const { return persistent_dirty_; }
  bool save(const std::string& path, std::string* err);
  bool load(const std::string& path, int64_t now, std::string* err);

 private:
  friend class Query;
  static std::string key_of(std::string_view type, std::string_view name);
  using Entry = std::pair<const std::string, StoredAd>;
  // The stored ad under key_of(type, name), or null; remembers the last one found, so the
  // update that follows a find() does not search again.
  const Entry* locate(std::string_view type, std::string_view name) const;
  // The bookkeeping after an ad's attributes changed: back from absent, expiry, the indexes
  // (`index_touched`: the change may have altered Name, Machine or State).
  void refreshed(const std::string& key, StoredAd* s, int64_t now, bool index_touched);
  // Re-indexes `s` (stored under `key`, a key of ads_) from its ad, touching only the
  // attributes whose value changed. True when its Machine changed.
  bool reindex(const std::string& key, StoredAd* s);
  void index_remove(const std::string& key, const StoredAd& s);
  // The bookkeeping of an ad just put in ads_: indexes and columns.
  void added(std::map<std::string, StoredAd>::iterator it);
  void set_expiry(StoredAd* s, int64_t now);
  // Lowers next_expiry_ to `expires` (an ad's new expiry; 0: never).
  void note_expiry(int64_t expires);
  bool becomes_absent(StoredAd* s, int64_t now);
  void erase(std::map<std::string, StoredAd>::iterator it);
  // The ads in key order as a flat list for scans (walking the map chases a pointer per ad):
  // rebuilt by the first scan after an ad was added or removed, not on updates.
  const std::vector<const Entry*>& key_order() const;

  StoreConfig config_;
  std::map<std::string, StoredAd> ads_;        // key: lower-case "type\nname"
  mutable std::string key_scratch_;            // locate()'s key, kept to spare allocations
  mutable const Entry* last_found_ = nullptr;  // cleared when an ad is erased
  // Lower-cased attribute value -> keys (pointers to ads_' own keys, stable until erased), for
  // Name, Machine and State. A set per value: State has a few values shared by thousands of ads.
  // Name's holds only the ads whose Name is not the one in their key (StoredAd::indexed).
  std::unordered_map<std::string, KeySet> index_[3];
  std::map<std::string, size_t> type_counts_;  // ads by lower-case type (for Name lookups)
  // Built as queries name attributes (so changed by const queries).
  mutable AdColumns columns_;
  // No ad expires before this (a lower bound: an update only moves an ad's expiry later).
  int64_t next_expiry_ = INT64_MAX;
  mutable size_t examined_total_ = 0;
  // The ads in table order (Machine, then Name), for scans that ask for it.
  mutable TableOrder table_order_;
  mutable std::vector<const Entry*> order_;
  mutable uint64_t order_epoch_ = 1;  // changes when order_ is rebuilt
  mutable bool order_stale_ = true;
  bool persistent_dirty_ = false;
};

// A copy of `ad` holding only the attributes `attrs` names (all of them when it names none, or
// when one of them is an expression, which may refer to attributes not named).
classad::AdPtr project(const classad::ClassAd& ad, const std::vector<std::string>& attrs);

// The attributes the store indexes, in index_ order.
inline constexpr const char* kIndexedAttrs[3] = {"Name", "Machine", "State"};

}  // namespace kite::collector
