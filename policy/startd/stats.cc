// Machine-wide job statistics and per-slot time accounting published in the machine ads:
// JobStarts, JobPreemptions, JobRankPreemptions, JobUserPrioPreemptions and their Recent*
// (last twenty minutes), and TotalTime<State><Activity> (seconds spent in each pair).
// HTCONDOR: machine-classad-attributes JobStarts .. RecentJobUserPrioPreemptions, TotalTime*.
#include "policy/startd/engine.h"

#include <cstdio>

#include "policy/classad/expr.h"
#include "policy/classad/intern.h"
#include "policy/classad/parser.h"

namespace kite::startd {

namespace {

// "in the last twenty minutes"
constexpr int64_t kRecentWindow = 20 * 60;

// The last two are not in machine-classad-attributes but in every observed slot ad.
const char* const kStatNames[] = {"JobStarts",          "JobPreemptions",
                                  "JobRankPreemptions", "JobUserPrioPreemptions",
                                  "ClaimRequests",      "ActivationRequests"};

// The names interned once: these are written into every slot's ad many times a day.
const classad::InternedName& stat_name(int k, bool recent) {
  static classad::InternedName names[2][6];
  classad::InternedName& n = names[recent ? 1 : 0][k];
  if (!n.name)
    n = classad::intern_name((recent ? std::string("Recent") : std::string()) + kStatNames[k]);
  return n;
}

void put(SlotImpl& s, const classad::InternedName& n, Value v) {
  put_value(*s.ad, n, std::move(v));
}

constexpr int kStates = static_cast<int>(State::kDrained) + 1;
constexpr int kActivities = static_cast<int>(Activity::kCleaning) + 1;

// "TotalTime" + state + activity, interned once.
const classad::InternedName& pair_attr(State s, Activity a) {
  static classad::InternedName names[kStates][kActivities];
  classad::InternedName& n = names[static_cast<int>(s)][static_cast<int>(a)];
  if (!n.name)
    n = classad::intern_name(std::string("TotalTime") + state_name(s) + activity_name(a));
  return n;
}

}  // namespace

void Engine::count_stat(Stat which) {
  int k = static_cast<int>(which);
  sd.stat_total_[k]++;
  sd.stat_recent_n_[k]++;
  if (sd.stat_recent_.empty() || sd.stat_recent_.back().at != now)
    sd.stat_recent_.push_back(Startd::StatSecond{now, {}});
  sd.stat_recent_.back().n[k]++;
  sd.stat_version_++;
}

void Engine::expire_stats() {
  bool changed = false;
  while (!sd.stat_recent_.empty() && sd.stat_recent_.front().at <= now - kRecentWindow) {
    for (int k = 0; k < Startd::kStatCount; ++k)
      sd.stat_recent_n_[k] -= sd.stat_recent_.front().n[k];
    sd.stat_recent_.pop_front();
    changed = true;
  }
  if (changed) sd.stat_version_++;
}

// Machine-wide numbers would cost an update of every slot's ad at every job start: they are
// written into an ad when it is read (publish_on_read), as HTCondor computes them when it
// publishes.
void Engine::publish_on_read(SlotImpl& s) {
  expire_stats();
  publish_stats(s);
  publish_drain_estimates(s);
}

void Engine::publish_stats(SlotImpl& s) {
  if (s.pub_stats == sd.stat_version_) return;
  s.pub_stats = sd.stat_version_;
  // Only what changed: a version bump usually moves one or two of the eight numbers.
  for (int k = 0; k < Startd::kStatCount; ++k) {
    if (s.pub_total[k] != sd.stat_total_[k]) {
      s.pub_total[k] = sd.stat_total_[k];
      put(s, stat_name(k, false), Value::integer(sd.stat_total_[k]));
    }
    if (s.pub_recent[k] != sd.stat_recent_n_[k]) {
      s.pub_recent[k] = sd.stat_recent_n_[k];
      put(s, stat_name(k, true), Value::integer(sd.stat_recent_n_[k]));
    }
  }
}

// HTCONDOR: machine-classad-attributes TotalTime*: "seconds that this machine (slot) has
// accumulated within the <state> <activity> state and activity pair since the condor_startd
// began executing. This attribute will only be defined if it has a value greater than 0."
// The pair the slot just left gets its total as a number; the current pair an expression of
// time(), so the ad is right whenever it is read.
void Engine::publish_pair_times(SlotImpl& s, State fs, Activity fa, int64_t entered) {
  if (fs != s.state || fa != s.activity) {
    int64_t& acc = s.pair_time[static_cast<int>(fs) * kActivities + static_cast<int>(fa)];
    acc += now - entered;
    if (acc > 0) {
      put(s, pair_attr(fs, fa), Value::integer(acc));
    } else {
      s.ad->remove(pair_attr(fs, fa).name->view());  // left at once: still not defined
    }
  }
  int64_t acc = s.pair_time[static_cast<int>(s.state) * kActivities + static_cast<int>(s.activity)];
  static const ExprTemplate shape("ifThenElse(time() > %lld, time() - %lld, undefined)", 2);
  const int64_t base[2] = {s.entered_activity - acc, s.entered_activity - acc};
  ExprPtr e = shape.make(base);
  if (e) s.ad->insert(pair_attr(s.state, s.activity), e.release());
}

}  // namespace kite::startd
