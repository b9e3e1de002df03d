// `kite policy simulate FILE...`: runs policy scenarios on the startd core with a virtual clock
// (the runner is policy/startd/scenario.cc). Exit 0 when every expectation holds, 1 when one
// fails, 2 on usage errors or a scenario that does not parse.
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/cli/commands.h"
#include "agent/core/files.h"
#include "policy/startd/scenario.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite policy simulate [-q] FILE...\n"
               "  runs each scenario (configuration, '---', timed steps) and prints the trace;\n"
               "  -q prints only failures and the summary\n");
  return 2;
}

}  // namespace

int policy_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "simulate") != 0) return usage();
  bool quiet = false;
  int rc = 0;
  int files = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "-q") == 0) {
      quiet = true;
      continue;
    }
    ++files;
    std::string text;
    std::string err;
    if (!core::read_file(argv[i], &text, &err)) {
      std::fprintf(stderr, "kite policy simulate: %s\n", err.c_str());
      rc = 2;
      continue;
    }
    startd::ScenarioResult r;
    startd::scenario_run(text, argv[i], &r);
    if (r.error) {
      std::fputs(r.output.c_str(), stderr);
      rc = 2;
      continue;
    }
    if (quiet) {
      size_t p = 0;
      while (p < r.output.size()) {
        size_t nl = r.output.find('\n', p);
        std::string l =
            r.output.substr(p, nl == std::string::npos ? std::string::npos : nl - p + 1);
        if (l.rfind("FAIL", 0) == 0 || l.rfind("ERROR", 0) == 0 ||
            l.find(" passed, ") != std::string::npos)
          std::fputs(l.c_str(), stdout);
        if (nl == std::string::npos) break;
        p = nl + 1;
      }
    } else {
      std::fputs(r.output.c_str(), stdout);
    }
    if (r.failed > 0 && rc == 0) rc = 1;
  }
  if (files == 0) return usage();
  return rc;
}

}  // namespace kite::cli
