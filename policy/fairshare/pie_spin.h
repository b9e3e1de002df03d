// The pie spin, pure: how much slot weight each submitter may match, spin by spin, from the
// inverse ratios of effective user priorities, floors, ceilings and demand. HTCONDOR:
// admin-manual/cm-configuration "The Layperson's Description of the Pie Spin and Pie Slice".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kite::fairshare {

/// One submitter as the negotiator sees it at the start of a cycle.
struct PieSubmitter {
  std::string name;
  double eup = 500;     // effective user priority (smaller is better)
  double usage = 0;     // slot weight it holds now
  double demand = 0;    // slot weight its idle jobs request
  double floor = 0;     // slot weight guaranteed (0 = none)
  double ceiling = -1;  // slot weight it may hold at most (< 0 = none)
  bool nice = false;    // nice-user: only gets what nobody else wants
};

/// What one submitter may match in one spin.
struct Slice {
  size_t submitter = 0;       // index into the submitters given to PieSpin
  double limit = 0;           // slot weight it may match in this spin
  bool at_least_one = false;  // its slice is under one slot: it may still take one slot if it
                              // has matched nothing yet in this spin
};

/// One round of negotiation: the slices in negotiation order (best EUP first).
struct Spin {
  int number = 0;  // 0 = the below-floor round, then 1, 2, ...
  std::vector<Slice> slices;
};

/// May a submitter holding `slice`, having matched `matched` in this spin, take a slot of
/// weight `weight` too?
bool slice_allows(const Slice& slice, double matched, double weight);

/// The spins of one cycle. The cycle asks next() for a spin, negotiates each slice in order,
/// reports what each submitter actually matched with record(), and asks again until next()
/// says the cycle is over (no slot weight left, or nobody wants or can take more).
class PieSpin {
 public:
  /// `pool_weight`: slot weight of every slot the cycle may match or preempt (the pie the
  /// first spin divides); `available`: slot weight of the unclaimed slots (what can be handed
  /// out); `min_slot_weight`: the weight of the smallest slot (a "slot" for at_least_one).
  PieSpin(std::vector<PieSubmitter> submitters, double pool_weight, double available,
          double min_slot_weight = 1);

  bool next(Spin* out);
  /// What submitter `i` matched in the spin just handed out; `out_of_jobs`: it has no further
  /// job any slot would take this cycle (the spin stops offering it slices).
  void record(size_t i, double matched, bool out_of_jobs);

  double matched(size_t i) const { return state_[i].matched; }
  double pie_left() const { return available_ - total_matched_; }
  /// The slot weight of the unclaimed slots left now. Spins after the first hand out only
  /// these: a submitter preempts within its first-spin slice, never with leftovers. Unset
  /// (< 0): no such limit.
  void set_unclaimed(double weight) { unclaimed_ = weight; }
  const std::vector<PieSubmitter>& submitters() const { return subs_; }

 private:
  struct State {
    double matched = 0;
    bool done = false;
  };
  double wants(size_t i) const;  // slot weight it could still take (demand, ceiling)
  bool active(size_t i) const;
  std::vector<size_t> by_priority(bool nice) const;

  std::vector<PieSubmitter> subs_;
  std::vector<State> state_;
  double pool_weight_;
  double available_;
  double min_slot_weight_;
  double total_matched_ = 0;
  double unclaimed_ = -1;
  double matched_this_spin_ = 0;
  int next_number_ = 0;
};

/// A whole cycle in which every slot (each of weight `slot_weight`) fits every job: what each
/// submitter gets. For simulators and tests; the negotiator matches real jobs per slice.
std::vector<double> allocate_identical_slots(const std::vector<PieSubmitter>& submitters,
                                             double pool_weight, double available,
                                             double slot_weight = 1);

}  // namespace kite::fairshare
