// The ad of a new slot: identity, slot type, machine facts, load and idle inputs, the time
// attributes that follow the Clock, WithinResourceLimits, and STARTD_ATTRS / SLOT<N>_STARTD_ATTRS.
#include "policy/startd/engine.h"
#include "policy/startd/text_util.h"

#include <cstdio>

#include "policy/classad/parser.h"

namespace kite::startd {
namespace {

constexpr const char* kCondorVersionString = "$CondorVersion: 25.14.0 2026-11-22 Kite $";

}  // namespace

void build_static_ad(Startd& sd, const config::Config& cfg, const MachineFacts& f, SlotImpl& s,
                     int64_t now, std::string* err, bool* ok) {
  s.ad = AdPtr(ClassAd::make());
  ClassAd& ad = *s.ad;
  ad.insert_value("MyType", Value::string("Machine"));
  ad.insert_value("TargetType", Value::string("Job"));
  ad.insert_value("Name", Value::string(s.name + "@" + f.hostname));
  ad.insert_value("Machine", Value::string(f.hostname));
  ad.insert_value("SlotID", Value::integer(s.id));
  ad.insert_value("SlotTypeID", Value::integer(s.dynamic ? s.parent->type_id : s.type_id));
  ad.insert_value("SlotType", Value::string(s.dynamic         ? "Dynamic"
                                            : s.partitionable ? "Partitionable"
                                                              : "Static"));
  if (s.partitionable) ad.insert_value("PartitionableSlot", Value::boolean(true));
  if (s.dynamic) {
    ad.insert_value("DynamicSlot", Value::boolean(true));
    ad.insert_value("DSlotId", Value::integer(s.dslot_id));
    ad.insert_value("ParentSlotId", Value::integer(s.parent->id));
  }
  ad.insert_value("Arch", Value::string(f.arch));
  ad.insert_value("OpSys", Value::string(f.opsys));
  ad.insert_value("OpSysAndVer", Value::string(f.opsys_and_ver));
  ad.insert_value("Mips", Value::integer(whole(f.mips)));
  ad.insert_value("KFlops", Value::integer(whole(f.kflops)));
  ad.insert_value("KeyboardIdle", Value::integer(f.keyboard_idle));
  ad.insert_value("ConsoleIdle", Value::integer(f.console_idle));
  ad.insert_value("LoadAvg", Value::real(f.load_avg));
  ad.insert_value("CondorLoadAvg", Value::real(0));
  ad.insert_value("TotalLoadAvg", Value::real(f.load_avg));
  ad.insert_value("TotalCondorLoadAvg", Value::real(0));
  ad.insert_value("CpuBusyTime", Value::integer(0));
  {
    // CpuBusy as the configured expression (the latch below samples it).
    std::string cb;
    ExprPtr e;
    if (cfg.get("CpuBusy", &cb) && !trim(cb).empty()) e = classad::parse_expr(trim(cb));
    if (e)
      ad.insert("CpuBusy", e.release());
    else
      ad.insert_value("CpuBusy", Value::boolean(false));
  }
  ad.insert_value("TotalCpus", Value::integer(sd.layout().slots.empty() ? f.cpus : 0));
  ad.insert_value("DetectedCpus", Value::integer(f.cpus));
  ad.insert_value("DetectedMemory", Value::integer(f.memory_mb));
  ad.insert_value("TotalDisk", Value::integer(f.disk_kb));
  ad.insert_value("DetectedDisk", Value::integer(f.disk_kb));
  ad.insert_value("TotalVirtualMemory", Value::integer(f.swap_kb));
  {
    // HTCONDOR: startd SLOT_WEIGHT "Defaults to Cpus" (observed: SlotWeight = Cpus).
    std::string w;
    ExprPtr e;
    if (cfg.get("SLOT_WEIGHT", &w) && !trim(w).empty()) e = classad::parse_expr(trim(w));
    if (!e) e = classad::parse_expr("Cpus");
    ad.insert("SlotWeight", e.release());
  }
  ad.insert_value("AcceptedWhileDraining", Value::boolean(false));
  {
    // HTCONDOR: UID_DOMAIN and FILESYSTEM_DOMAIN default to the machine's full hostname; a
    // submit file's default Requirements compare FileSystemDomain with the submitter's.
    std::string uid_domain, fs_domain;
    if (!cfg.get("UID_DOMAIN", &uid_domain) || trim(uid_domain).empty()) uid_domain = f.hostname;
    if (!cfg.get("FILESYSTEM_DOMAIN", &fs_domain) || trim(fs_domain).empty())
      fs_domain = f.hostname;
    ad.insert_value("UidDomain", Value::string(std::string(trim(uid_domain))));
    ad.insert_value("FileSystemDomain", Value::string(std::string(trim(fs_domain))));
  }
  // The HTCondor version whose execution-point semantics Kite implements: submit files'
  // default Requirements test it (versionGE(split(TARGET.CondorVersion)[1], ...)).
  ad.insert_value("CondorVersion", Value::string(kCondorVersionString));
  ad.insert_value("DaemonStartTime", Value::integer(now));
  ad.insert_value("TimeToLive", Value::integer(INT32_MAX));
  // HTCONDOR: ep-policy "Time of Day Policy": ClockMin (minutes since midnight) and ClockDay
  // (Sunday = 0), here in UTC, and the current time, all following time() (the Clock).
  static const char* const kTimeAttrs[][2] = {
      {"CurrentTime", "time()"},
      {"MyCurrentTime", "time()"},
      {"ClockMin", "(time() % 86400) / 60"},
      {"ClockDay", "(time() / 86400 + 4) % 7"},
  };
  for (const auto& kv : kTimeAttrs) {
    ExprPtr ct = classad::parse_expr(kv[1]);
    ad.insert(kv[0], ct.release());
  }
  // WithinResourceLimits as HTCondor advertises it (minus catalogs).
  ExprPtr wrl = classad::parse_expr(
      "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= "
      "MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs =?= "
      "undefined || MY.GPUs >= TARGET.RequestGPUs)");
  ad.insert("WithinResourceLimits", wrl.release());
  // STARTD_ATTRS (+ legacy STARTD_EXPRS) and SLOT<N>_STARTD_ATTRS; values per slot.
  std::vector<std::string> names;
  for (const char* list : {"STARTD_ATTRS", "STARTD_EXPRS"}) {
    std::string v;
    if (cfg.get(list, &v)) {
      for (auto& n : split_list(v)) names.push_back(n);
    }
  }
  {
    char key[48];
    std::snprintf(key, sizeof key, "SLOT%d_STARTD_ATTRS", s.id);
    std::string v;
    if (cfg.get(key, &v)) {
      for (auto& n : split_list(v)) names.push_back(n);
    }
  }
  for (const std::string& n : names) {
    config::Entry e;
    if (!cfg.lookup_slot(n, s.id, s.dynamic ? s.parent->type_id : s.type_id, &e)) continue;
    std::string text;
    if (!cfg.get(e.name, &text)) continue;
    text = trim(text);
    if (text.empty()) continue;
    classad::ParseError pe;
    ExprPtr ex = classad::parse_expr(text, &pe);
    if (!ex) {
      *err = e.source + ": " + e.name + " = " + text + ": " + pe.to_string();
      *ok = false;
      return;
    }
    ad.insert(n, ex.release());
  }
}

}  // namespace kite::startd
