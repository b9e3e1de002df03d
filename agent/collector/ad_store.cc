// The collector's ad store (see ad_store.h): keys, indexes, expiry, absent/offline ads, queries.
#include "agent/collector/ad_store.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>

#include "agent/collector/constraint_index.h"
#include "policy/classad/expr_share.h"
#include "policy/classad/parser.h"

namespace kite::collector {
namespace {

// An index's candidates up to this many are examined as they are; more are narrowed by the
// columns first.
constexpr size_t kFewCandidates = 64;

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

void append_lower(std::string* out, std::string_view s) {
  for (char c : s) out->push_back(ascii_lower(c));
}

std::string lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_lower(&out, s);
  return out;
}

bool equal_lower(std::string_view s, std::string_view lowered) {
  if (s.size() != lowered.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (ascii_lower(s[i]) != lowered[i]) return false;
  return true;
}

// Interned ids of the attributes the update path reads, in kIndexedAttrs order first.
struct Ids {
  uint32_t indexed[3], offline, lifetime, absent;
};
const Ids& ids() {
  static const Ids i = {
      {classad::intern_name(kIndexedAttrs[0]).id, classad::intern_name(kIndexedAttrs[1]).id,
       classad::intern_name(kIndexedAttrs[2]).id},
      classad::intern_name("Offline").id,
      classad::intern_name("ClassAdLifetime").id,
      classad::intern_name("Absent").id};
  return i;
}

bool ad_flag(const classad::ClassAd& ad, const char* attr) {
  bool b = false;
  return ad.evaluate_bool(attr, b) && b;
}

// The name part of a key of the store ("type\nname").
std::string_view key_name(const std::string& key) {
  return std::string_view(key).substr(key.find('\n') + 1);
}

// What an ad stored under `key` has indexed (StoredAd::indexed, not null).
std::string_view indexed_value(const std::string& key, const std::string* indexed) {
  return indexed == &key ? key_name(key) : std::string_view(*indexed);
}

bool mentions(std::string_view text, std::string_view word) {
  return lower(text).find(lower(word)) != std::string::npos;
}

}  // namespace

classad::AdPtr project(const classad::ClassAd& ad, const std::vector<std::string>& attrs) {
  if (attrs.empty()) return classad::AdPtr(ad.copy());
  classad::AdPtr out(classad::ClassAd::make());
  for (const std::string& a : attrs) {
    int64_t packed;
    const int at = ad.position_of(a);
    if (at >= 0 && ad.packed_at(static_cast<size_t>(at), &packed)) {  // left packed
      out->insert(a, new classad::LiteralExpr(classad::Value::integer(packed)));
      continue;
    }
    const classad::Expr* e = ad.lookup(a);
    if (!e) continue;
    if (e->kind != classad::ExprKind::kLiteral) return classad::AdPtr(ad.copy());
    out->insert(a, classad::expr_copy(e));
  }
  return out;
}

namespace {

// Holds each tree of `ad` once across the store (expr_share.h), as the text parser does for
// the ads it reads: the values thousands of slot ads have in common are then kept once.
void share_trees(classad::ClassAd* ad) {
  for (const classad::ClassAd::Entry& en : ad->entries()) {
    classad::Expr* e = en.expr;
    if (e->bits & classad::kBitSharedRoot) continue;
    classad::expr_ref(e);
    classad::Expr* shared = classad::expr_share(e);  // takes the reference just added
    if (shared == e) {
      classad::expr_unref(e);  // e itself is now the shared tree
    } else {
      ad->insert_plain(classad::intern_name(en.name->view()), shared);  // replaces en.expr
    }
  }
}

}  // namespace

void compact(classad::ClassAd* ad) {
  ad->share_layout();
  ad->pack_numbers();
}

namespace {

// A merged value worth sharing: strings and expressions repeat across ads; numbers that
// change between updates (times, loads) mostly do not, and would only fill the table.
classad::Expr* share_merged(classad::Expr* e) {
  if (e->kind == classad::ExprKind::kLiteral) {
    const classad::Value& v = classad::as_literal(e)->value;
    if (v.is_integer() || v.is_real() || v.is_boolean()) return e;
  }
  return classad::expr_share(e);
}

}  // namespace

KeySet::~KeySet() {
  if (cap_) std::free(u_.slots);
}

void KeySet::put(const std::string* k) {
  size_t i = home(k);
  while (u_.slots[i]) i = (i + 1) & (cap_ - 1);
  u_.slots[i] = k;
}

void KeySet::grow() {
  const std::string* one = cap_ == 0 ? u_.one : nullptr;
  const std::string** old = cap_ == 0 ? nullptr : u_.slots;
  const uint32_t old_cap = cap_;
  cap_ = cap_ == 0 ? 8 : cap_ * 2;
  u_.slots = static_cast<const std::string**>(std::calloc(cap_, sizeof(const std::string*)));
  if (!u_.slots) std::abort();
  if (one) put(one);
  for (uint32_t i = 0; i < old_cap; ++i)
    if (old[i]) put(old[i]);
  std::free(old);
}

void KeySet::insert(const std::string* k) {
  if (cap_ == 0) {
    if (!u_.one) {
      u_.one = k;
      size_ = 1;
      return;
    }
    if (u_.one == k) return;
    grow();
  }
  for (size_t i = home(k); u_.slots[i]; i = (i + 1) & (cap_ - 1))
    if (u_.slots[i] == k) return;
  if ((size_ + 1) * 2 > cap_) grow();
  put(k);
  ++size_;
}

void KeySet::erase(const std::string* k) {
  if (cap_ == 0) {
    if (u_.one == k) {
      u_.one = nullptr;
      size_ = 0;
    }
    return;
  }
  const size_t mask = cap_ - 1;
  size_t i = home(k);
  while (u_.slots[i] != k) {
    if (!u_.slots[i]) return;
    i = (i + 1) & mask;
  }
  // Backward-shift deletion: pull later keys of the probe run into the hole unless their home
  // lies cyclically in (hole, their slot].
  for (size_t j = (i + 1) & mask; u_.slots[j]; j = (j + 1) & mask) {
    size_t h = home(u_.slots[j]);
    bool stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
    if (stays) continue;
    u_.slots[i] = u_.slots[j];
    i = j;
  }
  u_.slots[i] = nullptr;
  if (--size_ == 0) {
    std::free(u_.slots);
    u_.one = nullptr;
    cap_ = 0;
  }
}

bool string_attr(const classad::ClassAd& ad, uint32_t id, std::string* scratch,
                 std::string_view* out) {
  const classad::Expr* e = ad.lookup_id(id);
  if (!e) return false;
  if (e->kind == classad::ExprKind::kLiteral) {
    const classad::Value& v = classad::as_literal(e)->value;
    if (!v.is_string()) return false;
    *out = v.as_string();
    return true;
  }
  if (!ad.evaluate_string(ad.find_entry(id).name->view(), *scratch)) return false;
  *out = *scratch;
  return true;
}

std::string AdStore::key_of(std::string_view type, std::string_view name) {
  std::string k;
  k.reserve(type.size() + 1 + name.size());
  append_lower(&k, type);
  k += '\n';
  append_lower(&k, name);
  return k;
}

const AdStore::Entry* AdStore::locate(std::string_view type, std::string_view name) const {
  key_scratch_.clear();
  append_lower(&key_scratch_, type);
  key_scratch_ += '\n';
  append_lower(&key_scratch_, name);
  if (last_found_ && last_found_->first == key_scratch_) return last_found_;
  auto it = ads_.find(key_scratch_);
  if (it == ads_.end()) return nullptr;
  last_found_ = &*it;
  return last_found_;
}

bool AdStore::reindex(const std::string& key, StoredAd* s) {
  bool machine_moved = false;
  std::string scratch;
  s->index_exprs = false;
  for (int i = 0; i < 3; ++i) {
    const classad::Expr* e = s->ad->lookup_id(ids().indexed[i]);
    if (e && e->kind != classad::ExprKind::kLiteral) s->index_exprs = true;
    std::string_view v;
    bool has = e && string_attr(*s->ad, ids().indexed[i], &scratch, &v);
    const std::string* was = s->indexed[i];
    if (has == (was != nullptr) && (!has || equal_lower(v, indexed_value(key, was)))) continue;
    machine_moved = machine_moved || i == 1;
    if (was && was != &key) {
      auto it = index_[i].find(*was);
      if (it != index_[i].end()) {
        it->second.erase(&key);
        if (it->second.empty()) index_[i].erase(it);  // `was` points into it
      }
    }
    s->indexed[i] = nullptr;
    if (i == 0 && has && equal_lower(v, key_name(key))) {
      s->indexed[0] = &key;  // found by its key: no index entry
    } else if (has) {
      auto it = index_[i].try_emplace(lower(v)).first;
      it->second.insert(&key);
      s->indexed[i] = &it->first;
    }
  }
  return machine_moved;
}

void AdStore::added(std::map<std::string, StoredAd>::iterator it) {
  reindex(it->first, &it->second);
  table_order_.add(&*it);
  note_expiry(it->second.expires);
  std::string type = lower(it->second.type);
  it->second.slot = columns_.add(&it->first, &it->second, type);
  ++type_counts_[type];
  order_stale_ = true;
}

void AdStore::index_remove(const std::string& key, const StoredAd& s) {
  for (int i = 0; i < 3; ++i) {
    if (!s.indexed[i] || s.indexed[i] == &key) continue;
    auto it = index_[i].find(*s.indexed[i]);
    if (it == index_[i].end()) continue;
    it->second.erase(&key);
    if (it->second.empty()) index_[i].erase(it);
  }
}

void AdStore::note_expiry(int64_t expires) {
  if (expires != 0 && expires < next_expiry_) next_expiry_ = expires;
}

void AdStore::set_expiry(StoredAd* s, int64_t now) {
  s->offline = s->ad->lookup_id(ids().offline) && ad_flag(*s->ad, "Offline");
  if (s->offline) {
    s->expires = config_.offline_expire_after > 0 ? now + config_.offline_expire_after : 0;
    note_expiry(s->expires);
    return;
  }
  // The ad's own ClassAdLifetime wins over CLASSAD_LIFETIME, as in HTCondor.
  int64_t lifetime = config_.classad_lifetime;
  int64_t own = 0;
  if (s->ad->lookup_id(ids().lifetime) && s->ad->evaluate_int("ClassAdLifetime", own) && own > 0)
    lifetime = own;
  s->expires = now + lifetime;
  note_expiry(s->expires);
}

bool AdStore::update(std::string_view type, classad::AdPtr ad, int64_t now, bool merge,
                     std::string* err) {
  std::string scratch;
  std::string_view name;
  if (!ad || !string_attr(*ad, ids().indexed[0], &scratch, &name)) {
    if (err) *err = "ad of type " + std::string(type) + " has no Name attribute";
    return false;
  }
  if (const Entry* found = locate(type, name)) {
    auto* s = const_cast<StoredAd*>(&found->second);
    if (merge && !s->absent) {
      for (const classad::ClassAd::Entry& e : ad->entries()) {
        s->ad->insert(e.name->view(), share_merged(classad::expr_copy(e.expr)));
      }
    } else {
      share_trees(ad.get());
      s->ad = std::move(ad);
    }
    columns_.refresh_all(s->slot, *s->ad);
    refreshed(found->first, s, now, true);  // shares the layout
    return true;
  }
  std::string key = key_of(type, name);
  StoredAd s;
  s.type = std::string(type);
  share_trees(ad.get());
  compact(ad.get());
  s.ad = std::move(ad);
  s.updated = now;
  set_expiry(&s, now);
  if (s.offline) persistent_dirty_ = true;
  added(ads_.emplace(std::move(key), std::move(s)).first);
  return true;
}

void AdStore::merge(std::string_view type, std::string_view name,
                    std::vector<classad::JsonAttr>* attrs, int64_t now) {
  const Entry* found = locate(type, name);
  if (!found || found->second.absent) {
    classad::AdPtr ad(classad::ClassAd::make());
    ad->reserve(attrs->size());
    for (const classad::JsonAttr& a : *attrs) classad::classad_insert_attr(*ad, a);
    attrs->clear();
    std::string err;
    update(type, std::move(ad), now, false, &err);  // it has the Name: it cannot fail
    return;
  }
  auto* s = const_cast<StoredAd*>(&found->second);
  bool index_touched = s->index_exprs;
  for (classad::JsonAttr& a : *attrs) {
    for (uint32_t id : ids().indexed) index_touched |= a.name.id == id;
    a.expr = share_merged(a.expr);
    classad::classad_insert_attr(*s->ad, a);
    columns_.changed(s->slot, *s->ad, a.name.id);
  }
  attrs->clear();
  refreshed(found->first, s, now, index_touched);
}

void AdStore::refreshed(const std::string& key, StoredAd* s, int64_t now, bool index_touched) {
  bool was_persistent = s->absent || s->offline;
  // A machine that comes back replaces its absent ad.
  s->absent = false;
  if (s->ad->lookup_id(ids().absent)) {
    s->ad->remove("Absent");
    columns_.changed(s->slot, *s->ad, ids().absent);
  }
  // Ads of one shape keep their names once (ClassAd::share_layout); a merge that added a name
  // made this ad a private layout, shared again here.
  compact(s->ad.get());
  s->updated = now;
  set_expiry(s, now);
  if (was_persistent || s->offline) persistent_dirty_ = true;
  if (index_touched && reindex(key, s)) {
    // Its Machine changed: its place in the table order too.
    auto it = ads_.find(key);
    table_order_.remove(&*it);
    table_order_.add(&*it);
  }
}

bool AdStore::becomes_absent(StoredAd* s, int64_t now) {
  if (s->absent || s->offline || !config_.absent_requirements) return false;
  if (lower(s->type) != "machine") return false;
  classad::Value v = s->ad->evaluate_expr(config_.absent_requirements.get());
  if (!v.is_boolean() || !v.as_boolean()) return false;
  s->absent = true;
  s->ad->insert_value("Absent", classad::Value::boolean(true));
  columns_.changed(s->slot, *s->ad, ids().absent);
  compact(s->ad.get());
  s->expires = config_.absent_expire_after > 0 ? now + config_.absent_expire_after : 0;
  note_expiry(s->expires);
  persistent_dirty_ = true;
  return true;
}

void AdStore::erase(std::map<std::string, StoredAd>::iterator it) {
  if (it->second.absent || it->second.offline) persistent_dirty_ = true;
  last_found_ = nullptr;
  index_remove(it->first, it->second);
  table_order_.remove(&*it);
  columns_.remove(it->second.slot);
  auto t = type_counts_.find(lower(it->second.type));
  if (t != type_counts_.end() && --t->second == 0) type_counts_.erase(t);
  ads_.erase(it);
  order_stale_ = true;
}

bool AdStore::invalidate(std::string_view type, std::string_view name, int64_t now) {
  auto it = ads_.find(key_of(type, name));
  if (it == ads_.end()) return false;
  if (config_.expire_invalidated_ads && becomes_absent(&it->second, now)) return true;
  erase(it);
  return true;
}

size_t AdStore::expire(int64_t now) {
  // Nothing is due before the earliest expiry known (updates only move an ad's later), so the
  // walk over every ad runs only when some ad may be due, not on every tick.
  if (now < next_expiry_) return 0;
  next_expiry_ = INT64_MAX;
  size_t changed = 0;
  for (auto it = ads_.begin(); it != ads_.end();) {
    StoredAd& s = it->second;
    if (s.expires == 0 || s.expires > now) {
      note_expiry(s.expires);
      ++it;
      continue;
    }
    ++changed;
    if (becomes_absent(&s, now)) {  // notes its new expiry
      ++it;
      continue;
    }
    auto next = std::next(it);
    erase(it);
    it = next;
  }
  return changed;
}

const StoredAd* AdStore::find(std::string_view type, std::string_view name) const {
  const Entry* e = locate(type, name);
  return e ? &e->second : nullptr;
}

std::unique_ptr<Query> AdStore::start_query(const QuerySpec& spec) const {
  auto q = std::make_unique<Query>();
  q->spec_ = spec;
  if (!spec.type.empty()) {
    q->prefix_ = lower(spec.type) + '\n';
    q->prefix_end_ = lower(spec.type) + static_cast<char>('\n' + 1);
  }
  if (!spec.constraint.empty()) {
    classad::ParseError perr;
    q->constraint_ = classad::parse_expr(spec.constraint, &perr);
    if (!q->constraint_) {
      q->error_ = "constraint '" + spec.constraint + "': " + perr.to_string();
      return q;
    }
    // Asking about Absent/Offline in the constraint asks for those ads, as condor_status does.
    if (mentions(spec.constraint, "Absent")) q->spec_.absent = true;
    if (mentions(spec.constraint, "Offline")) q->spec_.offline = true;
    // Candidates (keys of ads_) from the indexes, when the constraint is an equality on an
    // indexed attribute; when that leaves many, or there is none, the columns rule out the ads
    // sure not to match. Otherwise a scan in key order.
    std::vector<const std::string*> found;
    std::vector<IndexedEquality> eqs;
    bool indexed = find_indexed_equality(q->constraint_.get(), kIndexedAttrs, 3, &eqs);
    for (const IndexedEquality& eq : eqs) {
      if (eq.attr == 0) {  // most Names are their ads' keys
        for (const auto& t : type_counts_) {
          auto it = ads_.find(key_of(t.first, eq.value));
          if (it != ads_.end()) found.push_back(&it->first);
        }
      }
      auto keys = index_[eq.attr].find(lower(eq.value));
      if (keys != index_[eq.attr].end())
        keys->second.for_each([&](const std::string* k) { found.push_back(k); });
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    std::vector<const std::string*> judged;
    if ((!indexed || found.size() > kFewCandidates) &&
        columns_.candidates(q->constraint_.get(), lower(spec.type), &judged)) {
      if (indexed) {
        std::sort(judged.begin(), judged.end());
        std::vector<const std::string*> both;
        std::set_intersection(found.begin(), found.end(), judged.begin(), judged.end(),
                              std::back_inserter(both));
        found.swap(both);
        q->used_columns_ = true;
      } else if (judged.size() <= ads_.size() / 4) {
        // When most may match, a scan costs less than sorting and finding the candidates.
        found.swap(judged);
        q->used_columns_ = true;
      }
    }
    if (!indexed && !q->used_columns_) return q;
    std::sort(found.begin(), found.end(),
              [](const std::string* x, const std::string* y) { return *x < *y; });
    q->keys_.reserve(found.size());
    for (const std::string* k : found) q->keys_.push_back(*k);
    q->used_index_ = indexed;
  }
  return q;
}

bool Query::examine(const AdStore& store, const StoredAd& s, std::vector<classad::AdPtr>* out) {
  ++examined_;
  ++store.examined_total_;
  if (s.absent && !spec_.absent) return false;
  if (s.offline && !spec_.offline) return false;
  if (constraint_) {
    classad::Value v = s.ad->evaluate_expr(constraint_.get());
    if (!v.is_boolean() || !v.as_boolean()) return false;
  }
  if (spec_.shared && spec_.projection.empty()) {
    s.ad->ref();
    out->push_back(classad::AdPtr(s.ad.get()));
  } else {
    out->push_back(project(*s.ad, spec_.projection));
  }
  ++found_;
  return true;
}

bool Query::next(const AdStore& store, size_t max_examined, std::vector<classad::AdPtr>* out) {
  if (!ok()) return false;
  size_t budget = max_examined;
  auto limited = [&] { return spec_.limit && found_ >= spec_.limit; };
  if (used_index_ || used_columns_) {
    while (pos_ < keys_.size() && budget > 0 && !limited()) {
      const std::string& key = keys_[pos_++];
      auto it = store.ads_.find(key);
      if (it == store.ads_.end()) continue;  // removed since the query started
      if (!prefix_.empty() && key.compare(0, prefix_.size(), prefix_) != 0) continue;
      --budget;
      examine(store, it->second, out);
    }
    return pos_ < keys_.size() && !limited();
  }
  // A scan resumes after the last key it examined: ads added or removed meanwhile are simply
  // met or not met.
  if (scan_done_) return false;
  if (spec_.table_order) return next_in_table_order(store, budget, out);
  const std::vector<const AdStore::Entry*>& order = store.key_order();
  if (order_epoch_ != store.order_epoch_) {
    // The type's keys are one run ("type\n..." sorts before "type\x0b"): where it starts (or
    // where the scan left off) and ends are found once per change of the order.
    auto less = [](const AdStore::Entry* e, const std::string& k) { return e->first < k; };
    auto greater = [](const std::string& k, const AdStore::Entry* e) { return k < e->first; };
    auto at = cursor_.empty() ? std::lower_bound(order.begin(), order.end(), prefix_, less)
                              : std::upper_bound(order.begin(), order.end(), cursor_, greater);
    auto stop = prefix_.empty() ? order.end()
                                : std::lower_bound(order.begin(), order.end(), prefix_end_, less);
    order_at_ = static_cast<size_t>(at - order.begin());
    order_end_ = static_cast<size_t>(std::max(at, stop) - order.begin());
    order_epoch_ = store.order_epoch_;
  }
  // Each ad's entry and then its ad are fetched a few ads ahead: they lie scattered in memory.
  constexpr size_t kAhead = 8;
  size_t from = order_at_, i = from;
  for (; i < order_end_ && budget > 0 && !limited(); ++i) {
    if (i + kAhead < order_end_) __builtin_prefetch(order[i + kAhead]);
    if (i + kAhead / 2 < order_end_) __builtin_prefetch(order[i + kAhead / 2]->second.ad.get());
    --budget;
    examine(store, order[i]->second, out);
  }
  order_at_ = i;
  bool more = i < order_end_ && !limited();
  if (!more) {
    scan_done_ = true;
  } else if (i > from) {
    cursor_ = order[i - 1]->first;
  }
  return more;
}

bool Query::next_in_table_order(const AdStore& store, size_t budget,
                                std::vector<classad::AdPtr>* out) {
  auto limited = [&] { return spec_.limit && found_ >= spec_.limit; };
  const std::vector<const AdStore::Entry*>& order = store.table_order_.list(store.ads_);
  if (order_epoch_ != store.table_order_.epoch()) {
    // The ads were added, removed or moved meanwhile: on after the last one examined.
    order_at_ = 0;
    if (!cursor_.empty()) {
      const std::string* machine = cursor_machine_.empty() ? nullptr : &cursor_machine_;
      order_at_ = static_cast<size_t>(std::upper_bound(order.begin(), order.end(), 0,
                                                       [&](int, const AdStore::Entry* e) {
                                                         return TableOrder::compare(machine,
                                                                                    cursor_, e) < 0;
                                                       }) -
                                      order.begin());
    }
    order_end_ = order.size();
    order_epoch_ = store.table_order_.epoch();
  }
  constexpr size_t kAhead = 8;  // as in key order: entries and ads lie scattered
  size_t from = order_at_, i = from;
  for (; i < order_end_ && budget > 0 && !limited(); ++i) {
    if (i + kAhead < order_end_) __builtin_prefetch(order[i + kAhead]);
    if (i + kAhead / 2 < order_end_) __builtin_prefetch(order[i + kAhead / 2]->second.ad.get());
    const AdStore::Entry* e = order[i];
    // Other types' ads are interleaved in this order (a short prefix: compared inline).
    const std::string& key = e->first;
    size_t k = 0;
    while (k < prefix_.size() && k < key.size() && key[k] == prefix_[k]) ++k;
    if (k != prefix_.size()) continue;
    --budget;
    examine(store, e->second, out);
  }
  order_at_ = i;
  bool more = i < order_end_ && !limited();
  if (!more) {
    scan_done_ = true;
  } else if (i > from) {
    const AdStore::Entry* last = order[i - 1];
    cursor_ = last->first;
    cursor_machine_ = last->second.indexed[1] ? *last->second.indexed[1] : std::string();
  }
  return more;
}

const std::vector<const AdStore::Entry*>& AdStore::key_order() const {
  if (order_stale_) {
    order_.clear();
    order_.reserve(ads_.size());
    for (const Entry& e : ads_) order_.push_back(&e);
    order_stale_ = false;
    ++order_epoch_;
  }
  return order_;
}

bool AdStore::query(const QuerySpec& spec, std::vector<classad::AdPtr>* out,
                    std::string* err) const {
  std::unique_ptr<Query> q = start_query(spec);
  if (!q->ok()) {
    if (err) *err = q->error();
    return false;
  }
  while (q->next(*this, 256, out)) {
  }
  return true;
}

namespace {

// The bytes glibc's malloc takes for a request of `n` (its header and 16-byte rounding).
size_t chunk(size_t n) {
  size_t c = (n + 8 + 15) & ~size_t{15};
  return c < 32 ? 32 : c;
}

size_t heap_text(const std::string& s) {
  return s.capacity() > 15 ? chunk(s.capacity() + 1) : 0;
}

}  // namespace

StoreBytes AdStore::bookkeeping_bytes() const {
  StoreBytes b;
  // A map node is the red-black header (4 words) and the pair.
  b.records = ads_.size() * chunk(4 * sizeof(void*) + sizeof(Entry));
  for (const Entry& e : ads_) b.keys += heap_text(e.first) + heap_text(e.second.type);
  if (order_.capacity()) b.order = chunk(order_.capacity() * sizeof(const Entry*));
  for (const auto& index : index_) {
    // A node: next pointer, the pair and the cached hash; then the bucket array.
    using Node = std::pair<const std::string, KeySet>;
    b.indexes += index.size() * chunk(2 * sizeof(void*) + sizeof(Node)) +
                 index.bucket_count() * sizeof(void*);
    for (const auto& kv : index) {
      b.indexes += heap_text(kv.first);
      if (kv.second.table_bytes()) b.indexes += chunk(kv.second.table_bytes());
    }
  }
  b.columns = columns_.bytes();
  return b;
}

}  // namespace kite::collector
