// `kite vacate|drain|off|reconfig|set --local`: admin commands for this node's agent, printing
// what HTCondor's condor_vacate/condor_drain/condor_off print (`kite status` is status_cmd.cc).
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "policy/classad/json.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

int simple(const char* cmd, int argc, char** argv, core::Json req, const char* usage_text,
           bool (*option)(const char* arg, core::Json* req)) {
  LocalTarget t;
  bool local = false;
  for (int i = 1; i < argc; ++i) {
    if (local_option(argc, argv, &i, &t, &local)) continue;
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", usage_text);
      return 0;
    }
    if (!option || !option(argv[i], &req)) {
      std::fprintf(stderr, "kite %s: unknown argument '%s'\n%s", cmd, argv[i], usage_text);
      return 2;
    }
  }
  if (!local) return needs_local(cmd);
  core::Json reply;
  int rc = local_request(cmd, &t, req, &reply);
  if (rc == 0 && reply.has("message")) std::printf("%s\n", reply.str("message").c_str());
  return rc;
}

}  // namespace

int vacate_main(int argc, char** argv) {
  core::Json req = core::Json::message("vacate");
  return simple("vacate", argc, argv, std::move(req), "usage: kite vacate --local [-fast] [SLOT]\n",
                [](const char* a, core::Json* r) {
                  if (std::strcmp(a, "-fast") == 0) {
                    r->set_bool("fast", true);
                  } else if (a[0] != '-') {
                    r->set("slot", a);
                  } else {
                    return false;
                  }
                  return true;
                });
}

int drain_main(int argc, char** argv) {
  core::Json req = core::Json::message("drain");
  return simple("drain", argc, argv, std::move(req),
                "usage: kite drain --local [-graceful|-quick|-fast] [-resume-on-completion] | "
                "-cancel\n",
                [](const char* a, core::Json* r) {
                  if (std::strcmp(a, "-graceful") == 0) {
                    r->set("mode", "graceful");
                  } else if (std::strcmp(a, "-quick") == 0) {
                    r->set("mode", "quick");
                  } else if (std::strcmp(a, "-fast") == 0) {
                    r->set("mode", "fast");
                  } else if (std::strcmp(a, "-resume-on-completion") == 0) {
                    r->set_bool("resume", true);
                  } else if (std::strcmp(a, "-cancel") == 0) {
                    r->set("type", "cancel-drain");
                  } else {
                    return false;
                  }
                  return true;
                });
}

int off_main(int argc, char** argv) {
  core::Json req = core::Json::message("off");
  return simple("off", argc, argv, std::move(req),
                "usage: kite off --local [-graceful|-fast|-peaceful]\n",
                [](const char* a, core::Json* r) {
                  for (const char* m : {"graceful", "fast", "peaceful"}) {
                    if (a[0] == '-' && std::strcmp(a + 1, m) == 0) {
                      r->set("mode", m);
                      return true;
                    }
                  }
                  return false;
                });
}

int reconfig_main(int argc, char** argv) {
  return simple("reconfig", argc, argv, core::Json::message("reconfig"),
                "usage: kite reconfig --local\n", nullptr);
}

int set_main(int argc, char** argv) {
  core::Json req = core::Json::message("set");
  req.set_json("attrs", core::Json(cJSON_CreateArray()));
  return simple("set", argc, argv, std::move(req),
                "usage: kite set --local [SLOT] Attr=expression...\n",
                [](const char* a, core::Json* r) {
                  const char* eq = std::strchr(a, '=');
                  if (!eq) {
                    if (a[0] == '-') return false;
                    r->set("slot", a);
                    return true;
                  }
                  cJSON* pair = cJSON_CreateArray();
                  std::string name(a, static_cast<size_t>(eq - a));
                  while (!name.empty() && name.back() == ' ') name.pop_back();
                  cJSON_AddItemToArray(pair, cJSON_CreateString(name.c_str()));
                  cJSON_AddItemToArray(pair, cJSON_CreateString(eq + 1));
                  cJSON_AddItemToArray(const_cast<cJSON*>(r->child("attrs")), pair);
                  return true;
                });
}

}  // namespace kite::cli
