// What draining would cost if it began now, in a slot's ad:
// ExpectedMachineGracefulDrainingCompletion/Badput and ExpectedMachineQuickDrainingCompletion/
// Badput. Like HTCondor, which computes them when it publishes an ad, they are computed when a
// slot's ad is read through Startd::slot()/slots() (once per second and change), not on every
// transition of every slot.
// HTCONDOR: machine-classad-attributes ExpectedMachine*Draining*.
#include "policy/startd/engine.h"

#include <climits>

#include "policy/classad/intern.h"

namespace kite::startd {

namespace {

constexpr int64_t kCap = INT32_MAX;  // observed: 2147483647 when retirement has no end

const char* const kNames[4] = {
    "ExpectedMachineGracefulDrainingCompletion", "ExpectedMachineGracefulDrainingBadput",
    "ExpectedMachineQuickDrainingCompletion", "ExpectedMachineQuickDrainingBadput"};

int64_t cap(int64_t v) {
  return v > kCap ? kCap : v;
}

}  // namespace

// Per running job (cpus c, run time so far `run`, retirement R granted, vacate time V once
// retirement is over): a quick drain soft-kills it now and hard-kills it V later, losing
// c * (run + V) ("assumes that all evicted jobs will not save a checkpoint"); a graceful drain
// lets it run out its retirement first ("assumes that jobs will run for the full retirement
// time and then be evicted"): it ends at now + max(R - run, V) having run max(R, run + V). A
// suspended job counts as resumed now (the reference assumes no suspension while draining). A
// job already being evicted ends at its vacate deadline (now, when killing).
void Engine::drain_estimates(int64_t v[4]) {
  if (sd.drain_est_time_ == now && sd.drain_est_at_ == sd.drain_est_changes_) {
    for (int k = 0; k < 4; ++k) v[k] = sd.drain_est_[k];
    return;
  }
  int64_t g_end = now, g_bad = 0, q_end = now, q_bad = 0;
  bool infinite = false;
  for (auto& p : sd.slots_) {
    SlotImpl& s = *p;
    if (s.dead || !s.has_job || !s.job.starter_running) continue;
    int64_t c = s.res.cpus > 0 ? s.res.cpus : 1;
    int64_t run = now - s.job.start - suspended_so_far(s);
    if (s.state == State::kPreempting) {
      int64_t d = s.activity == Activity::kVacating && s.vacate_deadline != kNever
                      ? s.vacate_deadline
                      : now;
      if (d > g_end) g_end = d;
      if (d > q_end) q_end = d;
      g_bad += c * (run + d - now);
      q_bad += c * (run + d - now);
      continue;
    }
    int64_t vac = vacate_time(s, 0);
    if (s.job.est_retirement >= static_cast<double>(kCap)) infinite = true;
    int64_t r = infinite ? kCap : whole(s.job.est_retirement);
    if (now + vac > q_end) q_end = now + vac;
    q_bad += c * (run + vac);
    int64_t end = now + (r - run > vac ? r - run : vac);
    if (end > g_end) g_end = end;
    g_bad += c * (r > run + vac ? r : run + vac);
  }
  v[0] = infinite ? kCap : cap(g_end);
  v[1] = infinite ? kCap : cap(g_bad);
  v[2] = cap(q_end);
  v[3] = cap(q_bad);
  for (int k = 0; k < 4; ++k) sd.drain_est_[k] = v[k];
  sd.drain_est_time_ = now;
  sd.drain_est_at_ = sd.drain_est_changes_;
}

void Engine::publish_drain_estimates(SlotImpl& s) {
  int64_t v[4];
  drain_estimates(v);
  static classad::InternedName names[4];
  for (int k = 0; k < 4; ++k) {
    if (s.pub_drain_est[k] == v[k]) continue;
    s.pub_drain_est[k] = v[k];
    if (!names[k].name) names[k] = classad::intern_name(kNames[k]);
    s.ad->insert(names[k], new classad::LiteralExpr(Value::integer(v[k])));
  }
}

}  // namespace kite::startd
