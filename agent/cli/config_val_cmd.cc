// `kite config-val`: prints configuration values like condor_config_val (query, -raw, -verbose,
// -dump), reading /etc/kite/kite.conf + its config.d/, $KITE_CONFIG, or -c FILE.
// Exit status: 0 ok, 1 some NAME not defined, 2 usage or unreadable configuration.
#include <pcre2.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/core/config_command.h"
#include "hal/facts.h"
#include "policy/config/config.h"
#include "policy/config/persistent.h"

namespace kite::cli {
namespace {

constexpr const char* kDefaultConfig = "/etc/kite/kite.conf";

int usage() {
  std::fprintf(
      stderr,
      "usage: kite config-val [-c FILE] [-subsystem NAME] [-raw] [-verbose] NAME...\n"
      "       kite config-val [-c FILE] [-subsystem NAME] -dump [-verbose] [REGEX...]\n"
      "  -c FILE          read FILE (default $KITE_CONFIG, else %s\n"
      "                   and its config.d/ directory)\n"
      "  -raw             print values as written, without expanding $(...)\n"
      "  -verbose         also print where each value was set\n"
      "  -dump            print every macro (matching REGEX) as NAME = raw value\n"
      "  -subsystem NAME  evaluate SUBSYS.NAME overrides for NAME (default STARTD)\n"
      "       kite config-val [-pool HOST] -name NODE -set \"NAME = value\" (also -unset,\n"
      "                   -rset, -runset): change a node's configuration through the CM\n",
      kDefaultConfig);
  return 2;
}

std::string upper(const char* s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return r;
}

bool matches_any(const std::vector<pcre2_code*>& res, const std::string& name) {
  if (res.empty()) return true;
  for (pcre2_code* re : res) {
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(re, nullptr);
    int rc =
        pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(name.c_str()), name.size(), 0, 0, md, nullptr);
    pcre2_match_data_free(md);
    if (rc >= 0) return true;
  }
  return false;
}

int dump(const config::Config& cfg, const std::vector<const char*>& patterns, bool verbose) {
  std::vector<pcre2_code*> res;
  for (const char* p : patterns) {
    int err = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p), PCRE2_ZERO_TERMINATED,
                                   PCRE2_CASELESS, &err, &off, nullptr);
    if (!re) {
      std::fprintf(stderr, "kite config-val: bad regular expression '%s'\n", p);
      for (pcre2_code* r : res) pcre2_code_free(r);
      return 2;
    }
    res.push_back(re);
  }
  std::string host;
  config::Entry he;
  host = cfg.lookup("FULL_HOSTNAME", &he) ? he.value : "<unknown hostname>";
  std::printf("# Configuration from machine: %s\n", host.c_str());
  if (!patterns.empty()) {
    std::string joined;
    for (const char* p : patterns) joined += std::string(joined.empty() ? "" : " ") + p;
    std::printf("\n# Parameters with names that match %s:\n", joined.c_str());
  }
  for (const config::Entry& e : cfg.entries()) {
    if (!matches_any(res, e.name)) continue;
    std::printf("%s = %s\n", e.name.c_str(), e.value.c_str());
    if (verbose) {
      std::string v;
      config::Status st;
      cfg.get(e.name, &v, &st);
      std::printf(" # at: %s\n", e.source.c_str());
      std::printf(" # expanded: %s\n", st.ok ? v.c_str() : st.message.c_str());
    }
  }
  if (!verbose) {
    std::printf("# Contributing configuration file(s):\n");
    for (const std::string& f : cfg.files()) std::printf("#\t%s\n", f.c_str());
  }
  for (pcre2_code* r : res) pcre2_code_free(r);
  return 0;
}

}  // namespace

int config_val_main(int argc, char** argv) {
  if (config_set_requested(argc, argv)) return config_set_main(argc, argv);
  const char* file = nullptr;
  const char* subsystem = "STARTD";
  bool raw = false, verbose = false, do_dump = false;
  std::vector<const char*> names;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (a[0] != '-' || a[1] == '\0') {
      names.push_back(a);
    } else if (std::strcmp(a, "-c") == 0 || std::strcmp(a, "-subsystem") == 0) {
      if (i + 1 >= argc) return usage();
      (a[1] == 'c' ? file : subsystem) = argv[++i];
    } else if (std::strcmp(a, "-raw") == 0) {
      raw = true;
    } else if (std::strcmp(a, "-verbose") == 0 || std::strcmp(a, "-v") == 0) {
      verbose = true;
    } else if (std::strcmp(a, "-dump") == 0 || std::strcmp(a, "-d") == 0) {
      do_dump = true;
    } else if (std::strcmp(a, "-help") == 0 || std::strcmp(a, "--help") == 0 ||
               std::strcmp(a, "-h") == 0) {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "kite config-val: unknown option '%s'\n", a);
      return usage();
    }
  }
  if (names.empty() && !do_dump) return usage();

  config::Config cfg(subsystem);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) {
    cfg.set_detected("FULL_HOSTNAME", host);
    std::string shortname(host);
    cfg.set_detected("HOSTNAME", shortname.substr(0, shortname.find('.')));
  }
  cfg.set_command_runner(agent::run_config_command);
  cfg.set_cache_writer(agent::write_config_cache);
  hal::OsInfo os;  // $(OPSYS), $(ARCH), $(OPSYSANDVER), ... as HTCondor detects them
  if (hal::os_info_read(hal::Root(), &os).ok) hal::os_info_set_detected(os, &cfg);
  bool must_exist = true;
  std::string path;
  if (file) {
    path = file;
  } else if (const char* env = std::getenv("KITE_CONFIG"); env && env[0]) {
    path = env;
  } else {
    path = kDefaultConfig;
    must_exist = false;
  }
  config::Status st = cfg.load_main(path, must_exist);
  if (st.ok) st = config::load_persistent(&cfg);
  for (const std::string& w : cfg.warnings()) std::fprintf(stderr, "%s\n", w.c_str());
  if (!st.ok) {
    std::fprintf(stderr, "kite config-val: configuration error: %s\n", st.message.c_str());
    return 2;
  }
  if (do_dump) return dump(cfg, names, verbose);

  int not_defined = 0;
  for (const char* name : names) {
    config::Entry e;
    std::string value;
    bool found = cfg.lookup(name, &e);
    if (found && raw) {
      value = e.value;
    } else if (found) {
      config::Status err;
      cfg.get(name, &value, &err);
      if (!err.ok) {
        std::fprintf(stderr, "kite config-val: configuration error: %s\n", err.message.c_str());
        return 2;
      }
      // Like condor_config_val (param()): an empty expanded value counts as not defined.
      found = !value.empty();
    }
    if (!found) {
      std::fprintf(stderr, "Not defined: %s\n", upper(name).c_str());
      ++not_defined;
      continue;
    }
    if (!verbose) {
      std::printf("%s\n", value.c_str());
      continue;
    }
    std::printf("%s = %s\n", e.name.c_str(), value.c_str());
    std::printf(" # at: %s\n", e.source.c_str());
    if (!raw) std::printf(" # raw: %s = %s\n", e.name.c_str(), e.value.c_str());
    std::printf("\n");
  }
  return not_defined > 0 ? 1 : 0;
}

}  // namespace kite::cli
