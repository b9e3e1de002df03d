// HalReport -> MachineFacts, and the per-poll samples.
#include "agent/startd/node_probe.h"

#include <ctime>

#include "policy/startd/text_util.h"

namespace kite::agent {

bool node_probe(const hal::Root& root, config::Config* cfg, const std::string& execute_dir,
                hal::HalReport* report, startd::MachineFacts* facts, std::string* err) {
  hal::Status st = hal::hal_probe(root, cfg, std::time(nullptr), hal::GpuOptions(), report);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  facts->cpus = report->res.total_cpus > 0 ? report->res.total_cpus : 1;
  facts->memory_mb = report->res.total_memory_mib > 0 ? report->res.total_memory_mib : 1;
  hal::DiskInfo disk;
  if (hal::disk_read(root, execute_dir, &disk).ok) {
    facts->disk_kb = disk.free_kib - report->reserved_disk_kib;
  } else {
    facts->disk_kb = report->disk.free_kib - report->reserved_disk_kib;
  }
  if (facts->disk_kb < 0) facts->disk_kb = 0;
  facts->swap_kb = report->mem.swap_total_kib;
  facts->hostname = report->os.hostname.empty() ? "localhost" : report->os.hostname;
  // NETWORK_HOSTNAME (HTCondor's name): the machine name to use instead of the kernel's, e.g.
  // the CN of the node's certificate, or one of several agents sharing a host.
  std::string name;
  if (cfg->get("NETWORK_HOSTNAME", &name) && !name.empty()) facts->hostname = name;
  facts->arch = report->os.arch;
  facts->opsys = report->os.opsys;
  facts->opsys_and_ver = report->os.opsys_and_ver;
  facts->gpus.clear();
  for (const hal::GpuDevice& g : report->gpus) {
    startd::GpuDevice d;
    d.id = g.id;
    char buf[160];
    if (g.capability > 0) {
      std::snprintf(buf, sizeof buf, "Capability = %g\n", g.capability);
      d.properties += buf;
    }
    if (g.global_memory_mb >= 0) {
      std::snprintf(buf, sizeof buf, "GlobalMemoryMb = %lld\n",
                    static_cast<long long>(g.global_memory_mb));
      d.properties += buf;
    }
    if (!g.name.empty()) d.properties += "DeviceName = \"" + g.name + "\"\n";
    facts->gpus.push_back(std::move(d));
  }
  cfg->set_detected("FULL_HOSTNAME", facts->hostname);
  node_sample(root, *cfg, facts);
  return true;
}

void node_sample(const hal::Root& root, const config::Config& cfg, startd::MachineFacts* facts) {
  hal::LoadAvg load;
  if (hal::loadavg_read(root, &load).ok) facts->load_avg = load.one;
  std::string devices;
  std::vector<std::string> console;
  if (cfg.get("CONSOLE_DEVICES", &devices)) console = startd::split_list(devices);
  hal::IdleInfo idle;
  if (hal::idle_read(root, console, std::time(nullptr), &idle).ok) {
    facts->keyboard_idle = idle.keyboard_idle;
    facts->console_idle = idle.console_idle;
  }
}

}  // namespace kite::agent
