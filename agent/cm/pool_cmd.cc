// `kite pool simulate FILE... [--csv FILE]`: the admins' dry run of a pool's allocation policy
// (the simulator is policy/pool/). Exit 0 when every expectation holds, 1 when one fails, 2 on
// usage errors or a scenario that does not parse.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/core/files.h"
#include "policy/pool/pool_sim.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite pool simulate [-q] FILE... [--csv FILE]\n"
               "  runs each pool scenario (configuration, '---', machines and timed steps) on a\n"
               "  virtual clock; prints a line per cycle and every failed expectation;\n"
               "  -q prints only failures and the summary; --csv writes one row per cycle and\n"
               "  submitter or group (time,name,kind,running,idle,rup,eup,quota)\n");
  return 2;
}

}  // namespace

int pool_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "simulate") != 0) return usage();
  bool quiet = false;
  const char* csv_path = nullptr;
  std::vector<const char*> files;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "-q") == 0) {
      quiet = true;
    } else if (std::strcmp(argv[i], "--csv") == 0) {
      if (++i >= argc) return usage();
      csv_path = argv[i];
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      std::fprintf(stderr, "kite pool simulate: unknown option %s\n", argv[i]);
      return usage();
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) return usage();
  int rc = 0;
  std::string csv = pool::kCsvHeader;
  for (const char* path : files) {
    std::string text;
    std::string err;
    if (!core::read_file(path, &text, &err)) {
      std::fprintf(stderr, "kite pool simulate: %s\n", err.c_str());
      rc = 2;
      continue;
    }
    pool::PoolResult r;
    r.report_cycles = !quiet || csv_path != nullptr;
    pool::pool_run(text, path, &r);
    if (r.error) {
      std::fputs(r.output.c_str(), stderr);
      rc = 2;
      continue;
    }
    csv += r.csv;
    size_t p = 0;
    while (p < r.output.size()) {
      size_t nl = r.output.find('\n', p);
      std::string l = r.output.substr(p, nl == std::string::npos ? std::string::npos : nl - p + 1);
      if (!quiet || l.rfind("FAIL", 0) == 0 || l.find(" passed, ") != std::string::npos)
        std::fputs(l.c_str(), stdout);
      if (nl == std::string::npos) break;
      p = nl + 1;
    }
    if (r.failed > 0 && rc == 0) rc = 1;
  }
  if (csv_path) {
    FILE* f = std::fopen(csv_path, "wb");
    if (!f || std::fwrite(csv.data(), 1, csv.size(), f) != csv.size() || std::fclose(f) != 0) {
      std::fprintf(stderr, "kite pool simulate: cannot write %s\n", csv_path);
      return 2;
    }
  }
  return rc;
}

}  // namespace kite::cli
