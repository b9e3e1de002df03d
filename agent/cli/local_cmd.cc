// `kite vacate|drain|off|reconfig|set`: admin commands for this node's agent (--local, over its
// control socket) or for nodes of the pool through the central manager (-pool, -name NODE or
// NODE, -constraint EXPR), printing what HTCondor's condor_vacate/condor_drain/condor_off print.
// `kite status` is status_cmd.cc.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "agent/cli/node_cmd.h"

namespace kite::cli {
namespace {

// Takes the command's own option at argv[*i] (and its value); false for an unknown one.
using OptionFn = bool (*)(int argc, char** argv, int* i, core::Json* req);

int simple(const char* cmd, int argc, char** argv, core::Json req, const char* usage_text,
           OptionFn option, NodeOkPrinter ok_line) {
  LocalTarget t;
  RemoteTarget remote;
  bool local = false;
  std::vector<const char*> words;  // arguments: slots (--local) or nodes (remote)
  for (int i = 1; i < argc; ++i) {
    std::string err;
    if (local_option(argc, argv, &i, &t, &local)) continue;
    if (remote_option(argc, argv, &i, &remote, &err)) {
      if (!err.empty()) {
        std::fprintf(stderr, "kite %s: %s\n%s", cmd, err.c_str(), usage_text);
        return 2;
      }
      continue;
    }
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", usage_text);
      return 0;
    }
    if (option && option(argc, argv, &i, &req)) continue;
    if (argv[i][0] != '-') {
      words.push_back(argv[i]);
      continue;
    }
    {
      std::fprintf(stderr, "kite %s: unknown argument '%s'\n%s", cmd, argv[i], usage_text);
      return 2;
    }
  }
  if (!local) {
    for (const char* w : words) remote.names.push_back(w);
    remote.config_path = t.config_path;
    return run_node_command(cmd, std::move(remote), req, ok_line);
  }
  if (!words.empty()) {
    // Locally a word names a slot, where the command takes one.
    if (std::strcmp(cmd, "vacate") != 0 && std::strcmp(cmd, "set") != 0) {
      std::fprintf(stderr, "kite %s: unknown argument '%s'\n%s", cmd, words[0], usage_text);
      return 2;
    }
    req.set("slot", words[0]);
  }
  core::Json reply;
  int rc = local_request(cmd, &t, req, &reply);
  if (rc == 0 && reply.has("message")) std::printf("%s\n", reply.str("message").c_str());
  return rc;
}

// What HTCondor's tools print for a node that took the command.
void print_sent(const char* command, const NodeAnswer& a) {
  std::printf("Sent \"%s\" command to startd %s\n", command, a.node.c_str());
}

}  // namespace

int vacate_main(int argc, char** argv) {
  return simple(
      "vacate", argc, argv, core::Json::message("vacate"),
      "usage: kite vacate [-fast] --local [SLOT]\n"
      "       kite vacate [-fast] [-pool HOST[:PORT]] {NODE|-name NODE|-constraint EXPR}...\n",
      [](int, char** argv, int* i, core::Json* r) {
        if (std::strcmp(argv[*i], "-fast") != 0) return false;
        r->set_bool("fast", true);
        return true;
      },
      [](const NodeAnswer& a, const core::Json& r) {
        print_sent(r.flag("fast") ? "Vacate-All-Claims-Fast" : "Vacate-All-Claims", a);
      });
}

int drain_main(int argc, char** argv) {
  return simple(
      "drain", argc, argv, core::Json::message("drain"),
      "usage: kite drain [-graceful|-quick|-fast] [-resume-on-completion] [-reason TEXT]\n"
      "                  [-start EXPR]\n"
      "                  {--local | [-pool HOST[:PORT]] {NODE|-name NODE|-constraint EXPR}...}\n"
      "       kite drain -cancel {--local | [-pool HOST[:PORT]] {NODE|-name NODE|-constraint "
      "EXPR}...}\n",
      [](int argc, char** argv, int* i, core::Json* r) {
        const char* a = argv[*i];
        if (std::strcmp(a, "-graceful") == 0 || std::strcmp(a, "-quick") == 0 ||
            std::strcmp(a, "-fast") == 0) {
          r->set("mode", a + 1);
        } else if (std::strcmp(a, "-resume-on-completion") == 0) {
          r->set_bool("resume", true);
        } else if (std::strcmp(a, "-reason") == 0 && *i + 1 < argc) {
          r->set("reason", argv[++*i]);
        } else if (std::strcmp(a, "-start") == 0 && *i + 1 < argc) {
          r->set("start", argv[++*i]);
        } else if (std::strcmp(a, "-cancel") == 0) {
          r->set("type", "cancel-drain");
        } else {
          return false;
        }
        return true;
      },
      [](const NodeAnswer& a, const core::Json& r) {
        if (r.type() == "cancel-drain") {
          std::printf("Sent request to cancel draining on %s\n", a.node.c_str());
          return;
        }
        std::printf(
            "Sent request to drain the startd <%s?alias=%s> with %s. This only affects the single "
            "startd; any other startds running on the same host will not be drained.\n",
            a.address.c_str(), a.node.c_str(), a.node.c_str());
      });
}

int off_main(int argc, char** argv) {
  return simple(
      "off", argc, argv, core::Json::message("off"),
      "usage: kite off [-graceful|-fast|-peaceful] --local\n"
      "       kite off [-graceful|-fast|-peaceful] [-pool HOST[:PORT]] {NODE|-name NODE|"
      "-constraint EXPR}...\n",
      [](int, char** argv, int* i, core::Json* r) {
        for (const char* m : {"graceful", "fast", "peaceful"}) {
          if (argv[*i][0] == '-' && std::strcmp(argv[*i] + 1, m) == 0) {
            r->set("mode", m);
            return true;
          }
        }
        return false;
      },
      [](const NodeAnswer& a, const core::Json& r) {
        std::string mode = r.str("mode", "graceful");
        print_sent(mode == "fast"       ? "Kill-Daemon-Fast"
                   : mode == "peaceful" ? "Kill-Daemon-Peacefully"
                                        : "Kill-Daemon",
                   a);
      });
}

int reconfig_main(int argc, char** argv) {
  return simple("reconfig", argc, argv, core::Json::message("reconfig"),
                "usage: kite reconfig --local\n"
                "       kite reconfig [-pool HOST[:PORT]] {NODE|-name NODE|-constraint EXPR}...\n",
                nullptr, [](const NodeAnswer& a, const core::Json&) { print_sent("Reconfig", a); });
}

int set_main(int argc, char** argv) {
  core::Json req = core::Json::message("set");
  req.set_json("attrs", core::Json(cJSON_CreateArray()));
  return simple(
      "set", argc, argv, std::move(req), "usage: kite set --local [SLOT] Attr=expression...\n",
      [](int, char** argv, int* i, core::Json* r) {
        const char* a = argv[*i];
        const char* eq = std::strchr(a, '=');
        if (!eq || a[0] == '-') return false;
        cJSON* pair = cJSON_CreateArray();
        std::string name(a, static_cast<size_t>(eq - a));
        while (!name.empty() && name.back() == ' ') name.pop_back();
        cJSON_AddItemToArray(pair, cJSON_CreateString(name.c_str()));
        cJSON_AddItemToArray(pair, cJSON_CreateString(eq + 1));
        cJSON_AddItemToArray(const_cast<cJSON*>(r->child("attrs")), pair);
        return true;
      },
      [](const NodeAnswer& a, const core::Json&) { print_sent("Set", a); });
}

}  // namespace kite::cli
