// The numbered transition table of the startd (see state_table.h) and the step over it.
#include "policy/startd/state_table.h"

#include <strings.h>

namespace kite::startd {

namespace {

const char* const kStateNames[] = {
#define X(n) #n,
    KITE_STARTD_STATES(X)
#undef X
};
const char* const kActivityNames[] = {
#define X(n) #n,
    KITE_STARTD_ACTIVITIES(X)
#undef X
};
const char* const kEntryWorkText[] = {
#define X(n, d) d,
    KITE_STARTD_ENTRY_WORK(X)
#undef X
};
const char* const kTriggerText[] = {
#define X(n, d) d,
    KITE_STARTD_TRIGGERS(X)
#undef X
};

using S = State;
using A = Activity;
using T = Trigger;
using W = EntryWork;

// clang-format off
const TransitionRow kTable[] = {
  // HTCONDOR: ep-policy "Owner State": transition 36 (drain), 1 (IS_OWNER false)
  {36, S::kOwner, A::kIdle, T::kDrainRequested, S::kDrained, A::kRetiring, W::kNone, false},
  {0,  S::kOwner, A::kIdle, T::kClaimInOwner, S::kClaimed, A::kIdle, W::kTakeClaim, false},
  {1,  S::kOwner, A::kIdle, T::kIsOwnerFalse, S::kUnclaimed, A::kIdle, W::kNone, true},
  // HTCONDOR: ep-policy "Unclaimed State": 37, 2, 5, 6, 3, 7
  {37, S::kUnclaimed, A::kIdle, T::kDrainRequested, S::kDrained, A::kRetiring, W::kNone, false},
  {2,  S::kUnclaimed, A::kIdle, T::kShutdown, S::kOwner, A::kIdle, W::kNone, false},
  {2,  S::kUnclaimed, A::kIdle, T::kIsOwnerTrue, S::kOwner, A::kIdle, W::kNone, false},
  {5,  S::kUnclaimed, A::kIdle, T::kClaimAccepted, S::kClaimed, A::kIdle, W::kTakeClaim, false},
  {6,  S::kUnclaimed, A::kIdle, T::kMatchAccepted, S::kMatched, A::kIdle, W::kAwaitClaim, false},
  {3,  S::kUnclaimed, A::kIdle, T::kRunBenchmarks, S::kUnclaimed, A::kBenchmarking, W::kRunBenchmarks, false},
  {7,  S::kUnclaimed, A::kIdle, T::kStartBackfill, S::kBackfill, A::kIdle, W::kNone, false},
  {37, S::kUnclaimed, A::kBenchmarking, T::kDrainRequested, S::kDrained, A::kRetiring, W::kNone, false},
  {4,  S::kUnclaimed, A::kBenchmarking, T::kBenchmarkDone, S::kUnclaimed, A::kIdle, W::kNone, true},
  // HTCONDOR: ep-policy "Matched State": 9 (claimed), 8 (START false, MATCH_TIMEOUT, vacate)
  {9,  S::kMatched, A::kIdle, T::kClaimAccepted, S::kClaimed, A::kIdle, W::kTakeClaim, false},
  {8,  S::kMatched, A::kIdle, T::kMatchEnds, S::kOwner, A::kIdle, W::kNone, false},
  // HTCONDOR: ep-policy "Claimed State": 10, 11
  {10, S::kClaimed, A::kIdle, T::kClaimEnds, S::kPreempting, A::kVacating, W::kNone, false},
  {11, S::kClaimed, A::kIdle, T::kActivated, S::kClaimed, A::kBusy, W::kStartJob, false},
  // Claimed/Busy: 12 (starter exit), fast eviction, 14 (suspend), 13 (retire)
  {12, S::kClaimed, A::kBusy, T::kStarterExited, S::kClaimed, A::kIdle, W::kEndJob, true},
  {0,  S::kClaimed, A::kBusy, T::kJobExited, S::kClaimed, A::kCleaning, W::kEndJob, false},
  {0,  S::kClaimed, A::kBusy, T::kFastEviction, S::kPreempting, A::kKilling, W::kNone, false},
  {14, S::kClaimed, A::kBusy, T::kSuspend, S::kClaimed, A::kSuspended, W::kSuspendJob, false},
  {13, S::kClaimed, A::kBusy, T::kRetire, S::kClaimed, A::kRetiring, W::kNone, false},
  // Claimed/Suspended: 15, 16, 17
  {0,  S::kClaimed, A::kSuspended, T::kFastEviction, S::kPreempting, A::kKilling, W::kNone, false},
  {17, S::kClaimed, A::kSuspended, T::kRetirementOver, S::kPreempting, A::kVacating, W::kNone, false},
  {16, S::kClaimed, A::kSuspended, T::kContinueRetiring, S::kClaimed, A::kRetiring, W::kNone, false},
  {15, S::kClaimed, A::kSuspended, T::kContinue, S::kClaimed, A::kBusy, W::kNone, false},
  {16, S::kClaimed, A::kSuspended, T::kPreemptSuspended, S::kClaimed, A::kRetiring, W::kNone, false},
  // Claimed/Retiring: 18, 19, 20
  {0,  S::kClaimed, A::kRetiring, T::kFastEviction, S::kPreempting, A::kKilling, W::kNone, false},
  {18, S::kClaimed, A::kRetiring, T::kStarterExited, S::kPreempting, A::kVacating, W::kNone, false},
  {0,  S::kClaimed, A::kRetiring, T::kJobExited, S::kClaimed, A::kCleaning, W::kEndJob, false},
  {18, S::kClaimed, A::kRetiring, T::kRetirementOver, S::kPreempting, A::kVacating, W::kNone, false},
  {19, S::kClaimed, A::kRetiring, T::kUnretire, S::kClaimed, A::kBusy, W::kUnretire, false},
  {20, S::kClaimed, A::kRetiring, T::kSuspend, S::kClaimed, A::kSuspended, W::kSuspendJob, false},
  // HTCONDOR: machine-classad-attributes Activity "Cleaning": the job is gone, the starter is
  // still cleaning up; when it exits, Idle, or Preempting when a release or eviction is pending.
  // No policy runs for a job here (there is none), so these are the only ways out.
  {0,  S::kClaimed, A::kCleaning, T::kCleanedEvict, S::kPreempting, A::kVacating, W::kNone, false},
  {0,  S::kClaimed, A::kCleaning, T::kCleaned, S::kClaimed, A::kIdle, W::kNone, true},
  // HTCONDOR: ep-policy "Preempting State": 23/22 (starter gone), 21 (KILL / vacate time)
  {23, S::kPreempting, A::kVacating, T::kGoneToNewClaim, S::kClaimed, A::kIdle, W::kSwitchClaim, true},
  {22, S::kPreempting, A::kVacating, T::kGoneToOwner, S::kOwner, A::kIdle, W::kEndClaim, false},
  {21, S::kPreempting, A::kVacating, T::kKillNow, S::kPreempting, A::kKilling, W::kKillJob, false},
  {24, S::kPreempting, A::kKilling, T::kGoneToNewClaim, S::kClaimed, A::kIdle, W::kSwitchClaim, true},
  {25, S::kPreempting, A::kKilling, T::kGoneToOwner, S::kOwner, A::kIdle, W::kEndClaim, false},
  // HTCONDOR: ep-policy "Backfill State": 26..32
  {30, S::kBackfill, A::kIdle, T::kBackfillToOwner, S::kOwner, A::kIdle, W::kForgetBackfill, false},
  {31, S::kBackfill, A::kIdle, T::kBackfillToClaimed, S::kClaimed, A::kIdle, W::kTakeClaim, false},
  {32, S::kBackfill, A::kIdle, T::kBackfillToMatched, S::kMatched, A::kIdle, W::kAwaitClaim, false},
  {26, S::kBackfill, A::kIdle, T::kBackfillSpawned, S::kBackfill, A::kBusy, W::kNone, true},
  {28, S::kBackfill, A::kBusy, T::kBackfillEvict, S::kBackfill, A::kKilling, W::kStopBackfill, false},
  {27, S::kBackfill, A::kBusy, T::kBackfillExited, S::kBackfill, A::kIdle, W::kNone, false},
  {29, S::kBackfill, A::kKilling, T::kBackfillExited, S::kBackfill, A::kIdle, W::kNone, true},
  // HTCONDOR: ep-policy "Drained State": 33, 34, 35
  {35, S::kDrained, A::kRetiring, T::kDrainCanceled, S::kOwner, A::kIdle, W::kNone, false},
  {33, S::kDrained, A::kRetiring, T::kAllDrained, S::kDrained, A::kIdle, W::kNone, false},
  {34, S::kDrained, A::kIdle, T::kDrainCanceled, S::kOwner, A::kIdle, W::kNone, false},
};
// clang-format on

}  // namespace

const char* state_name(State s) {
  return kStateNames[static_cast<int>(s)];
}
const char* activity_name(Activity a) {
  return kActivityNames[static_cast<int>(a)];
}
const char* trigger_text(Trigger t) {
  return kTriggerText[static_cast<int>(t)];
}
const char* entry_work_text(EntryWork w) {
  return kEntryWorkText[static_cast<int>(w)];
}

bool state_parse(const char* s, int len, State* out) {
  for (int i = 0; i < static_cast<int>(sizeof kStateNames / sizeof *kStateNames); ++i) {
    if (static_cast<int>(__builtin_strlen(kStateNames[i])) == len &&
        strncasecmp(kStateNames[i], s, len) == 0) {
      *out = static_cast<State>(i);
      return true;
    }
  }
  return false;
}

bool activity_parse(const char* s, int len, Activity* out) {
  for (int i = 0; i < static_cast<int>(sizeof kActivityNames / sizeof *kActivityNames); ++i) {
    if (static_cast<int>(__builtin_strlen(kActivityNames[i])) == len &&
        strncasecmp(kActivityNames[i], s, len) == 0) {
      *out = static_cast<Activity>(i);
      return true;
    }
  }
  return false;
}

const TransitionRow* transition_table(int* count) {
  *count = static_cast<int>(sizeof kTable / sizeof *kTable);
  return kTable;
}

namespace {
constexpr int kStates = static_cast<int>(State::kDrained) + 1;
constexpr int kActivities = static_cast<int>(Activity::kCleaning) + 1;
constexpr int kRows = static_cast<int>(sizeof kTable / sizeof *kTable);

// Rows per source pair, in table order (built once; the step is on the polling path).
struct Index {
  uint8_t rows[kStates][kActivities][12];
  uint8_t count[kStates][kActivities];
  Index() : rows{}, count{} {
    for (int i = 0; i < kRows; ++i) {
      int st = static_cast<int>(kTable[i].from_state),
          ac = static_cast<int>(kTable[i].from_activity);
      if (count[st][ac] < 12) rows[st][ac][count[st][ac]++] = static_cast<uint8_t>(i);
    }
  }
};
const Index& index() {
  static const Index idx;
  return idx;
}
}  // namespace

const TransitionRow* transition_step(State s, Activity a, TriggerFn holds, void* ctx) {
  const Index& idx = index();
  int st = static_cast<int>(s), ac = static_cast<int>(a);
  for (int k = 0; k < idx.count[st][ac]; ++k) {
    const TransitionRow& r = kTable[idx.rows[st][ac][k]];
    if (holds(r.trigger, ctx)) return &r;
  }
  return nullptr;
}

}  // namespace kite::startd
