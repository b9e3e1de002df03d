// Significant attributes and the grouping of jobs into autoclusters (see autocluster.h).
#include "policy/negotiator/autocluster.h"
#include "policy/negotiator/job_memo.h"

#include <strings.h>

#include <algorithm>
#include <cstring>

#include "policy/classad/expr_share.h"
#include "policy/classad/functions.h"
#include "policy/classad/hash.h"
#include "policy/startd/text_util.h"

namespace kite::negotiator {
namespace {

using classad::AttrExpr;
using classad::ClassAd;
using classad::Expr;
using classad::ExprKind;

constexpr int kMaxDepth = 32;  // own attributes followed through one another (cycles end here)

// A call whose value may depend on more than its arguments: the clock (every time function,
// to be safe), mapfiles, the user database, ads matched by name.
bool reads_outside(const classad::CallExpr& c) {
  static const classad::FunctionTable time_fns = classad::functions_time();
  for (size_t i = 0; i < time_fns.count; ++i)
    if (c.fn == &time_fns.entries[i]) return true;
  std::string_view fn = c.name->view();
  for (const char* name : {"userMap", "userHome", "countMatches"})
    if (fn.size() == std::strlen(name) && strncasecmp(fn.data(), name, fn.size()) == 0) return true;
  return false;
}

void walk(const Expr* e, TreeRefs& out) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kLiteral: {
      const classad::Value& v = classad::as_literal(e)->value;
      if (v.is_list()) {
        for (const Expr* item : v.as_list()->items) walk(item, out);
      }
      if (v.is_classad()) out.unstable = true;
      return;
    }
    case ExprKind::kAttr: {
      const AttrExpr* a = classad::as_attr(e);
      if (!a->base) {
        if (a->name_id > classad::kIdLastReserved && a->name_id != classad::kIdOther) {
          out.plain.push_back(a->name_id);
        } else if (a->name_id == classad::kIdTarget || a->name_id == classad::kIdOther) {
          out.opaque = true;
        } else {
          out.unstable = true;
        }
        return;
      }
      if (a->name_id <= classad::kIdLastReserved) out.unstable = true;  // MY.CurrentTime, ...
      if (a->base->kind == ExprKind::kAttr) {
        const AttrExpr* b = classad::as_attr(a->base);
        if (!b->base && b->name_id == classad::kIdTarget) {
          out.target.push_back(a->name_id);
          return;
        }
        if (!b->base && b->name_id == classad::kIdMy) {
          out.own.push_back(a->name_id);
          return;
        }
      }
      walk(a->base, out);
      return;
    }
    case ExprKind::kOp: {
      const classad::OpExpr* o = classad::as_op(e);
      walk(o->a, out);
      walk(o->b, out);
      walk(o->c, out);
      return;
    }
    case ExprKind::kCall: {
      const classad::CallExpr* c = classad::as_call(e);
      std::string_view fn = c->name->view();
      if ((fn.size() == 6 && strncasecmp(fn.data(), "random", 6) == 0) ||
          (fn.size() >= 4 && strncasecmp(fn.data(), "eval", 4) == 0))
        out.opaque = true;
      if (out.opaque || reads_outside(*c)) out.unstable = true;
      for (uint32_t i = 0; i < c->nargs; ++i) walk(c->args[i], out);
      return;
    }
  }
}

void refs_of(const ClassAd& my, const Expr* root, RefMemo& memo, std::vector<uint32_t>& out,
             bool* opaque, int depth) {
  if (!root) return;
  if (depth > kMaxDepth) {
    *opaque = true;
    return;
  }
  const TreeRefs& r = memo.refs(root);
  if (r.opaque) *opaque = true;
  out.insert(out.end(), r.target.begin(), r.target.end());
  for (uint32_t id : r.own) refs_of(my, my.lookup_id(id), memo, out, opaque, depth + 1);
  for (uint32_t id : r.plain) {
    const Expr* own = my.lookup_id(id);
    if (own) {
      refs_of(my, own, memo, out, opaque, depth + 1);
    } else {
      out.push_back(id);
    }
  }
}

// The job attributes `root`, evaluated with `slot` as MY, refers to.
void slot_refs(const ClassAd& slot, const Expr* root, RefMemo& memo, std::vector<uint32_t>& out,
               int depth) {
  bool opaque = false;
  refs_of(slot, root, memo, out, &opaque, depth);
}

uint32_t id_of(const char* name) {
  return classad::intern_name(name).id;
}

}  // namespace

void partner_refs(const ClassAd& my, const Expr* root, RefMemo& memo, std::vector<uint32_t>& out,
                  bool* opaque) {
  refs_of(my, root, memo, out, opaque, 0);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

const TreeRefs& RefMemo::refs(const Expr* root) {
  auto it = memo_.find(root);
  if (it != memo_.end()) return it->second;
  TreeRefs r;
  walk(root, r);
  return memo_.emplace(root, std::move(r)).first->second;
}

void slot_attrs(const ClassAd& slot, const std::vector<const Expr*>& extra, RefMemo& memo,
                std::vector<uint32_t>& out, std::vector<const Expr*>* seen_resources) {
  static const uint32_t kRequirements = id_of("Requirements");
  static const uint32_t kRank = id_of("Rank");
  static const uint32_t kMachineResources = id_of("MachineResources");
  slot_refs(slot, slot.lookup_id(kRequirements), memo, out, 0);
  slot_refs(slot, slot.lookup_id(kRank), memo, out, 0);
  for (const Expr* e : extra) slot_refs(slot, e, memo, out, 0);
  const Expr* res = slot.lookup_id(kMachineResources);
  if (res && res->kind == ExprKind::kLiteral && classad::as_literal(res)->value.is_string()) {
    if (seen_resources) {
      if (std::find(seen_resources->begin(), seen_resources->end(), res) != seen_resources->end())
        return;
      seen_resources->push_back(res);
    }
    for (const std::string& name :
         startd::split_list(classad::as_literal(res)->value.as_string())) {
      out.push_back(classad::intern_name("Request" + name).id);
    }
  }
}

std::vector<uint32_t> slot_side_attrs(const std::vector<const ClassAd*>& slots,
                                      const std::vector<const Expr*>& extra, RefMemo& memo) {
  std::vector<uint32_t> out = {id_of("RequestCpus"), id_of("RequestMemory"), id_of("RequestDisk"),
                               id_of("ConcurrencyLimits")};
  std::vector<const Expr*> seen_resources;
  for (const ClassAd* slot : slots) {
    if (slot) slot_attrs(*slot, extra, memo, out, &seen_resources);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void AutoclusterBuilder::job_refs(const ClassAd& job, const Expr* root, Key& key, int depth) {
  if (!root || depth > kMaxDepth) return;
  const TreeRefs& r = memo_.refs(root);
  for (const std::vector<uint32_t>* ids : {&r.own, &r.plain}) {
    for (uint32_t id : *ids) {
      const Expr* e = job.lookup_id(id);
      if (!e) continue;
      bool known = false;
      for (const auto& kv : key) known = known || kv.first == id;
      if (known) continue;
      key.emplace_back(id, e);
      job_refs(job, e, key, depth + 1);
    }
  }
}

bool AutoclusterBuilder::same(const Key& a, const Key& b) const {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first) return false;
    if (a[i].second != b[i].second && !classad::expr_equal(a[i].second, b[i].second)) return false;
  }
  return true;
}

void AutoclusterBuilder::make_key(const ClassAd& job, Key& key) {
  static const uint32_t kRequirements = id_of("Requirements");
  static const uint32_t kRank = id_of("Rank");
  key.clear();
  for (uint32_t id : slot_side_) {
    if (const Expr* e = job.lookup_id(id)) key.emplace_back(id, e);
  }
  for (uint32_t id : {kRequirements, kRank}) {
    const Expr* e = job.lookup_id(id);
    if (!e) continue;
    bool known = false;
    for (const auto& kv : key) known = known || kv.first == id;
    if (!known) key.emplace_back(id, e);
    job_refs(job, e, key, 0);
  }
  std::sort(key.begin(), key.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

uint32_t AutoclusterBuilder::cluster_of(uint32_t group, const ClassAd& job) {
  const uint32_t next = static_cast<uint32_t>(groups_.size());
  if (jobs_) {
    // Equal keys have one id (kept across cycles): the cluster is the group's for that id.
    JobMemo::Entry& m = jobs_->at(job);
    if (m.key == JobMemo::kNoKey) {
      make_key(job, scratch_);
      m.key = jobs_->key_id(scratch_);
    }
    auto [it, fresh] = by_key_id_.emplace((uint64_t{group} << 32) | m.key, next);
    if (fresh) groups_.push_back(group);
    return it->second;
  }
  Key& key = scratch_;
  make_key(job, key);
  uint64_t h = classad::hash::mix(0, group);
  for (const auto& kv : key)
    h = classad::hash::mix(classad::hash::mix(h, kv.first), kv.second->hash);
  std::vector<uint32_t>& bucket = by_hash_[h];
  for (uint32_t c : bucket) {
    if (groups_[c] == group && same(keys_[c], key)) return c;
  }
  keys_.push_back(key);
  groups_.push_back(group);
  bucket.push_back(next);
  return next;
}

}  // namespace kite::negotiator
