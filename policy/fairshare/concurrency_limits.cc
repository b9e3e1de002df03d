// Concurrency limits: parsing a job's list, reading the configured limits, tracking use.
#include "policy/fairshare/concurrency_limits.h"

#include <cctype>
#include <cstdlib>
#include <limits>

#include "policy/classad/match.h"
#include "policy/config/typed.h"

namespace kite::fairshare {
namespace {

constexpr double kEps = 1e-9;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Empty when `name` follows the reference's rules, else why not.
std::string name_problem(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) return "a name cannot start with a digit";
  int dots = 0;
  for (char c : name) {
    if (c == '.') {
      if (++dots > 1) return "a name has at most one '.'";
      continue;
    }
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return std::string("'") + c + "' is not allowed in a name (letters, digits, '_', one '.')";
  }
  if (name.front() == '.' || name.back() == '.') return "a '.' must separate a set and a name";
  return {};
}

}  // namespace

bool parse_concurrency_limits(std::string_view text, std::vector<LimitUse>* out,
                              std::string* error) {
  out->clear();
  size_t i = 0;
  int item = 0;
  auto is_sep = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    if (i >= text.size()) break;
    size_t start = i;
    while (i < text.size() && !is_sep(text[i])) ++i;
    ++item;
    std::string_view token = text.substr(start, i - start);
    std::string_view name = token;
    double units = 1;
    size_t colon = token.find(':');
    auto fail = [&](const std::string& why) {
      *error = "concurrency limit \"" + std::string(token) + "\" (item " + std::to_string(item) +
               " of \"" + std::string(text) + "\"): " + why;
      return false;
    };
    if (colon != std::string_view::npos) {
      name = token.substr(0, colon);
      std::string count(token.substr(colon + 1));
      char* end = nullptr;
      units = std::strtod(count.c_str(), &end);
      if (count.empty() || end != count.c_str() + count.size())
        return fail("the units after ':' are not a number");
      if (!(units > 0)) return fail("the units after ':' must be positive");
    }
    std::string why = name_problem(name);
    if (!why.empty()) return fail(why);
    std::string key = lower(name);
    bool merged = false;
    for (LimitUse& u : *out) {
      if (u.name != key) continue;
      u.units += units;
      merged = true;
    }
    if (!merged) out->push_back({std::move(key), units});
  }
  return true;
}

bool job_limit_uses(classad::ClassAd& job, classad::ClassAd& machine, std::vector<LimitUse>* out,
                    std::string* error) {
  out->clear();
  const classad::Expr* e = job.lookup("ConcurrencyLimits");
  if (!e) return true;
  classad::MatchPair pair(job, machine);
  classad::Value v = pair.evaluate_left(e);
  if (v.is_undefined()) return true;
  if (!v.is_string()) {
    *error = "ConcurrencyLimits does not evaluate to a string against the matched machine";
    return false;
  }
  return parse_concurrency_limits(v.as_string(), out, error);
}

double LimitTable::limit_of(std::string_view name) const {
  std::string key = lower(name);
  auto it = named.find(key);
  if (it != named.end()) return it->second;
  size_t dot = key.find('.');
  if (dot != std::string::npos) {
    auto set = set_defaults.find(key.substr(0, dot));
    if (set != set_defaults.end()) return set->second;
  }
  return has_default ? default_limit : std::numeric_limits<double>::infinity();
}

config::Status limits_from_config(const config::Config& cfg, LimitTable* out) {
  LimitTable t;
  static constexpr std::string_view kDefault = "concurrency_limit_default";
  const std::string subsys_prefix = lower(cfg.subsystem()) + ".";
  for (const config::Entry& e : cfg.entries()) {
    if (e.is_default) continue;
    std::string name = lower(e.name);
    if (name.rfind(subsys_prefix, 0) == 0) name.erase(0, subsys_prefix.size());
    double value = 0;
    if (name == kDefault) {
      if (config::Status st = config::read_real(cfg, e.name, &value); !st.ok) return st;
      t.has_default = true;
      t.default_limit = value;
    } else if (name.rfind(std::string(kDefault) + "_", 0) == 0) {
      if (config::Status st = config::read_real(cfg, e.name, &value); !st.ok) return st;
      t.set_defaults[name.substr(kDefault.size() + 1)] = value;
    } else if (ends_with(name, "_limit") && name.size() > 6 &&
               name_problem(name.substr(0, name.size() - 6)).empty()) {
      if (config::Status st = config::read_real(cfg, e.name, &value); !st.ok) return st;
      t.named[name.substr(0, name.size() - 6)] = value;
    }
  }
  *out = std::move(t);
  return config::Status::Ok();
}

bool LimitTracker::fits(const std::vector<LimitUse>& uses, std::string* blocking) const {
  for (const LimitUse& u : uses) {
    if (in_use(u.name) + u.units <= table_.limit_of(u.name) + kEps) continue;
    if (blocking) *blocking = u.name;
    return false;
  }
  return true;
}

void LimitTracker::acquire(const std::vector<LimitUse>& uses) {
  for (const LimitUse& u : uses) used_[lower(u.name)] += u.units;
}

void LimitTracker::release(const std::vector<LimitUse>& uses) {
  for (const LimitUse& u : uses) {
    auto it = used_.find(lower(u.name));
    if (it == used_.end()) continue;
    it->second -= u.units;
    if (it->second <= kEps) used_.erase(it);
  }
}

double LimitTracker::in_use(std::string_view name) const {
  auto it = used_.find(lower(name));
  return it == used_.end() ? 0 : it->second;
}

}  // namespace kite::fairshare
