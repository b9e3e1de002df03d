// The agent's side of the claiming protocol: the central manager claims a slot with its own
// claim id (a partitionable slot carves a dynamic one, as for local runs), activates it with a
// job, keeps it alive, stops the job or releases it; the job's events go back over the same
// connection, and every claim is reported when a CM connects (so a restarted CM re-adopts
// them). A claim's lease is the core's: without an alive from the CM it ends, killing its job.
#include <cstring>

#include "agent/core/ad_json.h"
#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "agent/starter/protocol.h"

namespace kite::agent {

namespace {

constexpr size_t kMaxClaimId = 128;  // the CM's ids are 64 hex digits
constexpr size_t kMaxSlotName = 128;
constexpr int64_t kUsageEveryMs = 5000;  // usage reports to the CM, at most this often

bool valid_claim_id(const std::string& id) {
  if (id.size() < 16 || id.size() > kMaxClaimId) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

void Agent::cm_send(const RemoteClaim& rc, const std::string& id, core::Json msg) {
  msg.set("claim_id", id);
  if (rc.cluster >= 0) msg.set("cluster", rc.cluster).set("proc", rc.proc);
  if (rc.cm && collector_) collector_->send(rc.cm, msg);
}

static void refuse_frame(CollectorLink* link, net::NetClient* cm, const std::string& what) {
  KLOG_WARN("central manager frame refused: %s", what.c_str());
  core::Json e = core::Json::message("error");
  e.set("error", what);
  if (link) link->send(cm, e);
}

bool Agent::cm_claim_frame(net::NetClient* cm, core::Json& msg) {
  std::string type = msg.type();
  if (type == "claim") {
    cm_claim(cm, msg);
  } else if (type == "activate") {
    cm_activate(cm, msg);
  } else if (type == "alive") {
    cm_alive(cm, msg);
  } else if (type == "release") {
    cm_release(cm, msg, false);
  } else if (type == "vacate-job") {
    cm_release(cm, msg, true);
  } else if (type == "exit-ack") {
    std::string id;
    if (RemoteClaim* rc = named_claim(cm, msg, &id)) {
      rc->unacked_exit.clear();
      if (!rc->running) rc->cluster = rc->proc = -1;  // idle: reported without a job
      if (rc->ended) remote_claims_.erase(id);
    }
  } else {
    return false;
  }
  return true;
}

RemoteClaim* Agent::named_claim(net::NetClient* cm, const core::Json& msg, std::string* id) {
  *id = msg.str("claim_id");
  auto it = valid_claim_id(*id) ? remote_claims_.find(*id) : remote_claims_.end();
  if (it == remote_claims_.end()) {
    refuse_frame(collector_.get(), cm, msg.type() + ": no such claim");
    return nullptr;
  }
  it->second.cm = cm;
  return &it->second;
}

void Agent::cm_claim(net::NetClient* cm, core::Json& msg) {
  std::string id = msg.str("claim_id"), slot = msg.str("slot"), why;
  if (!valid_claim_id(id) || slot.empty() || slot.size() > kMaxSlotName) {
    refuse_frame(collector_.get(), cm, "claim: a claim id (16-128 letters or digits) and a slot");
    return;
  }
  core::Json reply = core::Json::message("refused");
  reply.set("claim_id", id);
  classad::AdPtr job = core::get_ad(msg, "job", &why);
  startd::SlotView v;
  std::string claimed;
  // A preempting claim: of a claimed slot, or of a partitionable slot whose dynamic slots the
  // negotiator preempts together (ALLOW_PSLOT_PREEMPTION).
  if (job && msg.flag("preempting") && !remote_claims_.count(id) && !stopping_ &&
      sd_->slot(slot, &v) &&
      (v.state == startd::State::kClaimed ||
       (v.partitionable && msg.str("reason") == "priority"))) {
    cm_preempting_claim(cm, id, slot, *job, msg.str("reason") == "priority");
    return;
  }
  if (!job) {
    why = "bad job ad: " + why;
  } else if (remote_claims_.count(id)) {
    why = "the claim id is in use";
  } else if (stopping_ || !sd_->slot(slot, &v)) {
    why = stopping_ ? "the agent is shutting down" : "no slot " + slot;
  } else if (v.dynamic || v.state != startd::State::kUnclaimed) {
    why = slot + " is " + startd::state_name(v.state);
  } else {
    claimed = claim_slot(slot, job.get(), &why);
  }
  if (claimed.empty()) {
    KLOG_INFO("claim of %s by the central manager refused: %s", slot.c_str(), why.c_str());
    reply.set("reason", why);
    collector_->send(cm, reply);
    return;
  }
  RemoteClaim& rc = remote_claims_[id];
  rc.slot = claimed;
  rc.cm = cm;
  KLOG_INFO("%s claimed by the central manager", claimed.c_str());
  core::Json ok = core::Json::message("claimed");
  ok.set("slot", claimed);
  cm_send(rc, id, std::move(ok));
}

void Agent::cm_preempting_claim(net::NetClient* cm, const std::string& id, const std::string& slot,
                                const classad::ClassAd& job, bool by_priority) {
  startd::Event ev;
  ev.kind = startd::EventKind::kClaim;
  ev.slot = slot;
  ev.ad = &job;
  ev.priority_preemption = by_priority;
  startd::Output out;
  std::string err, why;
  sd_->handle(ev, &out, &err);
  for (const startd::Action& a : out.actions) {
    if (a.kind == startd::ActionKind::kRefuse && why.empty()) why = a.detail;
  }
  if (!err.empty() && why.empty()) why = err;
  if (!why.empty()) {
    process(out);
    KLOG_INFO("preempting claim of %s by the central manager refused: %s", slot.c_str(),
              why.c_str());
    core::Json reply = core::Json::message("refused");
    reply.set("claim_id", id).set("reason", why);
    collector_->send(cm, reply);
    return;
  }
  RemoteClaim& rc = remote_claims_[id];
  rc.slot = slot;
  rc.cm = cm;
  rc.preempting = true;
  KLOG_INFO("%s: the central manager's preempting claim accepted: its job retires", slot.c_str());
  process(out);  // may switch at once (the slot had no job): "claimed" goes out from there
}

void Agent::settle_preempting_claim(const std::string& slot, const std::string& refusal) {
  for (auto& [id, rc] : remote_claims_) {
    if (rc.slot != slot || !rc.preempting) continue;
    startd::SlotView v;
    bool exists = sd_->slot(slot, &v);
    if (refusal.empty() && exists && v.state != startd::State::kClaimed)
      return;  // the claim ended without a switch: the core's word on this one follows
    if (refusal.empty() && exists) {
      rc.preempting = false;
      KLOG_INFO("%s claimed by the central manager (preempting)", slot.c_str());
      core::Json ok = core::Json::message("claimed");
      ok.set("slot", slot);
      cm_send(rc, id, std::move(ok));
      return;
    }
    KLOG_INFO("%s: the central manager's preempting claim ended: %s", slot.c_str(),
              refusal.empty() ? "the slot is gone" : refusal.c_str());
    core::Json m = core::Json::message("refused");
    m.set("reason", refusal.empty() ? "the slot is gone" : refusal);
    cm_send(rc, id, std::move(m));
    remote_claims_.erase(id);
    return;
  }
}

bool Agent::pslot_claim_progress(const startd::Action& a) {
  const bool carved = a.kind == startd::ActionKind::kCreateSlot;
  for (auto& [id, rc] : remote_claims_) {
    if (!rc.preempting) continue;
    startd::SlotView v;
    if (!sd_->slot(rc.slot, &v) || !v.partitionable) continue;
    if (carved ? a.detail.rfind("from " + rc.slot + ":", 0) != 0 : a.slot != rc.slot) continue;
    if (!carved) {
      // "preempting dynamic slots ..." says it is under way; "preempting claim dropped: ..."
      // ends it.
      if (a.detail.rfind("preempting claim dropped", 0) == 0)
        settle_preempting_claim(rc.slot, a.detail);
      return true;
    }
    rc.slot = a.slot;
    rc.preempting = false;
    KLOG_INFO("%s claimed by the central manager (preempting dynamic slots)", a.slot.c_str());
    core::Json ok = core::Json::message("claimed");
    ok.set("slot", a.slot);
    cm_send(rc, id, std::move(ok));
    return true;
  }
  return false;
}

void Agent::run_deferred_activation(const std::string& slot) {
  for (auto& [id, rc] : remote_claims_) {
    if (rc.slot != slot || rc.deferred_activation.empty()) continue;
    std::string err;
    core::Json msg = core::json_parse(rc.deferred_activation, &err);
    rc.deferred_activation.clear();
    if (msg && rc.cm) cm_activate(rc.cm, msg);
    return;
  }
}

void Agent::cm_activate(net::NetClient* cm, core::Json& msg) {
  std::string id, why;
  RemoteClaim* rc = named_claim(cm, msg, &id);
  if (!rc) return;
  classad::AdPtr ad = core::get_ad(msg, "job", &why);
  int64_t cluster = -1, proc = -1;
  if (ad && (!ad->evaluate_int("ClusterId", cluster) || !ad->evaluate_int("ProcId", proc) ||
             cluster < 0 || proc < 0 || cluster > INT32_MAX || proc > INT32_MAX)) {
    why = "the job ad has no ClusterId and ProcId";
    ad = classad::AdPtr();
  } else if (!ad) {
    why = "bad job ad: " + why;
  }
  if (ad && (rc->running || rc->ended)) {
    why = rc->ended ? "the claim has ended" : "the claim is running a job";
    ad = classad::AdPtr();
  }
  startd::SlotView sv;
  if (ad && sd_->slot(rc->slot, &sv) && sv.starter_cleaning) {
    // The claim's last job has just ended and its starter is still cleaning up: the claim
    // takes its next job as soon as that is over (as a local run waits for it).
    rc->deferred_activation = msg.dump();
    KLOG_INFO("%s: job %lld.%lld waits for the slot's cleanup", rc->slot.c_str(),
              static_cast<long long>(cluster), static_cast<long long>(proc));
    return;
  }
  if (!ad) {
    // The CM hears that this job did not start (it stays Idle there) and why.
    KLOG_WARN("activation refused: %s", why.c_str());
    core::Json m = core::Json::message("not-started");
    m.set("claim_id", id).set("cluster", cluster).set("proc", proc).set("reason", why);
    collector_->send(cm, m);
    return;
  }
  // The job runs in its sandbox; its Out and Err come back in the exit frame, and the CM
  // writes them where the submitter asked.
  ad->remove("Iwd");
  for (const char* k : {"Out", "Err"}) {
    std::string v;
    if (!ad->evaluate_string(k, v) || v != "/dev/null")
      ad->insert_value(k, classad::Value::string(std::strcmp(k, "Out") == 0 ? "_condor_stdout"
                                                                            : "_condor_stderr"));
  }
  ad->remove("In");
  ad->insert_value("KiteRemoteRun", classad::Value::boolean(true));
  rc->cluster = static_cast<int32_t>(cluster);
  rc->proc = static_cast<int32_t>(proc);
  rc->unacked_exit.clear();
  auto r = std::make_unique<RunRec>();
  RunRec* run = r.get();
  run->id = next_run_id_++;
  run->remote = true;
  run->job = std::move(ad);
  core::Json note = core::Json::object();
  note.set("claim_id", id).set("cluster", cluster).set("proc", proc);
  run->cm_claim = note.dump();
  runs_[run->id] = std::move(r);
  std::string slot = rc->slot;
  bool ok = activate_run(run, slot);
  StarterRec* s = starter_of(slot);
  rc = remote_claim_of(slot) == id ? &remote_claims_[id] : nullptr;
  if (!ok || !s || !rc) {
    runs_.erase(run->id);
    KLOG_INFO("%s: activation for job %lld.%lld failed", slot.c_str(),
              static_cast<long long>(cluster), static_cast<long long>(proc));
    core::Json m = core::Json::message("not-started");
    m.set("claim_id", id).set("cluster", cluster).set("proc", proc);
    m.set("reason", "the slot would not start the job");
    collector_->send(cm, m);
    if (rc) rc->cluster = rc->proc = -1;
    return;
  }
  rc->running = true;
  KLOG_INFO("%s: job %lld.%lld activated by the central manager", slot.c_str(),
            static_cast<long long>(cluster), static_cast<long long>(proc));
}

void Agent::cm_alive(net::NetClient* cm, core::Json& msg) {
  const cJSON* ids = msg.child("claim_ids");
  if (!cJSON_IsArray(ids)) {
    refuse_frame(collector_.get(), cm, "alive: claim_ids must be an array");
    return;
  }
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, ids) {
    std::string id = cJSON_IsString(item) ? item->valuestring : "";
    auto it = valid_claim_id(id) ? remote_claims_.find(id) : remote_claims_.end();
    if (it == remote_claims_.end() || it->second.ended) {
      // The CM believes in a claim we do not hold (ended while it was away): it lets it go.
      core::Json m = core::Json::message("released");
      m.set("claim_id", id).set("reason", "the agent holds no such claim");
      collector_->send(cm, m);
      continue;
    }
    it->second.cm = cm;
    startd::Event ev;
    ev.kind = startd::EventKind::kAlive;
    ev.slot = it->second.slot;
    startd::Output out;
    std::string err;
    sd_->handle(ev, &out, &err);
    process(out);
  }
}

void Agent::cm_release(net::NetClient* cm, core::Json& msg, bool job_only) {
  std::string id;
  RemoteClaim* rc = named_claim(cm, msg, &id);
  if (!rc) return;
  std::string slot = rc->slot;
  if (rc->ended) {
    if (!job_only) remote_claims_.erase(id);
    return;
  }
  startd::Event ev;
  ev.slot = slot;
  if (rc->preempting) {
    // Not the slot's claim yet: only the request is withdrawn (the current claim goes on).
    if (job_only) return;
    ev.kind = startd::EventKind::kWithdraw;
    KLOG_INFO("%s: the central manager withdraws its preempting claim", slot.c_str());
    std::string err;
    if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", slot.c_str(), err.c_str());
    remote_claims_.erase(id);  // normally gone already, with a "refused" naming the withdrawal
    return;
  }
  if (job_only) {
    // Stop the job, keep the claim (condor_vacate_job): its exit comes back as evicted.
    ev.kind = startd::EventKind::kDeactivate;
  } else {
    ev.kind = startd::EventKind::kRelease;
    remote_claims_.erase(id);  // the CM has let it go: no word back
  }
  KLOG_INFO("%s: the central manager %s", slot.c_str(),
            job_only ? "stops the claim's job" : "releases the claim");
  std::string err;
  if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", slot.c_str(), err.c_str());
}

std::string Agent::remote_claim_of(const std::string& slot) const {
  for (const auto& [id, rc] : remote_claims_) {
    if (rc.slot == slot && !rc.ended && !rc.preempting) return id;
  }
  return "";
}

void Agent::remote_job_event(const std::string& slot, const char* type) {
  std::string id = remote_claim_of(slot);
  if (id.empty()) return;
  cm_send(remote_claims_[id], id, core::Json::message(type));
}

void Agent::remote_job_usage(const std::string& slot, const core::Json& usage) {
  std::string id = remote_claim_of(slot);
  if (id.empty()) return;
  RemoteClaim& rc = remote_claims_[id];
  int64_t now = uv_now(&loop_);
  if (rc.last_usage_ms && now - rc.last_usage_ms < kUsageEveryMs) return;
  rc.last_usage_ms = now;
  core::Json m(cJSON_Duplicate(usage.get(), true));
  m.set("type", "usage");
  cm_send(rc, id, std::move(m));
}

void Agent::remote_job_exited(const std::string& slot, const core::Json& exit) {
  std::string id = remote_claim_of(slot);
  if (id.empty()) return;
  RemoteClaim& rc = remote_claims_[id];
  if (rc.cluster < 0) return;
  core::Json m = core::Json::message("exit");
  m.set_json("exit", core::Json(cJSON_Duplicate(exit.get(), true)));
  m.set("claim_id", id).set("cluster", rc.cluster).set("proc", rc.proc);
  // Kept until the CM acknowledges it: a CM that died meanwhile hears it in the claims report.
  rc.unacked_exit = m.dump();
  rc.running = false;
  if (rc.cm && collector_) collector_->send(rc.cm, m);
}

void Agent::remote_claim_ended(const std::string& slot, const std::string& why) {
  // The core names a preempting claim it drops "preempting claim <id> ...".
  if (why.compare(0, 17, "preempting claim ") == 0) {
    settle_preempting_claim(slot, why);
    return;
  }
  std::string id = remote_claim_of(slot);
  if (!id.empty()) {
    RemoteClaim& rc = remote_claims_[id];
    KLOG_INFO("%s: the central manager's claim ended: %s", slot.c_str(), why.c_str());
    core::Json m = core::Json::message("released");
    m.set("reason", why);
    cm_send(rc, id, std::move(m));
    if (rc.unacked_exit.empty()) {
      remote_claims_.erase(id);
    } else {
      rc.ended = true;
    }
  }
  // A preempting claim waiting for this one takes the slot (or goes, if the slot is gone).
  settle_preempting_claim(slot, "");
}

void Agent::adopt_remote_claims() {
  auto adopt = [&](StarterRec* s) {
    std::string text, err;
    if (!core::read_file(s->dir + "/" + kCmClaimFile, &text, &err)) return;  // a local run
    core::Json f = core::json_parse(text, &err);
    std::string id = f ? f.str("claim_id") : "";
    if (!valid_claim_id(id)) {
      KLOG_WARN("adopt: %s/%s does not read", s->dir.c_str(), kCmClaimFile);
      return;
    }
    RemoteClaim& rc = remote_claims_[id];
    rc.slot = s->slot;
    rc.cluster = static_cast<int32_t>(f.num("cluster", -1));
    rc.proc = static_cast<int32_t>(f.num("proc", -1));
    rc.running = true;  // an exit that came while we were away is collected from the starter
    local_claims_.erase(s->slot);  // the CM keeps it alive, not the local runs
    KLOG_INFO("adopt: %s serves the central manager's job %d.%d", s->slot.c_str(), rc.cluster,
              rc.proc);
    if (!s->exited) return;
    // The job ended while we were away: its exit, from the starter's state file, goes to the
    // CM (in the claims report if it is not connected yet); the claim itself is gone.
    core::Json st;
    if (core::read_file(s->dir + "/" + starter::kStateFile, &text, &err))
      st = core::json_parse(text, &err);
    core::Json exit(st && st.child("exit") ? cJSON_Duplicate(st.child("exit"), true)
                                           : cJSON_CreateObject());
    if (!st || !st.child("exit")) exit.set("outcome", "evict").set("message", "exit lost");
    remote_job_exited(s->slot, exit);
    rc.ended = true;
  };
  for (auto& [slot, s] : starters_) adopt(s.get());
  for (auto& s : finished_) adopt(s.get());
}

void Agent::cm_claims_connected(net::NetClient* cm) {
  core::Json list(cJSON_CreateArray());
  for (auto& [id, rc] : remote_claims_) {
    rc.cm = cm;
    core::Json c = core::Json::object();
    c.set("claim_id", id).set("slot", rc.slot).set("cluster", rc.cluster).set("proc", rc.proc);
    c.set_bool("running", rc.running).set_bool("ended", rc.ended);
    if (rc.preempting) c.set_bool("preempting", true);
    if (!rc.unacked_exit.empty()) {
      std::string err;
      core::Json ex = core::json_parse(rc.unacked_exit, &err);
      if (ex && ex.child("exit"))
        c.set_json("exit", core::Json(cJSON_Duplicate(ex.child("exit"), true)));
    }
    cJSON_AddItemToArray(list.get(), c.release());
  }
  core::Json m = core::Json::message("claims");
  m.set_json("claims", std::move(list));
  collector_->send(cm, m);
}

void Agent::cm_claims_disconnected(net::NetClient* cm) {
  // Running jobs go on for their lease; the CM that comes back re-adopts them.
  (void)cm;
}

}  // namespace kite::agent
