// The slots as one cycle sees them: which may take a job and why (idle, or claimed and running a
// job that could be preempted), and for partitionable slots what is left of each resource after
// the cycle's earlier matches. A partitionable slot is matched through a private copy of its ad
// whose Cpus, Memory, Disk and custom resources shrink as jobs are matched to it, so the slot's
// own Requirements (WithinResourceLimits) see what is left; the caller's ads are not touched.
// HTCONDOR: central-manager "Negotiation" (step 4); ep-configuration "Dynamic Provisioning".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/eval_env.h"
#include "policy/negotiator/knobs.h"
#include "policy/startd/requests.h"

namespace kite::negotiator {

enum class SlotUse : uint8_t {
  kIdle,     // Unclaimed (or Backfill, or no State): a match preempts nothing
  kRunning,  // Claimed and running a job: only a preemption can take it
  kSkip,     // Claimed/Idle, Matched, Preempting, Drained, Owner, Delete: not offered
};

struct SlotView {
  classad::ClassAd* ad = nullptr;  // what matching sees (a partitionable slot's own copy)
  classad::AdPtr copy;             // that copy, for partitionable slots
  SlotUse use = SlotUse::kSkip;
  bool partitionable = false;
  bool taken = false;        // matched (a static slot) or preempted in this cycle
  uint32_t version = 0;      // bumps when a partitionable slot's resources shrink
  std::string remote_user;   // RemoteUser of a running claim
  double current_rank = 0;   // CurrentRank: the machine's Rank of the running job
  double weight = -1;        // static slots: SLOT_WEIGHT, read once per cycle (< 0: not yet)
  double remote_prio = 0.5;  // effective priority of `remote_user` (running slots)
  bool dynamic = false;      // a dynamic slot (DynamicSlot)
  // Running slots: RetirementTimeRemaining at the cycle's time (0 when none is left).
  int64_t retirement_left = 0;
  // Partitionable slots (ALLOW_PSLOT_PREEMPTION): its running dynamic slots, by index.
  std::vector<uint32_t> children;
  // Partitionable slots: what is left (Cpus, Memory, Disk) and of each custom resource;
  // running dynamic slots: what they hold (Cpus, Memory, Disk).
  int64_t have[startd::kStdResourceCount] = {};
  // Partitionable slots with a consumption policy (Consumption<resource> for every resource
  // they advertise): what a job takes is what those expressions say.
  bool consumption = false;
  std::vector<uint32_t> custom_ids;          // resource attribute ids (GPUs, ...)
  std::vector<uint32_t> custom_req;          // the job attribute asking for each (RequestGPUs, ...)
  std::vector<uint32_t> custom_consumption;  // Consumption<resource> of each
  std::vector<int64_t> custom_have;
};

/// What one job takes of a partitionable slot, rounded as the startd carves it.
struct Take {
  int64_t std[startd::kStdResourceCount] = {};
  std::vector<int64_t> custom;  // parallel to SlotView::custom_ids
};

/// The cycle's view of `ad`.
SlotView slot_view(classad::ClassAd* ad);

/// RetirementTimeRemaining of a running slot at the time `env` gives (0 when missing or past).
int64_t retirement_left(const classad::ClassAd& ad, const classad::EvalEnv* env);

/// Fills each idle partitionable slot's `children` with its running dynamic slots (the same
/// Machine, and ParentSlotId equal to its SlotID), but those already retiring.
void link_children(std::vector<SlotView>* slots);

/// What `job` would take of partitionable slot `s` (requests read and checked by the startd's
/// request_amount, sized by MODIFY_REQUEST_EXPR_*), and whether that fits what is left. False
/// when a request is bad or does not fit.
bool take_fits(const Knobs& knobs, classad::ClassAd& job, const SlotView& s, Take* take);

/// What a match of `take` costs in the pie on partitionable slot `s` with a consumption policy:
/// "the difference in the slot weight expression before and after the resources consumed by the
/// match are deducted from the slot" (startd SLOT_WEIGHT).
double consumption_cost(const SlotView& s, const Take& take);

/// Subtracts `take` from partitionable slot `s` and publishes what is left in its ad.
void take_from(SlotView& s, const Take& take);

}  // namespace kite::negotiator
