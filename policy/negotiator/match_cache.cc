// Match answers remembered across cycles, and what an answer reads (see match_cache.h).
#include "policy/negotiator/match_cache.h"

#include <algorithm>

#include "policy/classad/expr_share.h"
#include "policy/negotiator/cycle_settings.h"

namespace kite::negotiator {
namespace {

using classad::ClassAd;
using classad::Expr;

constexpr int kMaxDepth = 32;                  // attributes followed through one another
constexpr size_t kMaxSides = 4096;             // distinct job sides kept before starting over
constexpr size_t kMaxTrees = size_t{1} << 18;  // trees held before starting over

uint32_t id_of(const char* name) {
  return classad::intern_name(name).id;
}

// What evaluating a job against a slot reads of the job, found by following every attribute
// reference from the roots through both ads as the evaluator resolves them: MY.x in the ad
// being evaluated, TARGET.x in the other, a plain x in the ad being evaluated and else in the
// other. `ok` turns false when something else may be read.
class Reach {
 public:
  Reach(const ClassAd& job, RefMemo& memo, std::vector<const Expr*>& trees)
      : job_(job), memo_(memo), trees_(trees) {}
  void tree(const ClassAd& my, const ClassAd& other, const Expr* root, int depth) {
    if (!ok || !root) return;
    if (depth > kMaxDepth) {
      ok = false;
      return;
    }
    trees_.push_back(root);
    const TreeRefs& r = memo_.refs(root);
    if (r.opaque || r.unstable) {
      ok = false;
      return;
    }
    for (uint32_t id : r.target) attr(other, my, id, depth);
    for (uint32_t id : r.own) attr(my, other, id, depth);
    for (uint32_t id : r.plain) {
      if (my.lookup_id(id)) {
        attr(my, other, id, depth);
      } else {
        if (&my == &job_) note(id, nullptr);
        attr(other, my, id, depth);
      }
    }
  }
  // Attribute `id` of `ad`, evaluated with `ad` as MY.
  void attr(const ClassAd& ad, const ClassAd& other, uint32_t id, int depth) {
    if (!ok) return;
    if (id <= classad::kIdLastReserved) {
      ok = false;
      return;
    }
    for (const auto& v : visited_)
      if (v.first == &ad && v.second == id) return;
    visited_.emplace_back(&ad, id);
    const Expr* e = ad.lookup_id(id);
    if (&ad == &job_) note(id, e);
    tree(ad, other, e, depth + 1);
  }
  std::vector<std::pair<uint32_t, const Expr*>> job_attrs;
  bool ok = true;

 private:
  void note(uint32_t id, const Expr* e) {
    for (const auto& a : job_attrs)
      if (a.first == id) return;
    job_attrs.emplace_back(id, e);
  }
  const ClassAd& job_;
  RefMemo& memo_;
  std::vector<const Expr*>& trees_;
  std::vector<std::pair<const ClassAd*, uint32_t>> visited_;
};

bool same_expr(const Expr* a, const Expr* b) {
  return a == b || (a && b && classad::expr_equal(a, b));
}

}  // namespace

MatchCache::~MatchCache() {
  clear();
}

void MatchCache::clear() {
  for (JobSide& s : sides_)
    for (auto& a : s.attrs)
      if (a.second) classad::expr_unref(a.second);
  sides_.clear();
  fits_.clear();
  slots_.clear();
  refs_ = RefMemo();
  for (const Expr* e : held_) classad::expr_unref(const_cast<Expr*>(e));
  held_.clear();
  job_ = nullptr;
}

void MatchCache::begin_cycle(const std::shared_ptr<const CycleSettings>& settings, size_t slots) {
  if (settings != settings_ || sides_.size() > kMaxSides || held_.size() > kMaxTrees) {
    clear();
    settings_ = settings;
  }
  // Answers of slots no longer offered (or gone) stay until there are many of them.
  if (slots_.size() > 4 * slots + 1024) slots_.clear();
  job_ = nullptr;
}

void MatchCache::begin_job(const ClassAd& job) {
  job_ = &job;
  fits_.assign(sides_.size(), 2);
}

bool MatchCache::side_fits(uint32_t side) {
  if (fits_[side] == 2) {
    bool fits = true;
    for (const auto& a : sides_[side].attrs) {
      if (!same_expr(job_->lookup_id(a.first), a.second)) {
        fits = false;
        break;
      }
    }
    fits_[side] = fits ? 1 : 0;
  }
  return fits_[side] == 1;
}

const CachedMatch* MatchCache::find(const ClassAd& slot) {
  if (!job_ || slot.parent()) return nullptr;
  auto it = slots_.find(&slot);
  if (it == slots_.end() || it->second.generation != slot.generation()) return nullptr;
  for (const auto& [side, answer] : it->second.by_side)
    if (side_fits(side)) return &answer;
  return nullptr;
}

void MatchCache::hold(const Expr* tree) {
  if (held_.insert(tree).second) classad::expr_ref(const_cast<Expr*>(tree));
}

uint32_t MatchCache::side_index(const std::vector<std::pair<uint32_t, const Expr*>>& attrs) {
  for (uint32_t i = 0; i < sides_.size(); ++i) {
    const auto& have = sides_[i].attrs;
    if (have.size() != attrs.size()) continue;
    bool same = true;
    for (size_t k = 0; k < have.size() && same; ++k)
      same = have[k].first == attrs[k].first && same_expr(have[k].second, attrs[k].second);
    if (same) return i;
  }
  JobSide side;
  for (const auto& a : attrs) {
    if (a.second) classad::expr_ref(const_cast<Expr*>(a.second));
    side.attrs.emplace_back(a.first, const_cast<Expr*>(a.second));
  }
  sides_.push_back(std::move(side));
  fits_.push_back(2);
  return static_cast<uint32_t>(sides_.size() - 1);
}

MatchCache::SlotAnswers& MatchCache::entry(const ClassAd& slot) {
  SlotAnswers& at = slots_[&slot];
  if (at.generation != slot.generation()) {
    at.generation = slot.generation();
    at.by_side.clear();
    at.has_attrs = false;
    at.attrs.clear();
  }
  return at;
}

const std::vector<uint32_t>& MatchCache::slot_attrs(const ClassAd& slot,
                                                    const std::vector<const Expr*>& extra,
                                                    RefMemo& memo) {
  SlotAnswers& at = entry(slot);
  if (!at.has_attrs) {
    negotiator::slot_attrs(slot, extra, memo, at.attrs);
    std::sort(at.attrs.begin(), at.attrs.end());
    at.attrs.erase(std::unique(at.attrs.begin(), at.attrs.end()), at.attrs.end());
    at.has_attrs = true;
  }
  return at.attrs;
}

void MatchCache::remember(const ClassAd& job, const ClassAd& slot,
                          const std::vector<const Expr*>& roots, const CachedMatch& answer) {
  static const uint32_t kRequirements = id_of("Requirements");
  static const uint32_t kRank = id_of("Rank");
  // (An ad with an attribute named MY or TARGET changes how MY.x and TARGET.x resolve.)
  if (&job != job_ || job.parent() || slot.parent() || classad::g_my_target_defined) return;
  std::vector<const Expr*> trees;
  Reach reach(job, refs_, trees);
  reach.attr(job, slot, kRequirements, 0);
  reach.attr(job, slot, kRank, 0);
  reach.attr(slot, job, kRequirements, 0);
  for (const Expr* root : roots) reach.tree(slot, job, root, 0);
  // The memo's keys must outlive it: each tree it walked is held.
  for (const Expr* t : trees) hold(t);
  if (!reach.ok) return;
  std::sort(reach.job_attrs.begin(), reach.job_attrs.end());
  const uint32_t side = side_index(reach.job_attrs);
  entry(slot).by_side.emplace_back(side, answer);
  fits_[side] = 1;  // the job it was made from has those values
}

}  // namespace kite::negotiator
