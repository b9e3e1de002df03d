// Probing every facet into a HalReport and rendering it as the machine ad's hardware part.
#include "hal/machine_ad.h"

#include <cstdio>
#include <cstdlib>

#include "policy/classad/parser.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"

namespace kite::hal {
namespace {

std::string cfg_string(const config::Config& cfg, const char* name, const char* dflt) {
  std::string v;
  if (cfg.get(name, &v) && !trim(v).empty()) return std::string(trim(v));
  return dflt;
}

}  // namespace

Status hal_probe(const Root& root, config::Config* cfg, time_t now, const GpuOptions& gpu_opt,
                 HalReport* out) {
  *out = HalReport();
  Status st = topology_load(root, &out->topo);
  if (!st.ok) return st;
  st = meminfo_read(root, &out->mem);
  if (!st.ok) return st;
  // Physical memory as the kernel counts it (hwloc's total can differ by reserved pages).
  if (out->mem.mem_total_kib > 0)
    out->topo.memory = static_cast<uint64_t>(out->mem.mem_total_kib) * 1024;
  topology_set_detected(out->topo, cfg);
  st = resources_compute(out->topo, *cfg, &out->res);
  if (!st.ok) return st;
  st = os_info_read(root, &out->os);
  if (!st.ok) return st;
  os_info_set_detected(out->os, cfg);

  std::string exec = cfg_string(*cfg, "EXECUTE", "/var/lib/condor/execute");
  st = disk_read(root, exec, &out->disk);
  if (!st.ok) out->notes.push_back("disk: " + st.message);
  int64_t reserved_mb = 0;  // RESERVED_DISK is in MB
  config::Status cst =
      config::read_int(*cfg, "RESERVED_DISK", &reserved_mb, nullptr, 0, INT64_MAX / 1024);
  if (!cst.ok) return Status::Error(cst.message);
  out->reserved_disk_kib = reserved_mb * 1024;
  st = loadavg_read(root, &out->load);
  if (!st.ok) out->notes.push_back("load: " + st.message);
  std::vector<std::string> console;
  std::string devices = cfg_string(*cfg, "CONSOLE_DEVICES", "mouse,console");
  for (std::string_view d : split(devices, ", ")) console.emplace_back(d);
  idle_read(root, console, now, &out->idle);
  clock_fields(now, &out->clock_min, &out->clock_day);

  st = cgroup_detect(root, &out->cgroups);
  if (!st.ok) out->notes.push_back("cgroups: " + st.message);
  for (const std::string& m : out->cgroups.missing) out->notes.push_back("cgroups: " + m);
  CgroupConfig cc;
  st = cgroup_config_read(*cfg, &cc);
  if (!st.ok) return st;
  out->base_cgroup = cc.base;

  out->power = power_detect(root, cfg_string(*cfg, "LINUX_HIBERNATION_METHOD", ""));
  if (!out->power.error.empty()) out->notes.push_back("power: " + out->power.error);
  out->nics = net_interfaces(root);

  GpuOptions g = gpu_opt;
  std::string lib = cfg_string(*cfg, "NVML_LIBRARY", "");
  if (g.nvml_library.empty() && !lib.empty()) g.nvml_library = lib;
  // KITE_GPU_DISCOVERY: which methods to use (a board knows what it has), default all.
  std::string methods = cfg_string(*cfg, "KITE_GPU_DISCOVERY", "nvml,proc,drm,tegra");
  if (methods != "nvml,proc,drm,tegra") {
    auto has = [&](const char* m) {
      return (", " + methods + ",").find(std::string(" ") + m + ",") != std::string::npos ||
             ("," + methods + ",").find(std::string(",") + m + ",") != std::string::npos;
    };
    g.use_nvml = g.use_nvml && has("nvml");
    g.use_proc = g.use_proc && has("proc");
    g.use_drm = g.use_drm && has("drm");
    g.use_tegra = g.use_tegra && has("tegra");
  }
  out->gpus = gpu_discover(root, g, &out->notes);
  return Status::Ok();
}

classad::AdPtr hal_machine_ad(const HalReport& r) {
  using classad::Value;
  classad::AdPtr ad(classad::ClassAd::make());
  auto s = [&](const char* k, const std::string& v) { ad->insert_value(k, Value::string(v)); };
  auto i = [&](const char* k, int64_t v) { ad->insert_value(k, Value::integer(v)); };
  auto d = [&](const char* k, double v) { ad->insert_value(k, Value::real(v)); };
  auto b = [&](const char* k, bool v) { ad->insert_value(k, Value::boolean(v)); };
  auto expr = [&](const char* k, const std::string& text) {
    if (classad::ExprPtr e = classad::parse_expr(text)) ad->insert(k, e.release());
  };

  s("Arch", r.os.arch);
  s("OpSys", r.os.opsys);
  s("OpSysLegacy", r.os.opsys);
  s("OpSysAndVer", r.os.opsys_and_ver);
  i("OpSysMajorVer", r.os.opsys_major_ver);
  s("OpSysName", r.os.opsys_name);
  s("OpSysLongName", r.os.opsys_long_name);
  s("OpSysShortName", r.os.opsys_short_name);
  i("OpSysVer", r.os.opsys_ver);
  s("UtsnameMachine", r.os.uname_machine);
  s("UtsnameNodename", r.os.uname_nodename);
  s("UtsnameRelease", r.os.uname_release);
  s("UtsnameSysname", r.os.uname_sysname);
  s("UtsnameVersion", r.os.uname_version);
  s("Machine", r.os.hostname);

  i("DetectedCpus", r.res.detected_cpus);
  i("DetectedMemory", r.res.detected_memory_mib);
  d("TotalCpus", r.res.total_cpus);
  i("TotalMemory", r.res.total_memory_mib);
  i("DetectedCores", r.topo.cores);
  i("DetectedPackages", r.topo.packages);
  i("DetectedNumaNodes", static_cast<int64_t>(r.topo.numa.size()));
  if (!r.topo.cpu_model.empty()) s("CpuModel", r.topo.cpu_model);
  std::string numa = "{ ";
  for (size_t k = 0; k < r.topo.numa.size(); ++k)
    numa += (k ? ", " : "") + std::to_string(r.topo.numa[k].memory >> 20);
  expr("NumaNodeMemory", numa + " }");
  std::string caches;
  for (const CacheInfo& c : r.topo.caches) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%sL%d%s:%lluK*%d", caches.empty() ? "" : ",", c.level,
                  c.kind == 'd'   ? "d"
                  : c.kind == 'i' ? "i"
                                  : "",
                  static_cast<unsigned long long>(c.size >> 10), c.count);
    caches += buf;
  }
  s("CpuCaches", caches);

  i("DetectedDisk", r.disk.total_kib);
  int64_t disk = r.disk.free_kib - r.reserved_disk_kib;
  i("TotalDisk", disk > 0 ? disk : 0);
  i("TotalVirtualMemory", r.mem.virtual_memory_kib());
  i("VirtualMemory", r.mem.virtual_memory_kib());
  i("TotalSwap", r.mem.swap_total_kib);

  // HTCONDOR: ep-policy "Load Average for Multi-core Machines": one single-cpu slot per
  // cpu (the default layout), no job load, none in Owner state; LoadAvg is slot 1's share.
  double total_condor = 0;
  std::vector<SlotLoadIn> slots(static_cast<size_t>(r.res.total_cpus > 0 ? r.res.total_cpus : 1));
  std::vector<SlotLoadOut> split_load = load_split(r.load.one, slots, &total_condor);
  d("TotalLoadAvg", r.load.one);
  d("TotalCondorLoadAvg", total_condor);
  d("LoadAvg", split_load[0].load_avg);
  d("CondorLoadAvg", split_load[0].condor_load);
  i("KeyboardIdle", r.idle.keyboard_idle);
  i("ConsoleIdle", r.idle.console_idle);
  i("ClockMin", r.clock_min);
  i("ClockDay", r.clock_day);

  s("CgroupMode", cgroup_mode_name(r.cgroups.mode));
  if (!r.cgroups.v2_mount.empty()) s("CgroupV2Mount", r.cgroups.v2_mount);
  std::string placement;
  for (int f = 0; f < static_cast<int>(CgroupFacility::kCount); ++f) {
    CgroupPlace p = r.cgroups.place[f];
    placement += std::string(placement.empty() ? "" : ",") +
                 cgroup_facility_name(static_cast<CgroupFacility>(f)) + ":" +
                 (p == CgroupPlace::kV2   ? "v2"
                  : p == CgroupPlace::kV1 ? "v1"
                                          : "none");
  }
  s("CgroupControllers", placement);
  s("BaseCgroup", r.base_cgroup);

  b("CanHibernate", r.power.can_hibernate());
  s("HibernationMethod", power_method_name(r.power.method));
  s("HibernationSupportedStates", r.power.supported_string());
  s("HibernationState", "NONE");
  i("HibernationLevel", 0);
  bool wol_sup = false, wol_on = false;
  std::string hw = "00:00:00:00:00:00", macs;
  for (const NetInterface& n : r.nics) {
    if (macs.empty()) {
      hw = n.mac;
      if (!n.netmask.empty()) s("SubnetMask", n.netmask);
    }
    macs += (macs.empty() ? "" : ",") + n.name + "=" + n.mac;
    wol_sup |= n.wol_supported;
    wol_on |= n.wol_enabled;
  }
  s("HardwareAddress", hw);
  s("NetworkInterfaces", macs);
  b("IsWakeOnLanSupported", wol_sup);
  b("IsWakeOnLanEnabled", wol_on);
  b("IsWakeAble", wol_sup && wol_on);

  gpu_ad_insert(r.gpus, ad.get());
  return ad;
}

}  // namespace kite::hal
