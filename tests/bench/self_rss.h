// The benchmark process's own resident set, for the memory benches.
#pragma once

#include <unistd.h>

#include <cstdio>

namespace kite::bench {

inline long self_rss_kib() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace kite::bench
