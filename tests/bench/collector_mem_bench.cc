// Memory of the collector's ad store per ad (not in CTest): 10,000 slot ads made from the real
// HTCondor 25 slot ad in the reference (185 attributes, ~5.9 kB of text), 1,250 machines x 8
// slots, each stored as the CM stores an agent's full ad (JSON text -> AdStore::update), then
// every ad merged once with the attributes that change between updates. Prints the process's
// RSS and heap growth per ad with PASS/FAIL against 2 kB per ad (10,000 ads in the CM's
// 20 MB goal of CM-ANCHORS.md, "collector memory holding 10,000 ads").
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/collector/ad_store.h"
#include "agent/core/files.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace {

long rss_kib() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

size_t heap_bytes() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

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

}  // namespace

int main(int argc, char** argv) {
  // The reference sits beside the repository (../shared), or beside a worktree's parent.
  std::string path, text, err;
  for (const char* up : {"/..", "/../.."}) {
    path = std::string(KITE_SOURCE_DIR) + up +
           "/shared/reference/htcondor-25/observed/slot-ad-pslot.txt";
    if (argc > 1) path = argv[1];
    if (kite::core::read_file(path, &text, &err)) break;
  }
  if (text.empty()) {
    std::fprintf(stderr, "collector_mem_bench: %s (give a slot ad file as the argument)\n",
                 err.c_str());
    return 1;
  }
  kite::classad::ParseError perr;
  kite::classad::AdPtr base = kite::classad::parse_classad_old(text, &perr);
  if (!base) {
    std::fprintf(stderr, "collector_mem_bench: %s: %s\n", path.c_str(), perr.to_string().c_str());
    return 1;
  }
  std::string host;
  base->evaluate_string("Machine", host);
  const int kMachines = 1250, kSlots = 8;
  // The agents' JSON texts, made before measuring.
  std::vector<std::string> full, merges;
  full.reserve(kMachines * kSlots);
  for (int m = 0; m < kMachines; ++m) {
    char name[32];
    std::snprintf(name, sizeof name, "node%04d.example.org", m);
    for (int s = 1; s <= kSlots; ++s) {
      kite::classad::AdPtr ad(base->copy());
      std::string slot = "slot" + std::to_string(s) + "@" + name;
      ad->insert_value("Name", kite::classad::Value::string(slot));
      kite::classad::AdPtr delta(kite::classad::ClassAd::make());
      delta->insert_value("Name", kite::classad::Value::string(slot));
      int k = 0;
      for (const char* v : kVarying) {
        ++k;
        if (!ad->lookup(v)) continue;
        int64_t n = 1000 + m * 97 + s * 13 + k;
        ad->insert_value(v, kite::classad::Value::integer(n));
        delta->insert_value(v, kite::classad::Value::integer(n + 1));
      }
      std::string json = kite::classad::classad_to_json(*ad, false);
      full.push_back(replace_all(json, host, name));
      merges.push_back(kite::classad::classad_to_json(*delta, false));
    }
  }
  base = kite::classad::AdPtr();
  std::printf("ads=%zu attributes=%zu json_bytes_each=%zu\n", full.size(),
              kite::classad::classad_from_json(full[0])->size(), full[0].size());

  malloc_trim(0);
  long rss0 = rss_kib();
  size_t heap0 = heap_bytes();
  {
    kite::collector::AdStore store{kite::collector::StoreConfig{}};
    for (const std::string& j : full) {  // the texts stay: their memory is not the store's
      kite::classad::AdPtr ad = kite::classad::classad_from_json(j);
      if (!ad || !store.update("Machine", std::move(ad), 1000, false, &err)) {
        std::fprintf(stderr, "collector_mem_bench: update: %s\n", err.c_str());
        return 1;
      }
    }
    std::vector<kite::classad::JsonAttr> attrs;
    std::string name;
    for (const std::string& j : merges) {
      if (!kite::classad::classad_json_attrs(j, attrs, &perr)) return 1;
      for (const kite::classad::JsonAttr& a : attrs)  // the text is in alphabetical order
        if (a.name.name->view() == "Name")
          name.assign(kite::classad::as_literal(a.expr)->value.as_string());
      store.merge("Machine", name, &attrs, 1001);
    }
    long rss1 = rss_kib();
    size_t heap1 = heap_bytes();
    double n = static_cast<double>(store.size());
    double rss_per = (static_cast<double>(rss1 - rss0) * 1024.0) / n;
    double heap_per = (static_cast<double>(heap1) - static_cast<double>(heap0)) / n;
    std::printf("store_rss_bytes_per_ad=%.0f\nstore_heap_bytes_per_ad=%.0f\n", rss_per, heap_per);
    std::printf("%-56s %10.0f B    (target <= 2000) %s\n",
                "ad store RSS per ad (HTCondor ~19,500 B)", rss_per,
                rss_per <= 2000 ? "PASS" : "FAIL");
  }
  return 0;
}
