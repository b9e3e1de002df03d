// Negotiator benchmark (not in CTest; run by scripts/bench-negotiator): one negotiation cycle
// over realistic ads, timed around negotiate() alone, with the process's peak RSS. Slot ads are
// made from the observed HTCondor 25 slot ad (static slots, one per ad), job ads from the
// observed `condor_q -l` ad (MappingMethod left out, see below). Cases:
//   10k:  10,000 idle jobs from 20 submitters (one cluster each) against 10,000 slots
//   100k: 100,000 idle jobs in 200 autoclusters (20 submitters x 10 request sizes) against
//         10,000 slots
//   10k-groups: the 10k case with the 20 submitters in 6 accounting groups (dynamic quotas,
//         surplus shared) and each job holding one of 5 concurrency limits of 1,800 (4
//         submitters, 2,000 jobs, per limit): 9,000 matches
// Prints one line: case, matches, cycle seconds, peak RSS MiB, RSS MiB before the cycle.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "policy/classad/parser.h"
#include "policy/config/config.h"
#include "policy/negotiator/negotiator.h"

using namespace kite;

namespace {

std::string read_file(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The observed ad's lines, without the `$ command` line and without the attributes `drop` names
// (the bench sets those itself).
std::string template_lines(const std::string& text, const std::vector<std::string>& drop) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '$') continue;
    std::string name = line.substr(0, line.find(" ="));
    bool skip = false;
    for (const std::string& d : drop) skip = skip || strcasecmp(d.c_str(), name.c_str()) == 0;
    if (!skip) out += line + "\n";
  }
  return out;
}

long rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

double cpu_seconds(const struct rusage& ru) {
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[1], "10k") != 0 && strcmp(argv[1], "100k") != 0 &&
                    strcmp(argv[1], "10k-groups") != 0)) {
    std::fprintf(stderr, "usage: negotiator_bench 10k|100k|10k-groups SLOT_AD_FILE JOB_AD_FILE\n");
    return 2;
  }
  const bool big = strcmp(argv[1], "100k") == 0;
  const bool groups = strcmp(argv[1], "10k-groups") == 0;
  const int kGroups = 6, kLimits = 5;
  config::Config cfg("NEGOTIATOR");
  if (groups) {
    std::string text = "GROUP_NAMES =";
    for (int g = 0; g < kGroups; ++g) text += std::string(g ? "," : "") + " group_" + char('a' + g);
    text += "\nGROUP_ACCEPT_SURPLUS = true\n";
    for (int g = 0; g < kGroups; ++g)
      text += std::string("GROUP_QUOTA_DYNAMIC_group_") + char('a' + g) + " = 0.16\n";
    for (int l = 0; l < kLimits; ++l) text += "LIC" + std::to_string(l) + "_LIMIT = 1800\n";
    config::Status st = cfg.load_string(text);
    if (st.ok) st = cfg.finish();
    if (!st.ok) {
      std::fprintf(stderr, "negotiator_bench: %s\n", st.message.c_str());
      return 2;
    }
  }
  std::string slot_text = read_file(argv[2]), job_text = read_file(argv[3]);
  if (slot_text.empty() || job_text.empty()) {
    std::fprintf(stderr, "negotiator_bench: cannot read %s or %s\n", argv[2], argv[3]);
    return 2;
  }
  const std::string slot_base = template_lines(
      slot_text, {"Name", "SlotID", "Machine", "PartitionableSlot", "SlotType", "Cpus", "Memory",
                  "State", "Activity", "MyAddress", "PublicClaimId", "TotalSlots",
                  // Kite evaluates the observed WithinResourceLimits to error when MappingMethod
                  // is a string ("MappingMethod ?: \"\" != \"Copy\"" as the condition of
                  // ifthenelse); without it the expression reads as HTCondor means it.
                  "MappingMethod"});
  const std::string job_base = template_lines(
      job_text, {"ClusterId", "ProcId", "Owner", "User", "QDate", "GlobalJobId", "RequestMemory",
                 "AccountingGroup", "AcctGroupUser", "Args", "ConcurrencyLimits"});

  negotiator::CycleInput in;
  in.now = 1795308600;
  if (groups) in.cfg = &cfg;
  const int kMachines = 1250, kSlotsPerMachine = 8;
  for (int m = 0; m < kMachines; ++m) {
    for (int s = 1; s <= kSlotsPerMachine; ++s) {
      char head[512];
      std::snprintf(head, sizeof head,
                    "Name = \"slot%d@node%04d.example.org\"\nSlotID = %d\n"
                    "Machine = \"node%04d.example.org\"\nSlotType = \"Static\"\nCpus = 1\n"
                    "Memory = 4096\nState = \"Unclaimed\"\nActivity = \"Idle\"\n"
                    "MyAddress = \"<10.0.%d.%d:9618?addrs=10.0.%d.%d-9618>\"\nTotalSlots = 8\n",
                    s, m, s, m, m / 250, m % 250, m / 250, m % 250);
      classad::AdPtr ad = classad::parse_classad_old(head + slot_base);
      if (!ad) {
        std::fprintf(stderr, "negotiator_bench: the slot template does not parse\n");
        return 2;
      }
      in.slots.push_back(std::move(ad));
    }
  }
  const int kSubmitters = 20;
  const int kClustersEach = big ? 10 : 1;
  const int kProcs = 500;
  int cluster = 1;
  for (int u = 0; u < kSubmitters; ++u) {
    negotiator::Submitter sub;
    char user[64];
    std::snprintf(user, sizeof user, "user%02d", u);
    sub.name = std::string(user) + "@example.org";
    sub.priority = 0.5 + u;
    std::string extra;  // the groups case: accounting group and concurrency limit
    if (groups) {
      std::string group = std::string("group_") + char('a' + u % kGroups);
      sub.name = group + "." + user + "@example.org";
      extra = "AccountingGroup = \"" + group + "." + user + "\"\nConcurrencyLimits = \"lic" +
              std::to_string(u % kLimits) + "\"\n";
    }
    for (int c = 0; c < kClustersEach; ++c, ++cluster) {
      for (int p = 0; p < kProcs; ++p) {
        char head[512];
        std::snprintf(head, sizeof head,
                      "ClusterId = %d\nProcId = %d\nOwner = \"%s\"\nUser = \"%s@example.org\"\n"
                      "QDate = %d\nGlobalJobId = \"submit.example.org#%d.%d#%d\"\n"
                      "RequestMemory = %d\nArgs = \"%d\"\n",
                      cluster, p, user, user, 1795308000 + cluster, cluster, p,
                      1795308000 + cluster, 64 * (c + 1), p);
        negotiator::IdleJob job;
        job.cluster = cluster;
        job.proc = p;
        job.ad = classad::parse_classad_old(head + extra + job_base);
        if (!job.ad) {
          std::fprintf(stderr, "negotiator_bench: the job template does not parse\n");
          return 2;
        }
        sub.jobs.push_back(std::move(job));
      }
    }
    in.submitters.push_back(std::move(sub));
  }
  // Build each ad's lookup index now (the first lookup does), as ads a CM has queried already
  // have it: the cycle's own memory is what grows beyond this.
  const uint32_t name_id = classad::intern_name("Name").id;
  for (const classad::AdPtr& a : in.slots) a->lookup_id(name_id);
  for (const negotiator::Submitter& s : in.submitters) {
    for (const negotiator::IdleJob& j : s.jobs) j.ad->lookup_id(name_id);
  }
  long before = rss_kib();
  struct rusage ru0;
  getrusage(RUSAGE_SELF, &ru0);
  const double cpu0 = cpu_seconds(ru0);
  auto t0 = std::chrono::steady_clock::now();
  negotiator::CycleResult r = negotiator::negotiate(in);
  auto t1 = std::chrono::steady_clock::now();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf(
      "%s matches=%zu autoclusters=%lld cycle_s=%.3f cycle_cpu_s=%.3f peak_rss_mib=%.1f "
      "ads_rss_mib=%.1f cycle_growth_mib=%.1f\n",
      argv[1], r.matches.size(), static_cast<long long>(r.autoclusters),
      std::chrono::duration<double>(t1 - t0).count(), cpu_seconds(ru) - cpu0, ru.ru_maxrss / 1024.0,
      before / 1024.0, (ru.ru_maxrss - before) / 1024.0);
  return 0;
}
