// Keeping a slot's machine ad current: state, claim and job attributes, resources, policy
// expressions, the partitionable slot's Child* roll-up, slotN_ cross-slot attributes, latches.
#include "policy/startd/engine.h"

#include <cctype>
#include <cstdio>
#include <cstring>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::startd {

namespace {

bool holds_literal(const ClassAd& ad, const classad::InternedName& n, const Value& v) {
  const ClassAd::Entry e = ad.find_entry(n.id);
  if (!e.expr || e.name != n.name || e.expr->kind != classad::ExprKind::kLiteral ||
      e.expr->flags != 0)
    return false;
  const Value& have = classad::as_literal(e.expr)->value;
  if (have.type() != v.type()) return false;
  switch (v.type()) {
    case classad::ValueType::kInteger: return have.as_integer() == v.as_integer();
    case classad::ValueType::kBoolean: return have.as_boolean() == v.as_boolean();
    case classad::ValueType::kString: return have.as_string() == v.as_string();
    case classad::ValueType::kReal: {
      const double a = have.as_real(), b = v.as_real();
      return std::memcmp(&a, &b, sizeof a) == 0;
    }
    default: return false;
  }
}

}  // namespace

void put_value(ClassAd& ad, const classad::InternedName& n, Value v) {
  if (holds_literal(ad, n, v)) return;
  ad.insert(n, new classad::LiteralExpr(std::move(v)));
}

void Engine::refresh_time(SlotImpl& s) {
  if (s.pub_badput != sd.drain_badput_ || s.pub_unclaimed != sd.drain_unclaimed_) {
    s.pub_badput = sd.drain_badput_;
    s.pub_unclaimed = sd.drain_unclaimed_;
    ins(s, "TotalMachineDrainingBadput", Value::integer(whole(sd.drain_badput_)));
    ins(s, "TotalMachineDrainingUnclaimedTime", Value::integer(whole(sd.drain_unclaimed_)));
  }
}

void Engine::insert_text(SlotImpl& s, const char* name, const std::string& text) {
  ExprPtr e = classad::parse_expr(text);
  if (e) s.ad->insert(name, e.release());
}

void Engine::insert_made(SlotImpl& s, int k, const char* name, const ExprTemplate& shape,
                         int64_t n0, int64_t n1) {
  if (s.pub_set[k] && s.pub_nums[k][0] == n0 && s.pub_nums[k][1] == n1 && s.ad->lookup(name))
    return;
  s.pub_set[k] = true;
  s.pub_nums[k][0] = n0;
  s.pub_nums[k][1] = n1;
  const int64_t nums[2] = {n0, n1};
  ExprPtr e = shape.make(nums);
  if (e) s.ad->insert(name, e.release());
}

void Engine::refresh_job_times(SlotImpl& s) {
  // The shapes of the totals refresh() rewrites on every transition. As HTCondor's startd, a
  // total is in the ad only once it is above 0 (the observed slot ads: no TotalJobSuspendTime
  // nor TotalClaimSuspendTime for a job never suspended, none of the four in an idle slot's):
  // the run times are undefined in their first second, the suspend times absent until the job
  // is first suspended.
  static const ExprTemplate job_suspend(
      "%lld + ifThenElse(Activity == \"Suspended\", time() - %lld, 0)", 2);
  static const ExprTemplate job_run_plain("ifThenElse(time() > %lld, time() - %lld, undefined)", 2);
  static const ExprTemplate job_run("time() - %lld - TotalJobSuspendTime", 1);
  static const ExprTemplate retirement("ifThenElse(%lld > time(), %lld - time(), 0)", 2);
  static const ExprTemplate claim_run_first("TotalJobRunTime", 0);
  static const ExprTemplate claim_run("%lld + (TotalJobRunTime ?: 0)", 1);
  static const ExprTemplate claim_suspend_first("TotalJobSuspendTime", 0);
  static const ExprTemplate claim_suspend("%lld + (TotalJobSuspendTime ?: 0)", 1);
  if (s.has_job) {
    const bool suspended = s.job.suspended_total > 0 || s.job.suspend_since >= 0;
    if (suspended) {
      insert_made(s, 0, "TotalJobSuspendTime", job_suspend, s.job.suspended_total,
                  s.job.suspend_since >= 0 ? s.job.suspend_since : 0);
      insert_made(s, 1, "TotalJobRunTime", job_run, s.job.start, -1);
    } else {
      drop_made(s, 0, "TotalJobSuspendTime");
      insert_made(s, 1, "TotalJobRunTime", job_run_plain, s.job.start, s.job.start);
    }
    // Counts down while the job runs (a suspended job's retirement waits for it).
    s.job.est_retirement = max_retirement(s);
    int64_t r = retirement_remaining(s);
    if (r == kNever || s.job.suspend_since >= 0) {
      ins(s, "RetirementTimeRemaining", Value::integer(r == kNever ? INT32_MAX : (r < 0 ? 0 : r)));
    } else {
      const int64_t end = now + r;
      insert_made(s, 2, "RetirementTimeRemaining", retirement, end, end);
    }
  }
  if (s.has_claim) {
    // The claim's earlier jobs plus the current one's; absent while both are nothing.
    const bool job_suspended = s.has_job && (s.job.suspended_total > 0 || s.job.suspend_since >= 0);
    if (s.total_claim_run > 0) {
      insert_made(s, 3, "TotalClaimRunTime", claim_run, s.total_claim_run, 0);
    } else if (s.has_job) {
      insert_made(s, 3, "TotalClaimRunTime", claim_run_first, 0, 0);
    } else {
      drop_made(s, 3, "TotalClaimRunTime");
    }
    if (s.total_claim_suspend > 0) {
      insert_made(s, 4, "TotalClaimSuspendTime", claim_suspend, s.total_claim_suspend, 0);
    } else if (job_suspended) {
      insert_made(s, 4, "TotalClaimSuspendTime", claim_suspend_first, 0, 0);
    } else {
      drop_made(s, 4, "TotalClaimSuspendTime");
    }
  }
}

void Engine::drop_made(SlotImpl& s, int k, const char* name) {
  if (s.pub_set[k]) s.ad->remove(name);
  s.pub_set[k] = false;
}

void Engine::insert_expr(SlotImpl& s, const char* name, const Expr* e) {
  if (!e) {
    s.ad->remove(name);
    return;
  }
  classad::expr_ref(const_cast<Expr*>(e));
  s.ad->insert(name, const_cast<Expr*>(e));
}

void Engine::insert_expr(SlotImpl& s, const classad::InternedName& name, const Expr* e) {
  if (!e) {
    s.ad->remove(name.name->view());
    return;
  }
  classad::expr_ref(const_cast<Expr*>(e));
  s.ad->insert(name, const_cast<Expr*>(e));
}

void Engine::insert_policy(SlotImpl& s) {
  int u = v(s);
  insert_expr(s, "Start", start_expr(s));
  insert_expr(s, "IS_OWNER", s.pol.is_owner.get());
  insert_expr(s, "Rank", s.pol.rank.get());
  insert_expr(s, "SUSPEND", s.pol.suspend[u].get());
  insert_expr(s, "CONTINUE", s.pol.cont[u].get());
  insert_expr(s, "PREEMPT", s.pol.preempt[u].get());
  insert_expr(s, "KILL", s.pol.kill[u].get());
  insert_expr(s, "WANT_SUSPEND", s.pol.want_suspend[u].get());
  insert_expr(s, "WANT_VACATE", s.pol.want_vacate[u].get());
  insert_expr(s, "MaxJobRetirementTime", s.pol.mjrt.get());
  insert_expr(s, "MachineMaxVacateTime", s.pol.mmvt.get());
}

void Engine::set_resources(SlotImpl& s) {
  ins(s, "Cpus", Value::integer(s.res.cpus));
  ins(s, "Memory", Value::integer(s.res.memory_mb));
  ins(s, "Disk", Value::integer(s.res.disk_kb));
  ins(s, "VirtualMemory", Value::integer(s.res.swap_kb));
  ins(s, "Swap", Value::integer(s.res.swap_kb));
  ins(s, "TotalSlotCpus", Value::integer(s.total.cpus));
  ins(s, "TotalSlotMemory", Value::integer(s.total.memory_mb));
  ins(s, "TotalSlotDisk", Value::integer(s.total.disk_kb));
  const Layout& L = sd.layout_;
  std::string mres = "Cpus Memory Disk Swap";
  for (size_t i = 0; i < L.resources.size(); ++i) {
    const std::string& n = L.resources[i].name;
    mres += " " + n;
    double have = i < s.res.custom.size() ? s.res.custom[i] : 0;
    double tot = i < s.total.custom.size() ? s.total.custom[i] : 0;
    ins(s, n.c_str(), Value::integer(whole(have)));
    ins(s, ("TotalSlot" + n).c_str(), Value::integer(whole(tot)));
    ins(s, ("Total" + n).c_str(), Value::integer(whole(L.resources[i].total)));
    const std::vector<std::string>& off = L.resources[i].offline;
    ins(s, ("Detected" + n).c_str(),
        Value::integer(whole(L.resources[i].total) + static_cast<int64_t>(off.size())));
    if (!off.empty()) {
      // HTCONDOR: machine-classad-attributes Offline<name>: "which of these resources is
      // unavailable for match making".
      std::string list;
      for (const std::string& id : off) list += (list.empty() ? "" : ",") + id;
      ins(s, ("Offline" + n).c_str(), Value::string(list));
    }
    std::string ids;
    if (i < s.res.ids.size()) {
      for (const std::string& id : s.res.ids[i]) ids += (ids.empty() ? "" : ",") + id;
    }
    if (!L.resources[i].ids.empty()) {
      ins(s, ("Assigned" + n).c_str(), Value::string(ids));
      // Per-device property ads: GPUs_<id> = [ ... ] (nested form).
      if (i < s.res.ids.size()) {
        for (const std::string& id : s.res.ids[i]) {
          for (size_t d = 0; d < L.resources[i].ids.size(); ++d) {
            if (L.resources[i].ids[d] != id || L.resources[i].props[d].empty()) continue;
            AdPtr pa = classad::parse_classad_old(L.resources[i].props[d]);
            if (!pa) continue;
            pa->insert_value("Id", Value::string(id));
            std::string an = n + "_";
            for (char c : id) an += (isalnum(static_cast<unsigned char>(c)) ? c : '_');
            s.ad->insert_value(an, Value::adopt_classad(pa.release()));
          }
        }
      }
    }
  }
  ins(s, "MachineResources", Value::string(mres));
}

void Engine::refresh(SlotImpl& s) {
  // The names refresh() writes on every transition, interned once.
  struct Names {
    classad::InternedName State = classad::intern_name("State");
    classad::InternedName Activity = classad::intern_name("Activity");
    classad::InternedName EnteredCurrentState = classad::intern_name("EnteredCurrentState");
    classad::InternedName EnteredCurrentActivity = classad::intern_name("EnteredCurrentActivity");
    classad::InternedName LastBenchmark = classad::intern_name("LastBenchmark");
    classad::InternedName Requirements = classad::intern_name("Requirements");
    classad::InternedName Start = classad::intern_name("Start");
    classad::InternedName CurrentRank = classad::intern_name("CurrentRank");
    classad::InternedName PublicClaimId = classad::intern_name("PublicClaimId");
    classad::InternedName RemoteOwner = classad::intern_name("RemoteOwner");
    classad::InternedName RemoteUser = classad::intern_name("RemoteUser");
    classad::InternedName RemoteGroup = classad::intern_name("RemoteGroup");
    classad::InternedName AccountingGroup = classad::intern_name("AccountingGroup");
    classad::InternedName RemoteNegotiatingGroup = classad::intern_name("RemoteNegotiatingGroup");
    classad::InternedName RemoteAutoregroup = classad::intern_name("RemoteAutoregroup");
    classad::InternedName JobStart = classad::intern_name("JobStart");
    classad::InternedName JobId = classad::intern_name("JobId");
  };
  static const Names k;
  sd.drain_est_changes_++;
  ins(s, k.State, Value::string(state_name(s.state)));
  ins(s, k.Activity, Value::string(activity_name(s.activity)));
  ins(s, k.EnteredCurrentState, Value::integer(s.entered_state));
  ins(s, k.EnteredCurrentActivity, Value::integer(s.entered_activity));
  ins(s, k.LastBenchmark, Value::integer(whole(s.last_benchmark)));
  // HTCONDOR: ep-policy "Matched State ... says that Requirements are False", "Preempting
  // State ... advertises its Requirements expression as False".
  // HTCONDOR: startd "DEFAULT_DRAINING_START_EXPR ... Requirements will be false while draining"
  if (s.state == State::kMatched || s.state == State::kPreempting || sd.shutting_down_ ||
      sd.shut_down_ || (sd.draining_ && !drain_admitting()) || s.state == State::kDrained) {
    ins(s, k.Requirements, Value::boolean(false));
  } else {
    static ExprPtr ref = classad::parse_expr("START");
    insert_expr(s, k.Requirements, ref.get());
  }
  insert_expr(s, k.Start, start_expr(s));
  if (s.has_claim) {
    ins(s, k.CurrentRank, Value::real(s.claim.rank));
    ins(s, k.PublicClaimId, Value::string(s.claim.id));
    std::string owner, user;
    ClassAd* t = s.claim.ad.get();
    if (s.has_job && s.job.ad) t = s.job.ad.get();
    if (t && t->evaluate_string("Owner", owner)) {
      ins(s, k.RemoteOwner, Value::string(owner));
      if (!t->evaluate_string("User", user)) user = owner;
      ins(s, k.RemoteUser, Value::string(user));
    }
    // HTCONDOR: machine-classad-attributes RemoteGroup ("the accounting group name
    // corresponding to the submitter"), RemoteNegotiatingGroup ("<none>" for the root group),
    // RemoteAutoregroup (False unless claimed via GROUP_AUTOREGROUP), as the claim says.
    std::string group;
    bool autoregroup = false;
    if (t && t->evaluate_string("AccountingGroup", group)) {
      ins(s, k.RemoteGroup, Value::string(group));
      ins(s, k.AccountingGroup, Value::string(group));
    } else {
      s.ad->remove("RemoteGroup");
      s.ad->remove("AccountingGroup");
    }
    if (!s.claim.ad || !s.claim.ad->evaluate_string("SubmitterNegotiatingGroup", group))
      group = "<none>";
    ins(s, k.RemoteNegotiatingGroup, Value::string(group));
    if (s.claim.ad) s.claim.ad->evaluate_bool("SubmitterAutoregroup", autoregroup);
    ins(s, k.RemoteAutoregroup, Value::boolean(autoregroup));
    s.pub_claim = true;
  } else if (s.pub_claim) {  // (the removals only once: refresh runs on every transition)
    s.pub_claim = false;
    ins(s, k.CurrentRank, Value::real(0));
    for (const char* n : {"PublicClaimId", "RemoteOwner", "RemoteUser", "RemoteGroup",
                          "AccountingGroup", "RemoteNegotiatingGroup", "RemoteAutoregroup",
                          "TotalClaimRunTime", "TotalClaimSuspendTime"})
      s.ad->remove(n);
  }
  // HTCONDOR: machine-classad-attributes Draining ("True when the slot is draining and
  // undefined if not"), DrainingRequestId, LastDrainStartTime, LastDrainStopTime; DrainReason
  // as observed (condor_status -af Draining DrainReason).
  if (sd.draining_) {
    ins(s, "Draining", Value::boolean(true));
    ins(s, "DrainingRequestId", Value::string(std::to_string(sd.drain_requests_)));
    if (!sd.drain_reason_.empty()) ins(s, "DrainReason", Value::string(sd.drain_reason_));
    s.pub_drain = true;
  } else if (s.pub_drain) {
    s.pub_drain = false;
    for (const char* n : {"Draining", "DrainingRequestId", "DrainReason"}) s.ad->remove(n);
  }
  if (sd.last_drain_start_) ins(s, "LastDrainStartTime", Value::integer(sd.last_drain_start_));
  if (sd.last_drain_stop_) ins(s, "LastDrainStopTime", Value::integer(sd.last_drain_stop_));
  // HTCONDOR: machine-classad-attributes PreemptingOwner, PreemptingUser, PreemptingRank: the
  // claim waiting for the current job to finish or be preempted.
  if (s.has_preempting) {
    ins(s, "PreemptingRank", Value::real(s.preempting.rank));
    std::string owner, user;
    if (s.preempting.ad && s.preempting.ad->evaluate_string("Owner", owner)) {
      ins(s, "PreemptingOwner", Value::string(owner));
      if (!s.preempting.ad->evaluate_string("User", user)) user = owner;
      ins(s, "PreemptingUser", Value::string(user));
    }
    s.pub_preempting = true;
  } else if (s.pub_preempting) {
    s.pub_preempting = false;
    for (const char* n : {"PreemptingRank", "PreemptingOwner", "PreemptingUser"}) s.ad->remove(n);
  }
  if (s.has_job) {
    ins(s, k.JobStart, Value::integer(s.job.start));
    int64_t c = 0, p = 0;
    std::string gid;
    if (s.job.ad && ad_int(*s.job.ad, "ClusterId", &c)) {
      ad_int(*s.job.ad, "ProcId", &p);
      char buf[48];
      std::snprintf(buf, sizeof buf, "%lld.%lld", static_cast<long long>(c),
                    static_cast<long long>(p));
      ins(s, k.JobId, Value::string(buf));
    }
    publish_job_attrs(s, s.job.ad.get());
    s.pub_job = true;
  } else if (s.pub_job) {
    s.pub_job = false;
    for (const char* n : {"JobStart", "JobId", "TotalJobRunTime", "TotalJobSuspendTime"})
      s.ad->remove(n);
    // Observed: 0 in a slot that runs no job (a partitionable slot's ad).
    ins(s, "RetirementTimeRemaining", Value::integer(0));
    s.pub_set[2] = false;
    publish_job_attrs(s, nullptr);
  }
  // Resources change only when a partitionable slot carves or takes back a dynamic slot.
  if (s.res_dirty) {
    s.res_dirty = false;
    set_resources(s);
  }
  refresh_job_times(s);
  refresh_time(s);
  if (s.partitionable) refresh_rollup(s);
  if (s.dynamic && s.parent) refresh_rollup(*s.parent);
}

void Engine::refresh_rollup(SlotImpl& p) {
  if (!p.partitionable) return;
  int n = 0;
  for (auto& d : sd.slots_) {
    if (!d->dead && d->parent == &p) ++n;
  }
  ins(p, "NumDynamicSlots", Value::integer(n));
  if (!sd.pslot_rollup_) return;
  // HTCONDOR: startd ADVERTISE_PSLOT_ROLLUP_INFORMATION (ChildAccountingGroup, ChildActivity,
  // ChildCpus, ChildCurrentRank, ChildEnteredCurrentState, ChildMemory, ChildName,
  // ChildRemoteOwner, ChildRemoteUser, ChildRetirementTimeRemaining, ChildState), the observed
  // ChildDisk, ChildDSlotId and Child<resource>, and STARTD_PARTITIONABLE_SLOT_ATTRS.
  std::vector<std::string> attrs = {"Name",
                                    "State",
                                    "Activity",
                                    "Cpus",
                                    "Memory",
                                    "Disk",
                                    "RemoteOwner",
                                    "RemoteUser",
                                    "CurrentRank",
                                    "EnteredCurrentState",
                                    "DSlotId",
                                    "AccountingGroup",
                                    "RetirementTimeRemaining"};
  for (const CustomResource& r : sd.layout_.resources) attrs.push_back(r.name);
  for (const std::string& x : sd.rollup_attrs_) attrs.push_back(x);
  for (const std::string& a : attrs) {
    std::string text = "{";
    int k = 0;
    // RetirementTimeRemaining counts down by itself (an expression of time() only): the list
    // carries the expressions so it stays right between updates.
    bool live = a == "RetirementTimeRemaining";
    for (auto& d : sd.slots_) {
      if (d->dead || d->parent != &p) continue;
      if (k++) text += ",";
      const Expr* e = live ? d->ad->lookup(a) : nullptr;
      text += e ? classad::to_string(e) : classad::to_string(d->ad->evaluate_attr(a));
    }
    insert_text(p, ("Child" + a).c_str(), text + "}");
  }
  ins(p, "PslotRollupInformation", Value::boolean(true));
}

// HTCONDOR: startd STARTD_JOB_ATTRS: the running job's attributes copied into the slot ad.
void Engine::publish_job_attrs(SlotImpl& s, ClassAd* job) {
  for (const std::string& n : sd.job_attrs_) {
    const Expr* e = job ? job->lookup(n) : nullptr;
    if (e) {
      insert_expr(s, n.c_str(), e);
    } else {
      s.ad->remove(n);
    }
  }
}

// HTCONDOR: machine-classad-attributes TotalSlots: every slot the startd has now (observed:
// a partitionable slot with two dynamic slots says 3).
void Engine::refresh_total_slots() {
  int64_t n = 0;
  for (auto& p : sd.slots_) n += p->dead ? 0 : 1;
  for (auto& p : sd.slots_) {
    if (!p->dead) ins(*p, "TotalSlots", Value::integer(n));
  }
}

void Engine::refresh_cross() {
  if (sd.slot_attrs_.empty()) return;
  for (auto& src : sd.slots_) {
    if (src->dead) continue;
    for (const std::string& a : sd.slot_attrs_) {
      const Expr* e = src->ad->lookup(a);
      std::string n = src->name + "_" + a;
      for (auto& dst : sd.slots_) {
        if (dst->dead) continue;
        if (!e) {
          dst->ad->remove(n);
        } else {
          classad::expr_ref(const_cast<Expr*>(e));
          dst->ad->insert(n, const_cast<Expr*>(e));
        }
      }
    }
  }
}

void Engine::latch(SlotImpl& s) {
  for (const std::string& n : sd.latch_exprs_) {
    const Expr* e = s.ad->lookup(n);
    if (!e) continue;
    Value v = s.ad->evaluate_expr(e, &sd.eval_env_);
    std::string vn = n + "Value", tn = n + "Time";
    const Expr* old = s.ad->lookup(vn);
    std::string before = old ? classad::to_string(s.ad->evaluate_attr(vn, &sd.eval_env_)) : "";
    Value num = v;
    if (v.is_boolean()) num = Value::integer(v.as_boolean() ? 1 : 0);
    std::string after = classad::to_string(num);
    if (!old || before != after) {
      s.ad->insert_value(vn, num);
      s.ad->insert_value(tn, Value::integer(now));
    }
  }
}

}  // namespace kite::startd
