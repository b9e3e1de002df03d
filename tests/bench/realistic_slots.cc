// Realistic slot ads for the collector benchmarks (see realistic_slots.h).
#include "tests/bench/realistic_slots.h"

#include <cstring>

#include "agent/core/files.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace kite::bench {
namespace {

// Replaces every `from` in `s` by `to`.
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The attributes that differ between the slots of a pool at one moment (times, loads, counters,
// sizes, ids), as a merge carries them; every other value is the same on every slot of a
// machine, and the host name differs between machines.
const char* const kVarying[] = {
    "MyCurrentTime",
    "LastHeardFrom",
    "KeyboardIdle",
    "ConsoleIdle",
    "LoadAvg",
    "CondorLoadAvg",
    "TotalLoadAvg",
    "TotalCondorLoadAvg",
    "UpdateSequenceNumber",
    "SlotID",
    "Memory",
    "Disk",
    "TotalDisk",
    "Mips",
    "KFlops",
    "EnteredCurrentState",
    "EnteredCurrentActivity",
    "LastBenchmark",
    "DaemonStartTime",
    "MonitorSelfAge",
    "MonitorSelfCPUUsage",
    "MonitorSelfImageSize",
    "MonitorSelfResidentSetSize",
    "RecentDaemonCoreDutyCycle",
    "DaemonCoreDutyCycle",
    "ImageSize",
    "TotalTimeUnclaimedIdle",
    "TotalTimeClaimedBusy",
    "TotalTimeOwnerIdle",
    "NextFetchWorkDelay",
    "ExpectedMachineGracefulDrainingCompletion",
};

// The value varying attribute `name` (base value `base`) takes for counter `v`: distinct per
// slot and update, but of the base's magnitude, so a query such as `Memory > 100000` selects
// what it would on a real pool (none of these slots), not half the fleet.
classad::Value varied(const char* name, const classad::Expr* base, int slot, int v) {
  if (std::strcmp(name, "SlotID") == 0) return classad::Value::integer(slot);
  if (base->kind == classad::ExprKind::kLiteral && classad::as_literal(base)->value.is_integer() &&
      classad::as_literal(base)->value.as_integer() >= 2) {
    int64_t b = classad::as_literal(base)->value.as_integer();
    return classad::Value::integer(b - v % (b / 2));
  }
  return classad::Value::integer(v);
}

}  // namespace

std::string RealisticSlots::default_path(const std::string& source_dir) {
  std::string path, text, err;
  for (const char* up : {"/..", "/../.."}) {
    path = source_dir + up + "/shared/reference/htcondor-25/observed/slot-ad-pslot.txt";
    if (core::read_file(path, &text, &err)) return path;
  }
  return path;
}

bool RealisticSlots::load(const std::string& path, std::string* err) {
  std::string text;
  if (!core::read_file(path, &text, err)) return false;
  classad::ParseError perr;
  base_ = classad::parse_classad_old(text, &perr);
  if (!base_) {
    *err = path + ": " + perr.to_string();
    return false;
  }
  host_.clear();
  base_->evaluate_string("Machine", host_);
  return true;
}

std::string RealisticSlots::full(const std::string& machine, int slot, int seed) const {
  classad::AdPtr ad(base_->copy());
  std::string name = "slot" + std::to_string(slot) + "@" + machine;
  ad->insert_value("Name", classad::Value::string(name));
  int k = 0;
  for (const char* v : kVarying) {
    ++k;
    if (const classad::Expr* e = base_->lookup(v))
      ad->insert_value(v, varied(v, e, slot, seed + slot * 13 + k));
  }
  std::string json = classad::classad_to_json(*ad, false);
  return host_.empty() ? json : replace_all(json, host_, machine);
}

std::string RealisticSlots::delta(const std::string& machine, int slot, int seed) const {
  classad::AdPtr ad(classad::ClassAd::make());
  ad->insert_value("Name", classad::Value::string("slot" + std::to_string(slot) + "@" + machine));
  int k = 0;
  for (const char* v : kVarying) {
    ++k;
    if (const classad::Expr* e = base_->lookup(v))
      ad->insert_value(v, varied(v, e, slot, seed + slot * 13 + k + 1));
  }
  return classad::classad_to_json(*ad, false);
}

}  // namespace kite::bench
