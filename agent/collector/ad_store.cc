// The collector's ad store (see ad_store.h): keys, indexes, expiry, absent/offline ads, queries.
#include "agent/collector/ad_store.h"

#include <algorithm>
#include <cctype>

#include "agent/collector/constraint_index.h"
#include "policy/classad/parser.h"

namespace kite::collector {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ad_string(const classad::ClassAd& ad, const char* attr, std::string* out) {
  return ad.evaluate_string(attr, *out);
}

bool ad_flag(const classad::ClassAd& ad, const char* attr) {
  bool b = false;
  return ad.evaluate_bool(attr, b) && b;
}

bool mentions(std::string_view text, std::string_view word) {
  return lower(text).find(lower(word)) != std::string::npos;
}

}  // namespace

classad::AdPtr project(const classad::ClassAd& ad, const std::vector<std::string>& attrs) {
  if (attrs.empty()) return classad::AdPtr(ad.copy());
  classad::AdPtr out(classad::ClassAd::make());
  for (const std::string& a : attrs) {
    const classad::Expr* e = ad.lookup(a);
    if (!e) continue;
    if (e->kind != classad::ExprKind::kLiteral) return classad::AdPtr(ad.copy());
    out->insert(a, classad::expr_copy(e));
  }
  return out;
}

std::string AdStore::key_of(std::string_view type, std::string_view name) {
  std::string k = lower(type);
  k += '\n';
  k += lower(name);
  return k;
}

void AdStore::reindex(const std::string& key, StoredAd* s) {
  std::string v;
  for (int i = 0; i < 3; ++i) {
    bool has = ad_string(*s->ad, kIndexedAttrs[i], &v);
    if (has) {
      for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (has == s->has_indexed[i] && (!has || v == s->indexed[i])) continue;
    if (s->has_indexed[i]) {
      auto it = index_[i].find(s->indexed[i]);
      if (it != index_[i].end()) {
        it->second.erase(&key);
        if (it->second.empty()) index_[i].erase(it);
      }
    }
    s->has_indexed[i] = has;
    s->indexed[i] = has ? v : std::string();
    if (has) index_[i][v].insert(&key);
  }
}

void AdStore::index_remove(const std::string& key, const StoredAd& s) {
  for (int i = 0; i < 3; ++i) {
    if (!s.has_indexed[i]) continue;
    auto it = index_[i].find(s.indexed[i]);
    if (it == index_[i].end()) continue;
    it->second.erase(&key);
    if (it->second.empty()) index_[i].erase(it);
  }
}

void AdStore::set_expiry(StoredAd* s, int64_t now) const {
  s->offline = ad_flag(*s->ad, "Offline");
  if (s->offline) {
    s->expires = config_.offline_expire_after > 0 ? now + config_.offline_expire_after : 0;
    return;
  }
  // The ad's own ClassAdLifetime wins over CLASSAD_LIFETIME, as in HTCondor.
  int64_t lifetime = config_.classad_lifetime;
  int64_t own = 0;
  if (s->ad->evaluate_int("ClassAdLifetime", own) && own > 0) lifetime = own;
  s->expires = now + lifetime;
}

bool AdStore::update(std::string_view type, classad::AdPtr ad, int64_t now, bool merge,
                     std::string* err) {
  std::string name;
  if (!ad || !ad_string(*ad, "Name", &name)) {
    if (err) *err = "ad of type " + std::string(type) + " has no Name attribute";
    return false;
  }
  std::string key = key_of(type, name);
  auto it = ads_.find(key);
  if (it != ads_.end()) {
    StoredAd& s = it->second;
    bool was_persistent = s.absent || s.offline;
    if (merge && !s.absent) {
      for (const classad::ClassAd::Entry& e : ad->entries()) {
        s.ad->insert(e.name->view(), classad::expr_copy(e.expr));
      }
    } else {
      s.ad = std::move(ad);
    }
    // A machine that comes back replaces its absent ad.
    s.absent = false;
    s.ad->remove("Absent");
    s.updated = now;
    set_expiry(&s, now);
    if (was_persistent || s.offline) persistent_dirty_ = true;
    reindex(it->first, &s);
    return true;
  }
  StoredAd s;
  s.type = std::string(type);
  s.name = name;
  s.ad = std::move(ad);
  s.updated = now;
  set_expiry(&s, now);
  if (s.offline) persistent_dirty_ = true;
  auto added = ads_.emplace(std::move(key), std::move(s)).first;
  reindex(added->first, &added->second);
  return true;
}

bool AdStore::becomes_absent(StoredAd* s, int64_t now) {
  if (s->absent || s->offline || !config_.absent_requirements) return false;
  if (lower(s->type) != "machine") return false;
  classad::Value v = s->ad->evaluate_expr(config_.absent_requirements.get());
  if (!v.is_boolean() || !v.as_boolean()) return false;
  s->absent = true;
  s->ad->insert_value("Absent", classad::Value::boolean(true));
  s->expires = config_.absent_expire_after > 0 ? now + config_.absent_expire_after : 0;
  persistent_dirty_ = true;
  return true;
}

void AdStore::erase(std::map<std::string, StoredAd>::iterator it) {
  if (it->second.absent || it->second.offline) persistent_dirty_ = true;
  index_remove(it->first, it->second);
  ads_.erase(it);
}

bool AdStore::invalidate(std::string_view type, std::string_view name, int64_t now) {
  auto it = ads_.find(key_of(type, name));
  if (it == ads_.end()) return false;
  if (config_.expire_invalidated_ads && becomes_absent(&it->second, now)) return true;
  erase(it);
  return true;
}

size_t AdStore::expire(int64_t now) {
  size_t changed = 0;
  for (auto it = ads_.begin(); it != ads_.end();) {
    StoredAd& s = it->second;
    if (s.expires == 0 || s.expires > now) {
      ++it;
      continue;
    }
    ++changed;
    if (becomes_absent(&s, now)) {
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
  auto it = ads_.find(key_of(type, name));
  return it == ads_.end() ? nullptr : &it->second;
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
    std::vector<IndexedEquality> eqs;
    if (find_indexed_equality(q->constraint_.get(), kIndexedAttrs, 3, &eqs)) {
      for (const IndexedEquality& eq : eqs) {
        auto found = index_[eq.attr].find(lower(eq.value));
        if (found == index_[eq.attr].end()) continue;
        for (const std::string* k : found->second) q->keys_.push_back(*k);
      }
      std::sort(q->keys_.begin(), q->keys_.end());
      q->keys_.erase(std::unique(q->keys_.begin(), q->keys_.end()), q->keys_.end());
      q->used_index_ = true;
      return q;
    }
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
  if (used_index_) {
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
  // The type's keys are one run of the map ("type\n..." sorts before "type\x0b"): its end is
  // found once per chunk, not by comparing every key.
  auto it = cursor_.empty() ? store.ads_.lower_bound(prefix_) : store.ads_.upper_bound(cursor_);
  auto stop = prefix_.empty() ? store.ads_.end() : store.ads_.lower_bound(prefix_end_);
  for (; it != stop && budget > 0 && !limited(); ++it) {
    --budget;
    examine(store, it->second, out);
  }
  bool more = it != stop && !limited();
  if (!more) {
    scan_done_ = true;
  } else {
    cursor_ = std::prev(it)->first;
  }
  return more;
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

}  // namespace kite::collector
