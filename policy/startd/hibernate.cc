// Power management's decision: HIBERNATE evaluated in every slot at HIBERNATE_CHECK_INTERVAL;
// when no slot vetoes, the machine sleeps at the deepest level asked for (a hibernate action).
// HTCONDOR: ep-configuration "Power Management", startd HIBERNATE and HIBERNATE_CHECK_INTERVAL.
#include <strings.h>

#include "policy/startd/engine.h"

namespace kite::startd {

namespace {

// HTCONDOR: startd HIBERNATE: the names "are not case sensitive".
struct LevelName {
  const char* name;
  int level;
};
constexpr LevelName kLevelNames[] = {
    {"NONE", 0},    {"0", 0},        {"S1", 1}, {"1", 1},    {"STANDBY", 1},   {"SLEEP", 1},
    {"S2", 2},      {"2", 2},        {"S3", 3}, {"3", 3},    {"RAM", 3},       {"MEM", 3},
    {"SUSPEND", 3}, {"S4", 4},       {"4", 4},  {"DISK", 4}, {"HIBERNATE", 4}, {"S5", 5},
    {"5", 5},       {"SHUTDOWN", 5}, {"OFF", 5}};

// "an hour of uptime is enforced after a machine has been woken"
constexpr int64_t kUptimeAfterWake = 3600;

}  // namespace

int hibernate_level(const classad::Value& v) {
  if (v.is_integer()) {
    int64_t n = v.as_integer();
    return n >= 0 && n <= 5 ? static_cast<int>(n) : 0;
  }
  if (!v.is_string()) return 0;
  std::string s(v.as_string());
  for (const LevelName& l : kLevelNames) {
    if (strcasecmp(s.c_str(), l.name) == 0) return l.level;
  }
  return 0;  // "Strings that do not match any in the table above are treated as NONE."
}

const char* hibernate_level_name(int level) {
  static const char* const kNames[] = {"NONE", "S1", "S2", "S3", "S4", "S5"};
  return level >= 0 && level <= 5 ? kNames[level] : "NONE";
}

int hibernate_decision(const std::vector<int>& levels) {
  int best = 0;
  for (int l : levels) {
    if (l <= 0) return 0;  // "any one slot has veto power over the other slots"
    if (l > best) best = l;
  }
  return best;
}

void Startd::resumed_from_sleep(int level) {
  if (hibernate_interval_ <= 0) return;
  int64_t now = clock_.now();
  next_hibernate_ = level == 5 ? now + hibernate_interval_ : now + kUptimeAfterWake;
}

int Engine::hibernate_agreed() {
  std::vector<int> levels;
  for (auto& p : sd.slots_) {
    SlotImpl& s = *p;
    if (s.dead) continue;
    levels.push_back(s.pol.hibernate ? hibernate_level(eval_local(s, s.pol.hibernate.get())) : 0);
    if (levels.back() == 0) return 0;
  }
  return hibernate_decision(levels);
}

int Startd::hibernate_level_now() const {
  Output scratch;
  Engine eng{const_cast<Startd&>(*this), &scratch, clock_.now()};
  return eng.hibernate_agreed();
}

void Engine::hibernate_check() {
  if (sd.hibernate_interval_ <= 0 || sd.shutting_down_ || now < sd.next_hibernate_) return;
  while (sd.next_hibernate_ <= now) sd.next_hibernate_ += sd.hibernate_interval_;
  int level = hibernate_agreed();
  for (auto& p : sd.slots_) {
    if (p->dead || level <= 0) continue;
    act(*p, ActionKind::kHibernate, hibernate_level_name(level));
    break;  // one action for the machine, on its first slot
  }
}

}  // namespace kite::startd
