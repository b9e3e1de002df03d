// `kite rm`, `kite hold`, `kite release`, `kite prio`, `kite vacate-job`: condor_rm and friends
// against the central manager's queue, with their arguments (cluster, cluster.proc, owner,
// -constraint, -all) and their messages.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/cm_client.h"
#include "agent/cli/commands.h"

namespace kite::cli {
namespace {

struct Tool {
  const char* name;    // the command
  const char* action;  // the frame's action
  const char* done;    // "marked for removal", "held", ...
  const char* verb;    // "remove", "hold", ... (for "Couldn't find/<verb>")
};

const Tool kTools[] = {
    {"rm", "rm", "marked for removal", "remove"},   {"hold", "hold", "held", "hold"},
    {"release", "release", "released", "release"},  {"vacate-job", "vacate", "vacated", "vacate"},
    {"prio", "prio", "", "change the priority of"},
};

struct Target {
  std::string kind;  // id owner constraint all
  std::string value;
};

struct Outcome {
  int64_t matched = 0, acted = 0, denied = 0;
};

struct Actions final : CmConversation {
  const Tool* tool = nullptr;
  const std::vector<Target>* targets = nullptr;
  std::string reason;
  int64_t prio = 0;
  bool relative = false;
  std::vector<Outcome> outcomes;

  void start(net::NetClient* c) override {
    for (const Target& t : *targets) {
      core::Json f = core::Json::message("job_action");
      f.set("action", tool->action);
      core::Json target = core::Json::object();
      if (t.kind == "all") {
        target.set_bool("all", true);
      } else {
        target.set(t.kind.c_str(), t.value);
      }
      f.set_json("target", std::move(target));
      if (!reason.empty()) f.set("reason", reason);
      f.set("prio", prio);
      f.set_bool("relative", relative);
      c->send(f);
    }
  }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    if (msg.type() != "job_action_done") return false;
    outcomes.push_back({msg.num("matched"), msg.num("acted"), msg.num("denied")});
    *done = outcomes.size() == targets->size();
    return true;
  }
};

int usage(const Tool& t) {
  std::fprintf(stderr,
               "usage: kite %s [-pool HOST[:PORT]]%s%s (CLUSTER | CLUSTER.PROC | OWNER | "
               "-constraint EXPR | -all)...\n",
               t.name, std::strcmp(t.name, "hold") == 0 ? " [-reason TEXT]" : "",
               std::strcmp(t.name, "prio") == 0 ? " (-p N | +N | -N)" : "");
  return 2;
}

// What condor_rm & co print for one target.
bool report(const Tool& t, const Target& target, const Outcome& o) {
  if (o.acted > 0) {
    if (!*t.done) return true;  // condor_prio prints nothing
    if (target.kind == "all") {
      std::printf("All jobs have been %s\n", t.done);
    } else if (target.kind == "owner") {
      std::printf("All jobs of user \"%s\" have been %s\n", target.value.c_str(), t.done);
    } else if (target.kind == "constraint") {
      std::printf("Jobs matching constraint (%s) have been %s\n", target.value.c_str(), t.done);
    } else if (target.value.find('.') != std::string::npos) {
      std::printf("Job %s %s\n", target.value.c_str(), t.done);
    } else {
      std::printf("All jobs in cluster %s have been %s\n", target.value.c_str(), t.done);
    }
    return o.denied == 0;
  }
  std::string what = target.kind == "all"     ? "all jobs"
                     : target.kind == "owner" ? "all jobs of user " + target.value
                     : target.kind == "constraint"
                         ? "all jobs matching constraint (" + target.value + ")"
                         : "";
  if (o.denied > 0) {
    std::fprintf(stderr, "\nPermission denied: you may not %s %s (not your job%s)\n", t.verb,
                 what.empty() ? ("job(s) " + target.value).c_str() : what.c_str(),
                 o.denied > 1 ? "s" : "");
  } else if (o.matched > 0) {
    std::fprintf(stderr, "\nNo job to %s in %s\n", t.verb,
                 what.empty() ? target.value.c_str() : what.c_str());
  } else if (target.kind == "id" && target.value.find('.') != std::string::npos) {
    std::fprintf(stderr, "\nJob %s not found\n", target.value.c_str());
  } else {
    std::fprintf(stderr, "\nCouldn't find/%s %s\n", t.verb,
                 what.empty() ? ("all jobs in cluster " + target.value).c_str() : what.c_str());
  }
  return false;
}

int job_tool_main(const Tool& t, int argc, char** argv) {
  std::string pool, cm, err;
  Actions a;
  a.tool = &t;
  std::vector<Target> targets;
  bool have_prio = std::strcmp(t.name, "prio") != 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if ((arg == "-pool" || arg == "-name") && has_value) {
      pool = argv[++i];
    } else if ((arg == "-constraint" || arg == "-const") && has_value) {
      targets.push_back({"constraint", argv[++i]});
    } else if (arg == "-all" || arg == "-a") {
      targets.push_back({"all", ""});
    } else if (arg == "-reason" && has_value && std::strcmp(t.name, "hold") == 0) {
      a.reason = argv[++i];
    } else if (arg == "-p" && has_value && !have_prio) {
      a.prio = std::strtoll(argv[++i], nullptr, 10);
      have_prio = true;
    } else if (!have_prio && (arg[0] == '+' || arg[0] == '-') && arg.size() > 1 &&
               std::strspn(arg.c_str() + 1, "0123456789") == arg.size() - 1) {
      a.prio = std::strtoll(arg.c_str(), nullptr, 10);
      a.relative = true;
      have_prio = true;
    } else if (arg == "-h" || arg == "-help" || arg == "--help") {
      usage(t);
      return 0;
    } else if (arg[0] == '-') {
      std::fprintf(stderr, "kite %s: unknown option '%s'\n", t.name, arg.c_str());
      return usage(t);
    } else if (arg.find_first_not_of("0123456789.") == std::string::npos) {
      targets.push_back({"id", arg});
    } else {
      targets.push_back({"owner", arg});
    }
  }
  if (targets.empty() || !have_prio) return usage(t);
  if (!cm_address(pool, &cm, &err)) {
    std::fprintf(stderr, "ERROR: %s\n", err.c_str());
    return 1;
  }
  a.targets = &targets;
  if (!talk_to_cm(cm, std::string("the ") + t.name, &a, 120000, &err)) {
    std::fprintf(stderr, "ERROR: %s\n", err.c_str());
    return 1;
  }
  bool ok = true;
  for (size_t i = 0; i < targets.size(); ++i) ok = report(t, targets[i], a.outcomes[i]) && ok;
  return ok ? 0 : 1;
}

}  // namespace

int rm_main(int argc, char** argv) {
  return job_tool_main(kTools[0], argc, argv);
}
int hold_main(int argc, char** argv) {
  return job_tool_main(kTools[1], argc, argv);
}
int release_main(int argc, char** argv) {
  return job_tool_main(kTools[2], argc, argv);
}
int vacate_job_main(int argc, char** argv) {
  return job_tool_main(kTools[3], argc, argv);
}
int prio_main(int argc, char** argv) {
  return job_tool_main(kTools[4], argc, argv);
}

}  // namespace kite::cli
