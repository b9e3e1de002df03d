// `kite submit [-pool HOST[:PORT]] FILE`: the submit file's procs to the central manager's
// queue, as condor_submit does (the file is read and expanded here, on the client, so its
// paths, files and $ENV are the submitter's). `-dry-run` prints the job ad of every proc
// instead (old ClassAd syntax, one blank line between procs). Warnings and errors to stderr.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/core/accounts.h"
#include "agent/core/config_command.h"
#include "policy/config/config.h"
#include "policy/submit/submit.h"
#if !KITE_NODE_ONLY
#include "agent/cli/cm_client.h"
#include "agent/cm/queue_client.h"
#endif

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite submit [-pool HOST[:PORT]] FILE\n"
               "       kite submit -dry-run [OUTFILE] FILE\n"
               "  -pool      the central manager (default: COLLECTOR_HOST in $KITE_CONFIG)\n"
               "  -dry-run   print the job ads FILE makes instead of submitting them; with\n"
               "             OUTFILE (condor_submit's form) write them there ('-' = stdout)\n"
               "  the submitting user is $KITE_SUBMIT_USER, else the real user;\n"
               "  FileSystemDomain comes from FILESYSTEM_DOMAIN in $KITE_CONFIG or\n"
               "  /etc/kite/kite.conf\n");
  return 2;
}

std::string submitting_user() {
  if (const char* u = std::getenv("KITE_SUBMIT_USER"); u && u[0]) return u;
  // Read from /etc/passwd by Kite itself: the static image has no NSS.
  core::Account a;
  return core::account_by_uid(getuid(), &a) ? a.name : std::to_string(getuid());
}

std::string filesystem_domain() {
  config::Config cfg("SUBMIT");
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) cfg.set_detected("FULL_HOSTNAME", host);
  const char* env = std::getenv("KITE_CONFIG");
  bool given = env && env[0];
  std::string value;
  if (cfg.load_main(given ? env : "/etc/kite/kite.conf", given).ok &&
      cfg.get("FILESYSTEM_DOMAIN", &value) && !value.empty()) {
    return value;
  }
  return host;
}

// Expands `file` with $(Cluster) = opts->cluster; prints the warnings and the error.
bool expand_file(const char* file, const submit::Options& opts, submit::Result* result) {
  submit::Status st = submit::submit_file(file, opts, result);
  for (const std::string& w : result->warnings) std::fprintf(stderr, "\n%s\n", w.c_str());
  if (!st.ok) std::fprintf(stderr, "\nERROR: %s\n", st.message.c_str());
  return st.ok;
}

#if !KITE_NODE_ONLY
// condor_submit's order: a new cluster id from the CM, the file expanded with it, then a dot
// per job, the warning of a submit requirement, the cluster.
int submit_remote(const std::string& cm, const char* file, submit::Options opts) {
  SubmitReply reply;
  std::string err;
  auto expand = [&](int cluster, submit::Result* result) {
    opts.cluster = cluster;
    if (!expand_file(file, opts, result)) return false;
    std::string dots = "Submitting job(s)" + std::string(result->procs.size(), '.') + "\n";
    std::fputs(dots.c_str(), stdout);
    std::fflush(stdout);
    return true;
  };
  if (!submit_to_cm(cm, expand, &reply, &err)) {
    if (reply.not_expanded) return 1;
    std::fprintf(stderr, "ERROR: Failed to commit job submission into the queue.\nERROR: %s\n",
                 err.c_str());
    return 1;
  }
  if (!reply.warning.empty()) {
    std::printf(
        "WARNING: Committed job submission into the queue with the following warning:\n"
        "WARNING: %s\n\n",
        reply.warning.c_str());
  }
  std::printf("%d job(s) submitted to cluster %d.\n", reply.procs, reply.cluster);
  return 0;
}
#endif

}  // namespace

int submit_main(int argc, char** argv) {
  bool dry_run = false;
  std::string pool;
  std::vector<const char*> positional;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strcmp(a, "-dry-run") || !std::strcmp(a, "--dry-run") || !std::strcmp(a, "-dry")) {
      dry_run = true;
    } else if ((!std::strcmp(a, "-pool") || !std::strcmp(a, "--pool")) && i + 1 < argc) {
      pool = argv[++i];
    } else if (!std::strcmp(a, "-h") || !std::strcmp(a, "-help") || !std::strcmp(a, "--help")) {
      usage();
      return 0;
    } else if (a[0] == '-' && a[1] != '\0') {
      std::fprintf(stderr, "kite submit: unknown option '%s'\n", a);
      return usage();
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty() || positional.size() > 2 || (!dry_run && positional.size() > 1)) {
    return usage();
  }
#if KITE_NODE_ONLY
  if (!dry_run) {
    std::fprintf(stderr, "kite submit: this build has no central manager tools; use -dry-run\n");
    return 2;
  }
#else
  std::string cm, err;
  if (!dry_run && !cm_address(pool, &cm, &err)) {
    std::fprintf(stderr, "kite submit: %s (or -dry-run to print the job ads)\n", err.c_str());
    return 2;
  }
#endif
  const char* out_path = positional.size() == 2 ? positional[0] : "-";
  const char* file = positional.back();

  submit::Options opts;
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) {
    std::fprintf(stderr, "ERROR: cannot read the current directory: %s\n", std::strerror(errno));
    return 1;
  }
  opts.cwd = cwd;
  opts.user = submitting_user();
  opts.filesystem_domain = filesystem_domain();
  opts.version = std::string("$CondorVersion: 25.14.0 Kite ") + KITE_VERSION + " $";
  opts.now = static_cast<int64_t>(std::time(nullptr));
  opts.run_command = agent::run_config_command;  // `queue ... from COMMAND |`

#if !KITE_NODE_ONLY
  if (!dry_run) return submit_remote(cm, file, opts);
#endif
  submit::Result result;
  if (!expand_file(file, opts, &result)) return 1;
  FILE* out = stdout;
  if (std::strcmp(out_path, "-") != 0) {
    out = std::fopen(out_path, "w");
    if (!out) {
      std::fprintf(stderr, "ERROR: cannot write %s: %s\n", out_path, std::strerror(errno));
      return 1;
    }
  }
  std::string text;
  for (size_t i = 0; i < result.procs.size(); ++i) {
    if (i > 0) text += '\n';
    for (const submit::Attr& a : result.merged(i)) {
      text += a.name;
      text += " = ";
      text += a.value;
      text += '\n';
    }
    if (text.size() > (1 << 20)) {
      std::fwrite(text.data(), 1, text.size(), out);
      text.clear();
    }
  }
  std::fwrite(text.data(), 1, text.size(), out);
  bool ok = std::fflush(out) == 0;
  if (out != stdout) ok = std::fclose(out) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "ERROR: cannot write the job ads\n");
    return 1;
  }
  return 0;
}

}  // namespace kite::cli
