// `kite run --local [options] [-- REQUIREMENTS] -- CMD ARGS...`: runs one command as a job on
// this node's agent (the agent claims a slot for it, or reuses its idle claim) and streams
// the outcome. Exit status: the job's exit code, 128+N when it died by signal N, 1 when it
// was held, evicted or refused, 2 for usage errors.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "agent/core/ad_json.h"
#include "agent/core/sock.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite run --local [options] [-- REQUIREMENTS] -- CMD [ARGS...]\n"
               "  --cpus N          RequestCpus (default 1)\n"
               "  --memory MB       RequestMemory (default 128)\n"
               "  --disk KB         RequestDisk (default 1024)\n"
               "  --requirements E  the job's Requirements (also: -- E -- CMD)\n"
               "  -a 'Attr = expr'  any other job attribute (repeatable)\n"
               "  --json            print the exit report as JSON on stdout\n"
               "  -q                no progress lines on stderr\n");
  return 2;
}

// HTCondor's new argument syntax: blanks separate, single quotes group, '' is a quote.
std::string quote_arg(const std::string& a) {
  bool plain = !a.empty();
  for (char c : a) plain = plain && c != ' ' && c != '\t' && c != '\'' && c != '\n';
  if (plain) return a;
  std::string out = "'";
  for (char c : a) {
    if (c == '\'')
      out += "''";
    else
      out += c;
  }
  return out + "'";
}

// Like a shell: a bare name is looked up on PATH, a relative path is made absolute, since the
// job runs elsewhere (its sandbox).
std::string resolve_cmd(const std::string& cmd) {
  if (cmd.empty() || cmd[0] == '/') return cmd;
  if (cmd.find('/') != std::string::npos) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) return std::string(cwd) + "/" + cmd;
    return cmd;
  }
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string cand = p.substr(start, end - start) + "/" + cmd;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    start = end + 1;
  }
  return cmd;
}

}  // namespace

int run_main(int argc, char** argv) {
  LocalTarget t;
  bool local = false, json = false, quiet = false;
  std::string requirements;
  std::vector<std::string> attrs;
  int64_t cpus = 1, memory = 128, disk = 1024;
  int i = 1;
  for (; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;
    if (local_option(argc, argv, &i, &t, &local)) continue;
    auto num = [&](int64_t* out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *out = std::strtoll(argv[++i], &end, 10);
      return end && *end == '\0' && *out > 0;
    };
    if (std::strcmp(argv[i], "--cpus") == 0) {
      if (!num(&cpus)) return usage();
    } else if (std::strcmp(argv[i], "--memory") == 0) {
      if (!num(&memory)) return usage();
    } else if (std::strcmp(argv[i], "--disk") == 0) {
      if (!num(&disk)) return usage();
    } else if (std::strcmp(argv[i], "--requirements") == 0 && i + 1 < argc) {
      requirements = argv[++i];
    } else if (std::strcmp(argv[i], "-a") == 0 && i + 1 < argc) {
      attrs.push_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "-q") == 0 || std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else {
      std::fprintf(stderr, "kite run: unknown option '%s'\n", argv[i]);
      return usage();
    }
  }
  if (!local) return needs_local("run");
  if (i >= argc) return usage();
  ++i;  // past "--"
  if (i + 1 < argc && std::strcmp(argv[i + 1], "--") == 0) {
    requirements = argv[i];
    i += 2;
  }
  if (i >= argc) return usage();
  std::string args;
  for (int k = i + 1; k < argc; ++k) {
    if (!args.empty()) args += ' ';
    args += quote_arg(argv[k]);
  }

  // The job ad in old syntax, then as the agent's JSON.
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  std::string text =
      "Cmd = \"" + esc(resolve_cmd(argv[i])) + "\"\nArguments = \"" + esc(args) + "\"\n";
  text += "RequestCpus = " + std::to_string(cpus) + "\nRequestMemory = " + std::to_string(memory) +
          "\nRequestDisk = " + std::to_string(disk) + "\n";
  std::string reqs = "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory";
  if (!requirements.empty()) reqs = "(" + requirements + ") && " + reqs;
  text += "Requirements = " + reqs + "\n";
  for (const std::string& a : attrs) text += a + "\n";
  classad::ParseError pe;
  classad::AdPtr ad = classad::parse_classad_old(text, &pe);
  if (!ad) {
    std::fprintf(stderr, "kite run: bad job attribute: %s\n", pe.to_string().c_str());
    return 2;
  }
  std::string err;
  core::Json req = core::Json::message("run");
  core::set_ad(&req, "job", *ad);

  int fd = local_connect("run", &t);
  if (fd < 0) return 1;
  if (!core::send_frame(fd, req, &err)) {
    std::fprintf(stderr, "kite run: %s\n", err.c_str());
    return 1;
  }
  core::FrameReader reader;
  for (;;) {
    core::Json m;
    if (core::recv_frame(fd, &reader, &m, -1, &err) != core::FrameReader::Result::kMessage) {
      std::fprintf(stderr, "kite run: lost the agent: %s\n", err.c_str());
      ::close(fd);
      return 1;
    }
    std::string type = m.type();
    if (type == "queued") {
      if (!quiet) std::fprintf(stderr, "kite run: job %lld queued\n", (long long)m.num("id"));
    } else if (type == "started") {
      if (!quiet)
        std::fprintf(stderr, "kite run: job %lld started on %s (pid %lld)\n",
                     (long long)m.num("id"), m.str("slot").c_str(), (long long)m.num("job_pid"));
    } else if (type == "error") {
      std::fprintf(stderr, "kite run: %s\n", m.str("message").c_str());
      ::close(fd);
      return 1;
    } else if (type == "exit") {
      ::close(fd);
      core::Json ex(cJSON_Duplicate(m.child("exit"), true));
      if (!ex) ex = core::Json::object();
      std::string out = ex.str("stdout"), errs = ex.str("stderr");
      if (json) {
        ex.set("slot", m.str("slot")).set("claim_id", m.str("claim_id")).set("id", m.num("id"));
        std::printf("%s\n", ex.dump().c_str());
      } else {
        std::fwrite(out.data(), 1, out.size(), stdout);
        std::fwrite(errs.data(), 1, errs.size(), stderr);
      }
      std::fflush(stdout);
      std::string outcome = ex.str("outcome", "exit");
      if (outcome == "hold") {
        if (!quiet)
          std::fprintf(
              stderr, "kite run: job held: %s (HoldReasonCode %lld, HoldReasonSubCode %lld)\n",
              ex.str("HoldReason").c_str(), static_cast<long long>(ex.num("HoldReasonCode")),
              static_cast<long long>(ex.num("HoldReasonSubCode")));
        return 1;
      }
      if (outcome != "exit") {
        if (!quiet)
          std::fprintf(stderr, "kite run: job %s\n",
                       outcome == "evict" ? "evicted" : outcome.c_str());
        return 1;
      }
      if (ex.flag("ExitBySignal")) return 128 + static_cast<int>(ex.num("ExitSignal"));
      return static_cast<int>(ex.num("ExitCode"));
    }
  }
}

}  // namespace kite::cli
