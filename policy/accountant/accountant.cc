// The accountant's arithmetic: exact charging of usage between updates, priorities, factors
// and condor_userprio's edit operations.
#include "policy/accountant/accountant.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "policy/config/typed.h"

namespace kite::accountant {
namespace {

// Pieces of usage are kept scaled by 2^((t - charged_until)/h); charge before that factor gets
// large enough to cost precision.
constexpr double kMaxPendingHalfLives = 8;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view user_part(std::string_view name) {
  size_t at = name.rfind('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

}  // namespace

config::Status settings_from_config(const config::Config& cfg, Settings* out) {
  Settings s;
  config::Status st = config::read_real(cfg, "PRIORITY_HALFLIFE", &s.half_life);
  if (st.ok) st = config::read_real(cfg, "DEFAULT_PRIO_FACTOR", &s.default_factor);
  if (st.ok) st = config::read_real(cfg, "NICE_USER_PRIO_FACTOR", &s.nice_user_factor);
  if (st.ok) st = config::read_real(cfg, "REMOTE_PRIO_FACTOR", &s.remote_factor);
  if (!st.ok) return st;
  if (s.half_life <= 0) return config::Status::Error("PRIORITY_HALFLIFE must be positive");
  if (!cfg.get("ACCOUNTANT_LOCAL_DOMAIN", &s.local_domain) || s.local_domain.empty())
    cfg.get("UID_DOMAIN", &s.local_domain);
  for (const config::Entry& e : cfg.entries()) {
    static constexpr std::string_view kPrefix = "group_prio_factor_";
    std::string name = lower(e.name);
    if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    double f = 0;
    st = config::read_real(cfg, e.name, &f);
    if (!st.ok) return st;
    s.group_factors[name.substr(kPrefix.size())] = f;
  }
  *out = std::move(s);
  return config::Status::Ok();
}

std::string submitter_name(std::string_view user, std::string_view uid_domain, bool nice_user) {
  std::string name;
  if (nice_user) name = "nice-user.";
  name += user;
  if (!uid_domain.empty() && user.find('@') == std::string_view::npos) {
    name += '@';
    name += uid_domain;
  }
  return name;
}

bool is_nice_user(std::string_view name) {
  return name.rfind("nice-user.", 0) == 0;
}

const Record* Accountant::find(std::string_view name) const {
  for (const Record& r : records_)
    if (r.name == name) return &r;
  return nullptr;
}

Record& Accountant::get_or_add(const std::string& name, int64_t now) {
  for (Record& r : records_)
    if (r.name == name) return r;
  Record r;
  r.name = name;
  r.charged_until = now;
  r.in_use_since = now;
  records_.push_back(std::move(r));
  return records_.back();
}

// Brings `r` up to `now`: the solution of d(pi)/dt = ln2/h * (rho(t) - pi) over the interval,
// which is the reference's pi = beta*pi + (1-beta)*rho for every stretch of constant usage.
void Accountant::charge(Record& r, int64_t now) const {
  if (now <= r.charged_until) return;
  const double h = settings_.half_life;
  const double beta = std::pow(0.5, double(now - r.charged_until) / h);
  const double current = 1 - std::pow(0.5, double(now - r.in_use_since) / h);
  r.priority = beta * (r.priority + r.uncharged) + r.weighted_in_use * current;
  if (r.priority < kMinPriority) r.priority = kMinPriority;
  const double secs = double(now - r.in_use_since);
  r.weighted_accumulated += r.uncharged_weight_secs + r.weighted_in_use * secs;
  r.accumulated += r.uncharged_secs + double(r.resources_used) * secs;
  if (r.weighted_in_use > 0 || r.resources_used > 0) r.last_usage = now;
  r.uncharged = r.uncharged_weight_secs = r.uncharged_secs = 0;
  r.charged_until = r.in_use_since = now;
}

void Accountant::set_usage(const std::string& name, int64_t slots, double weight, int64_t now) {
  Record& r = get_or_add(name, now);
  if (now < r.in_use_since) now = r.in_use_since;  // a clock step back charges nothing twice
  if (double(now - r.charged_until) > kMaxPendingHalfLives * settings_.half_life) charge(r, now);
  if (now > r.in_use_since) {
    // The level that ends now, scaled to charged_until (see kMaxPendingHalfLives).
    const double h = settings_.half_life;
    const double a = double(r.in_use_since - r.charged_until) / h;
    const double b = double(now - r.charged_until) / h;
    r.uncharged += r.weighted_in_use * (std::exp2(b) - std::exp2(a));
    const double secs = double(now - r.in_use_since);
    r.uncharged_weight_secs += r.weighted_in_use * secs;
    r.uncharged_secs += double(r.resources_used) * secs;
    if (r.weighted_in_use > 0 || r.resources_used > 0) r.last_usage = now;
    r.in_use_since = now;
  }
  if ((weight > 0 || slots > 0) && r.begin_usage == 0) r.begin_usage = now;
  r.resources_used = slots;
  r.weighted_in_use = weight;
}

void Accountant::update(int64_t now) {
  for (Record& r : records_) charge(r, now);
  if (now > last_update_) last_update_ = now;  // a clock step back never moves it back
}

double Accountant::real_priority(std::string_view name) const {
  const Record* r = find(name);
  return r ? r->priority : kMinPriority;
}

double Accountant::factor(std::string_view name) const {
  const Record* r = find(name);
  if (r && r->factor > 0) return r->factor;
  if (is_nice_user(name)) return settings_.nice_user_factor;
  size_t at = name.rfind('@');
  if (at != std::string_view::npos && !settings_.local_domain.empty() &&
      lower(name.substr(at + 1)) != lower(settings_.local_domain))
    return settings_.remote_factor;
  std::string_view user = user_part(name);
  size_t dot = user.rfind('.');
  if (dot != std::string_view::npos) {
    auto it = settings_.group_factors.find(lower(user.substr(0, dot)));
    if (it != settings_.group_factors.end()) return it->second;
  }
  return settings_.default_factor;
}

double Accountant::effective_priority(std::string_view name) const {
  return real_priority(name) * factor(name);
}

void Accountant::set_priority(const std::string& name, double rup, int64_t now) {
  Record& r = get_or_add(name, now);
  charge(r, now);
  r.priority = std::max(rup, kMinPriority);
}

void Accountant::set_factor(const std::string& name, double factor, int64_t now) {
  get_or_add(name, now).factor = factor;
}

void Accountant::set_floor(const std::string& name, double floor, int64_t now) {
  get_or_add(name, now).floor = floor;
}

void Accountant::set_ceiling(const std::string& name, double ceiling, int64_t now) {
  get_or_add(name, now).ceiling = ceiling;
}

void Accountant::set_accumulated(const std::string& name, double weighted_secs, int64_t now) {
  Record& r = get_or_add(name, now);
  charge(r, now);
  r.weighted_accumulated = weighted_secs;
}

void Accountant::set_begin_usage(const std::string& name, int64_t t, int64_t now) {
  get_or_add(name, now).begin_usage = t;
}

void Accountant::set_last_usage(const std::string& name, int64_t t, int64_t now) {
  get_or_add(name, now).last_usage = t;
}

bool Accountant::reset_usage(std::string_view name, int64_t now) {
  for (Record& r : records_) {
    if (r.name != name) continue;
    charge(r, now);
    r.accumulated = r.weighted_accumulated = 0;
    r.begin_usage = now;
    return true;
  }
  return false;
}

void Accountant::reset_all(int64_t now) {
  for (Record& r : records_) {
    charge(r, now);
    r.priority = kMinPriority;
    r.accumulated = r.weighted_accumulated = 0;
    r.begin_usage = now;
  }
}

bool Accountant::remove(std::string_view name) {
  for (size_t i = 0; i < records_.size(); ++i) {
    if (records_[i].name != name) continue;
    records_.erase(records_.begin() + long(i));
    return true;
  }
  return false;
}

void Accountant::set_group_usage(std::string (*group_of)(std::string_view, const void*),
                                 const void* ctx, int64_t now) {
  // Called on every usage change of a busy pool: a few groups, so a flat list (sorted by name
  // at the end, the order records are made and charged in) instead of a map of strings.
  std::vector<GroupSum>& sums = group_sums_;
  sums.clear();
  auto sum_of = [&sums](std::string_view name) -> GroupSum& {
    for (GroupSum& s : sums)
      if (s.name == name) return s;
    sums.push_back(GroupSum{std::string(name), 0, 0});
    return sums.back();
  };
  sum_of("<none>");
  for (const Record& r : records_) {
    if (r.is_group) continue;
    GroupSum& root = sums[0];
    root.slots += r.resources_used;
    root.weight += r.weighted_in_use;
    const std::string g = group_of(r.name, ctx);
    // The group and each of its parents ("a.b.c", "a.b", "a").
    std::string_view level = g;
    while (!level.empty() && level != "<none>") {
      GroupSum& s = sum_of(level);
      s.slots += r.resources_used;
      s.weight += r.weighted_in_use;
      size_t dot = level.rfind('.');
      level = dot == std::string_view::npos ? std::string_view() : level.substr(0, dot);
    }
  }
  for (const Record& r : records_)
    if (r.is_group) sum_of(r.name);  // groups now idle
  std::sort(sums.begin(), sums.end(),
            [](const GroupSum& a, const GroupSum& b) { return a.name < b.name; });
  for (const GroupSum& sum : sums) {
    get_or_add(sum.name, now).is_group = true;
    set_usage(sum.name, sum.slots, sum.weight, now);
  }
}

void Accountant::restore(Record r) {
  for (Record& old : records_) {
    if (old.name == r.name) {
      old = std::move(r);
      return;
    }
  }
  records_.push_back(std::move(r));
}

}  // namespace kite::accountant
