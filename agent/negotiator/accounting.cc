// The accountant in `kite cm` (see accounting.h).
#include "agent/negotiator/accounting.h"

#include <ctime>
#include <map>

#include "agent/cm/collector_server.h"
#include "agent/core/log.h"
#include "agent/queue/job_store.h"
#include "policy/accountant/accounting_ad.h"
#include "policy/accountant/userprio_answer.h"
#include "policy/accountant/userprio_options.h"
#include "policy/config/typed.h"
#include "policy/fairshare/slot_weight.h"

namespace kite::negotiator {
namespace {

constexpr uint64_t kSaveDelayMs = 1000;  // a usage change is on disk within this

int64_t now_s() {
  return static_cast<int64_t>(std::time(nullptr));
}

std::string group_fn(std::string_view submitter, const void* ctx) {
  const auto* groups = static_cast<const fairshare::GroupSettings*>(ctx);
  return fairshare::group_of(*groups, submitter.substr(0, submitter.rfind('@')));
}

}  // namespace

Accounting::Accounting(cm::CmContext* ctx, const ClaimLayer* claims) : ctx_(ctx), claims_(claims) {
  if (!ctx->cfg || !ctx->cfg->get("UID_DOMAIN", &uid_domain_) || uid_domain_.empty())
    uid_domain_ = "localdomain";
}

Accounting::~Accounting() = default;

bool Accounting::start(std::string* err) {
  accountant::Settings settings;
  config::Status st = accountant::settings_from_config(*ctx_->cfg, &settings);
  if (st.ok) st = fairshare::group_settings_from_config(*ctx_->cfg, &groups_);
  if (st.ok) st = config::read_bool(*ctx_->cfg, "NEGOTIATOR_USE_SLOT_WEIGHTS", &use_slot_weights_);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  acc_.set_settings(std::move(settings));
  if (!store_.open(ctx_->accountant_db, err) || !store_.load(&acc_, err)) {
    *err = "accountant: " + *err;
    return false;
  }
  KLOG_INFO("accountant: %zu records loaded from %s", acc_.records().size(),
            ctx_->accountant_db.c_str());
  for (uv_timer_t** t : {&charge_timer_, &save_timer_}) {
    *t = new uv_timer_t{};
    uv_timer_init(ctx_->loop, *t);
    (*t)->data = this;
  }
  ctx_->usage_changed = [this] { usage_changed(); };
  publish();
  return true;
}

void Accounting::stop() {
  ctx_->usage_changed = [] {};
  if (save_armed_) save();  // what changed since the last save
  for (uv_timer_t** t : {&charge_timer_, &save_timer_}) {
    if (!*t) continue;
    uv_timer_stop(*t);
    uv_close(reinterpret_cast<uv_handle_t*>(*t),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    *t = nullptr;
  }
  store_.close();
}

double Accounting::weight_of(const ClaimLayer::RunningJob& r) const {
  // The claimed slot as its agent advertises it (a dynamic slot has its own ad), else the
  // static slot as matched, else what the job asked for.
  auto whole_slot = [](const classad::ClassAd* ad) {
    bool pslot = false;
    return ad && !(ad->evaluate_bool("PartitionableSlot", pslot) && pslot);
  };
  const collector::StoredAd* s = ctx_->collector->store().find("Machine", r.slot);
  if (s && whole_slot(s->ad.get())) return fairshare::slot_weight(*s->ad, use_slot_weights_);
  if (whole_slot(r.matched_slot)) return fairshare::slot_weight(*r.matched_slot, use_slot_weights_);
  double cpus = 1;
  if (use_slot_weights_ && r.job && r.job->evaluate_real("RequestCpus", cpus) && cpus > 0)
    return cpus;
  return 1;
}

void Accounting::charge(int64_t now) {
  struct Use {
    int64_t slots = 0;
    double weight = 0;
  };
  std::map<std::string, Use> use;
  for (const ClaimLayer::RunningJob& r : claims_->running()) {
    Use& u = use[*r.submitter];
    ++u.slots;
    u.weight += weight_of(r);
  }
  // After a CM restart, jobs still running on agents that have not reported yet: their
  // submitters go on being charged at the stored level (no usage lost).
  std::set<std::string> keep;
  for (const queue::JobId& id : claims_->unreported()) {
    std::string err;
    classad::AdPtr ad = ctx_->jobs->job_ad(id, &err);
    if (ad) keep.insert(job_submitter(*ad, uid_domain_));
  }
  std::vector<std::string> idle;
  for (const accountant::Record& r : acc_.records()) {
    if (!r.is_group && (r.resources_used > 0 || r.weighted_in_use > 0) && !use.count(r.name))
      idle.push_back(r.name);
  }
  for (const std::string& name : idle)
    if (!keep.count(name)) acc_.set_usage(name, 0, 0, now);
  for (const auto& [name, u] : use)
    if (!keep.count(name)) acc_.set_usage(name, u.slots, u.weight, now);
  acc_.set_group_usage(group_fn, &groups_, now);
}

bool Accounting::save() {
  save_armed_ = false;
  if (save_timer_) uv_timer_stop(save_timer_);
  std::string err;
  if (store_.save(acc_, &err)) return true;
  KLOG_ERROR("accountant: %s", err.c_str());
  return false;
}

void Accounting::usage_changed() {
  if (!charge_timer_ || charge_armed_) return;
  charge_armed_ = true;
  uv_timer_start(
      charge_timer_,
      [](uv_timer_t* t) {
        auto* self = static_cast<Accounting*>(t->data);
        self->charge_armed_ = false;
        self->charge(now_s());
        if (self->save_armed_) return;
        self->save_armed_ = true;
        uv_timer_start(
            self->save_timer_, [](uv_timer_t* s) { static_cast<Accounting*>(s->data)->save(); },
            kSaveDelayMs, 0);
      },
      0, 0);
}

void Accounting::publish() {
  std::set<std::string> now_published;
  for (classad::AdPtr& ad : accountant::accounting_ads(acc_, groups_, quotas_)) {
    std::string name, err;
    ad->evaluate_string("Name", name);
    if (!ctx_->collector->publish("Accounting", std::move(ad), &err)) {
      KLOG_WARN("accountant: the Accounting ad of %s: %s", name.c_str(), err.c_str());
      continue;
    }
    now_published.insert(name);
  }
  for (const std::string& gone : published_)
    if (!now_published.count(gone)) ctx_->collector->withdraw("Accounting", gone);
  published_ = std::move(now_published);
}

void Accounting::publish_submitters(const CycleInput& in) {
  // HTCondor's schedd advertises one Submitter ad per submitter (condor_status -submitters);
  // here the queue is the CM's own, so the CM does.
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // running, idle
  for (const ClaimLayer::RunningJob& r : claims_->running())
    if (r.running) ++counts[*r.submitter].first;
  for (const Submitter& s : in.submitters) counts[s.name].second += int64_t(s.jobs.size());
  std::set<std::string> now_published;
  for (const auto& [name, c] : counts) {
    classad::AdPtr ad(classad::ClassAd::make());
    ad->insert_value("MyType", classad::Value::string("Submitter"));
    ad->insert_value("Name", classad::Value::string(name));
    ad->insert_value("RunningJobs", classad::Value::integer(c.first));
    ad->insert_value("IdleJobs", classad::Value::integer(c.second));
    std::string err;
    if (ctx_->collector->publish("Submitter", std::move(ad), &err)) now_published.insert(name);
  }
  for (const std::string& gone : submitters_)
    if (!now_published.count(gone)) ctx_->collector->withdraw("Submitter", gone);
  submitters_ = std::move(now_published);
}

void Accounting::begin_cycle(int64_t now, CycleInput* in) {
  if (charge_armed_) uv_timer_stop(charge_timer_);
  charge_armed_ = false;
  charge(now);
  acc_.update(now);
  save();
  publish();
  publish_submitters(*in);
  std::set<std::string> negotiating;
  for (Submitter& s : in->submitters) {
    negotiating.insert(s.name);
    s.priority = acc_.effective_priority(s.name);
    s.nice = accountant::is_nice_user(s.name);
    if (const accountant::Record* r = acc_.find(s.name)) {
      s.usage = r->weighted_in_use;
      s.floor = r->floor;
      s.ceiling = r->ceiling;
    }
  }
  for (const accountant::Record& r : acc_.records()) {
    if (r.is_group || negotiating.count(r.name)) continue;
    in->other_users.push_back({r.name, acc_.effective_priority(r.name), r.weighted_in_use});
    // A submitter with running jobs and none idle keeps its slice of the pie (the reference's
    // negotiator divides it among all who submitted jobs), so a newcomer's slice is its share.
    if (r.weighted_in_use <= 0) continue;
    Submitter running_only;
    running_only.name = r.name;
    running_only.priority = acc_.effective_priority(r.name);
    running_only.nice = accountant::is_nice_user(r.name);
    running_only.usage = r.weighted_in_use;
    running_only.floor = r.floor;
    running_only.ceiling = r.ceiling;
    in->submitters.push_back(std::move(running_only));
  }
  for (const ClaimLayer::RunningJob& r : claims_->running()) {
    if (!r.running || !r.job || !r.job->lookup("ConcurrencyLimits")) continue;
    const collector::StoredAd* slot = ctx_->collector->store().find("Machine", r.slot);
    const classad::ClassAd* machine = slot ? slot->ad.get() : r.matched_slot;
    if (!machine) continue;
    // The evaluation needs writable ads (match scopes); copies keep the claim's ads as they are.
    classad::AdPtr job(r.job->copy()), m(machine->copy());
    std::vector<fairshare::LimitUse> uses;
    std::string error;
    if (fairshare::job_limit_uses(*job, *m, &uses, &error))
      in->limits_in_use.insert(in->limits_in_use.end(), uses.begin(), uses.end());
  }
}

void Accounting::end_cycle(std::vector<fairshare::GroupQuota> quotas) {
  quotas_ = std::move(quotas);
}

bool Accounting::on_frame(net::TlsConn* c, core::Json& msg) {
  if (msg.type() != "userprio") return false;
  answer(c, msg);
  return true;
}

void Accounting::answer(net::TlsConn* c, const core::Json& msg) {
  std::vector<std::string> args;
  const cJSON* list = msg.child("args");
  const cJSON* item = nullptr;
  if (cJSON_IsArray(list)) {
    cJSON_ArrayForEach(item, list) {
      if (cJSON_IsString(item)) args.push_back(item->valuestring);
    }
  }
  int64_t now = now_s();
  // The client's UTC offset for dates in the tables: real ones lie within a day.
  const int64_t asked_offset = msg.num("utc_offset", 0);
  const int32_t offset =
      asked_offset > -86400 && asked_offset < 86400 ? static_cast<int32_t>(asked_offset) : 0;
  accountant::UserprioRequest req = accountant::parse_userprio_args(args, now, offset);
  core::Json reply = core::Json::message("userprio-reply");
  if (req.kind == accountant::UserprioRequest::Kind::kUsage) {
    c->send_error("userprio: " + (req.error.empty() ? std::string("no request") : req.error));
    return;
  }
  if (req.kind == accountant::UserprioRequest::Kind::kEdit) {
    // condor_userprio's changes need ADMINISTRATOR.
    if (!ctx_->collector->allowed(c, policy::AuthLevel::kAdministrator, "userprio " + args[0]))
      return;
    charge(now);
    std::string text;
    bool ok = accountant::apply_userprio_edit(acc_, req.edit, now, &text);
    if (ok && !save()) {
      c->send_error("userprio: the accountant's database could not be written");
      return;
    }
    KLOG_INFO("accountant: %s/%s: %s", c->peer().role.c_str(), c->peer().cn.c_str(), text.c_str());
    publish();
    reply.set("output", text + "\n");
    reply.set("exit", ok ? 0 : 1);
    c->send(reply);
    return;
  }
  if (!ctx_->collector->allowed(c, policy::AuthLevel::kRead, "userprio")) return;
  reply.set("output", accountant::render_userprio(acc_, groups_, quotas_, req));
  reply.set("exit", 0);
  c->send(reply);
}

}  // namespace kite::negotiator
