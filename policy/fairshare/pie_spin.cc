// The pie spin: the below-floor round, then spins dividing the pie by inverse EUP until the
// slot weight or the demand runs out.
#include "policy/fairshare/pie_spin.h"

#include <algorithm>
#include <cmath>

namespace kite::fairshare {
namespace {

// Slot weights are sums of doubles; compare them with some slack.
constexpr double kEps = 1e-9;

}  // namespace

bool slice_allows(const Slice& slice, double matched, double weight) {
  if (matched + weight <= slice.limit + kEps) return true;
  return slice.at_least_one && matched <= 0;
}

PieSpin::PieSpin(std::vector<PieSubmitter> submitters, double pool_weight, double available,
                 double min_slot_weight)
    : subs_(std::move(submitters)),
      state_(subs_.size()),
      pool_weight_(pool_weight),
      available_(available),
      min_slot_weight_(min_slot_weight > 0 ? min_slot_weight : 1) {}

double PieSpin::wants(size_t i) const {
  const PieSubmitter& s = subs_[i];
  double w = s.demand - state_[i].matched;
  if (s.ceiling >= 0) w = std::min(w, s.ceiling - s.usage - state_[i].matched);
  return w;
}

bool PieSpin::active(size_t i) const {
  return !state_[i].done && wants(i) > kEps;
}

std::vector<size_t> PieSpin::by_priority(bool nice) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < subs_.size(); ++i)
    if (subs_[i].nice == nice && active(i)) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    if (subs_[a].eup != subs_[b].eup) return subs_[a].eup < subs_[b].eup;
    return subs_[a].name < subs_[b].name;
  });
  return out;
}

bool PieSpin::next(Spin* out) {
  out->slices.clear();
  const double left = pie_left();
  // A leftover spin that matched nothing means nobody can use what is left.
  if (next_number_ >= 3 && matched_this_spin_ <= kEps) return false;
  matched_this_spin_ = 0;
  if (left < kEps) return false;

  if (next_number_ == 0) {
    next_number_ = 1;
    for (size_t i : by_priority(false)) {
      const PieSubmitter& s = subs_[i];
      if (s.floor <= 0 || s.usage >= s.floor) continue;
      double limit = std::min({s.floor - s.usage, wants(i), left});
      out->slices.push_back({i, limit, false});
    }
    if (!out->slices.empty()) {
      out->number = 0;
      return true;
    }
  }

  // Nice-user submitters spin only once nobody else wants anything.
  std::vector<size_t> order = by_priority(false);
  bool nice_round = order.empty();
  if (nice_round) order = by_priority(true);
  if (order.empty()) return false;

  double inverse_sum = 0;
  for (size_t i : order) inverse_sum += 1 / std::max(subs_[i].eup, kEps);
  const int number = next_number_++;
  // The first spin divides the whole pool and subtracts what each already holds, so usage
  // counts against the share; later spins divide what is left.
  const bool first = number == 1 && !nice_round;
  // A submitter with running jobs and nothing to match still has its slice of the first spin:
  // the reference's negotiator "finds all users who have submitted jobs" (every submitter the
  // schedds advertise, running jobs or idle) and divides the pie by all their priorities, so a
  // newcomer's slice is its share, not the whole pool, and it preempts no more than that.
  if (first) {
    for (size_t i = 0; i < subs_.size(); ++i) {
      if (!subs_[i].nice && subs_[i].usage > kEps && !active(i))
        inverse_sum += 1 / std::max(subs_[i].eup, kEps);
    }
  }
  const double later_left = unclaimed_ >= 0 ? std::min(left, unclaimed_) : left;
  if (!first && later_left < kEps) return false;
  for (size_t i : order) {
    const PieSubmitter& s = subs_[i];
    const double share = (1 / std::max(s.eup, kEps)) / inverse_sum;
    double limit = first ? share * pool_weight_ - s.usage - state_[i].matched : share * later_left;
    limit = std::max(0.0, std::min({limit, wants(i), first ? left : later_left}));
    bool one = limit < min_slot_weight_ - kEps && (limit > kEps || !first);
    out->slices.push_back({i, limit, one});
  }
  out->number = number;
  return true;
}

void PieSpin::record(size_t i, double matched, bool out_of_jobs) {
  if (i >= state_.size()) return;
  state_[i].matched += matched;
  total_matched_ += matched;
  matched_this_spin_ += matched;
  if (out_of_jobs) state_[i].done = true;
}

std::vector<double> allocate_identical_slots(const std::vector<PieSubmitter>& submitters,
                                             double pool_weight, double available,
                                             double slot_weight) {
  PieSpin pie(submitters, pool_weight, available, slot_weight);
  double free_weight = available;
  Spin spin;
  while (pie.next(&spin)) {
    for (const Slice& slice : spin.slices) {
      double got = 0;
      const PieSubmitter& s = submitters[slice.submitter];
      double demand_left = s.demand - pie.matched(slice.submitter);
      while (free_weight >= slot_weight - kEps && demand_left - got >= slot_weight - kEps &&
             slice_allows(slice, got, slot_weight)) {
        got += slot_weight;
        free_weight -= slot_weight;
      }
      pie.record(slice.submitter, got, demand_left - got < slot_weight - kEps);
    }
  }
  std::vector<double> out(submitters.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = pie.matched(i);
  return out;
}

}  // namespace kite::fairshare
