// Queue memory per job: loads a queue of 100,000 jobs and prints the RSS it costs beyond
// SQLite's own memory (page cache included), with PASS/FAIL against 0.5 KiB per job.
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "agent/queue/job_store.h"
#include "policy/classad/parser.h"
#include "tests/bench/self_rss.h"

int main(int argc, char** argv) {
  const int kJobs = 100000, kPerCluster = 1000;
  std::string dir = argc > 1 ? argv[1] : "/tmp";
  std::string path = dir + "/kite-queue-mem-" + std::to_string(getpid()) + ".db";
  std::string err;
  {
    kite::queue::JobStore store;
    if (!store.open(path, &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 2;
    }
    kite::classad::AdPtr cluster = kite::classad::parse_classad(
        "[ Owner = \"alice\"; Cmd = \"/bin/sleep\"; Args = \"60\"; RequestCpus = 1;"
        " RequestMemory = 128; RequestDisk = 1024; JobUniverse = 5; Iwd = \"/home/alice\";"
        " Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") ]");
    std::vector<kite::classad::AdPtr> procs;
    std::vector<const kite::classad::ClassAd*> ptrs;
    for (int i = 0; i < kPerCluster; ++i) {
      procs.push_back(kite::classad::parse_classad(
          ("[ Args = \"" + std::to_string(i) + "\"; Out = \"out." + std::to_string(i) + "\" ]")
              .c_str()));
      ptrs.push_back(procs.back().get());
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int c = 0; c < kJobs / kPerCluster; ++c) {
      if (!store.submit(*cluster, ptrs, 1795308491 + c, nullptr, &err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 2;
      }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = static_cast<double>(t1.tv_sec - t0.tv_sec) +
                  static_cast<double>(t1.tv_nsec - t0.tv_nsec) / 1e9;
    std::printf(
        "queue: submitted %d jobs as %d clusters of %d (one transaction each) in %.2f s: "
        "%.0f procs/s\n",
        kJobs, kJobs / kPerCluster, kPerCluster, secs, kJobs / secs);
  }
  // Measure a fresh load, as the CM does at start.
  long before = kite::bench::self_rss_kib();
  long sqlite_before = static_cast<long>(sqlite3_memory_used() / 1024);
  kite::queue::JobStore store;
  if (!store.open(path, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 2;
  }
  long after = kite::bench::self_rss_kib();
  long sqlite_kib = static_cast<long>(sqlite3_memory_used() / 1024) - sqlite_before;
  double per_job = static_cast<double>(after - before - sqlite_kib) * 1024.0 /
                   static_cast<double>(store.jobs().size());
  std::printf("queue: %zu jobs loaded; RSS +%ld KiB, SQLite (page cache included) %ld KiB\n",
              store.jobs().size(), after - before, sqlite_kib);
  bool pass = store.jobs().size() == static_cast<size_t>(kJobs) && per_job <= 512.0;
  std::printf("queue memory per job beyond SQLite: %.1f bytes (goal <= 512): %s\n", per_job,
              pass ? "PASS" : "FAIL");
  store.close();
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return pass ? 0 : 1;
}
