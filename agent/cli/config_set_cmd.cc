// `kite config-val -set "NAME = value" | -unset NAME | -rset "NAME = value" | -runset NAME` on
// nodes of the pool through the central manager: HTCondor's persistent and runtime
// configuration, applied on each node by a reconfig (the node checks ENABLE_PERSISTENT_CONFIG /
// ENABLE_RUNTIME_CONFIG and SETTABLE_ATTRS_<LEVEL>).
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/cli/commands.h"
#include "agent/cli/node_cmd.h"

namespace kite::cli {
namespace {

constexpr const char* kUsage =
    "usage: kite config-val [-pool HOST[:PORT]] {-name NODE|-constraint EXPR}... [-startd]\n"
    "                       {-set \"NAME = value\" | -unset NAME | -rset \"NAME = value\" |\n"
    "                        -runset NAME}\n";

struct SetFlag {
  const char* flag;
  const char* type;
};
constexpr SetFlag kFlags[] = {{"-set", "config-set"},
                              {"-unset", "config-unset"},
                              {"-rset", "config-rset"},
                              {"-runset", "config-runset"}};

}  // namespace

bool config_set_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const SetFlag& f : kFlags)
      if (std::strcmp(argv[i], f.flag) == 0) return true;
  return false;
}

int config_set_main(int argc, char** argv) {
  RemoteTarget t;
  core::Json req;
  for (int i = 1; i < argc; ++i) {
    std::string err;
    if (remote_option(argc, argv, &i, &t, &err)) {
      if (err.empty()) continue;
      std::fprintf(stderr, "kite config-val: %s\n%s", err.c_str(), kUsage);
      return 2;
    }
    const char* a = argv[i];
    if (std::strcmp(a, "-c") == 0 && i + 1 < argc) {
      t.config_path = argv[++i];
      continue;
    }
    if (std::strcmp(a, "-startd") == 0) continue;  // the agent is the node's only daemon
    const SetFlag* flag = nullptr;
    for (const SetFlag& f : kFlags)
      if (std::strcmp(a, f.flag) == 0) flag = &f;
    if (!flag || i + 1 >= argc || req) {
      std::fprintf(stderr, "kite config-val: %s '%s'\n%s",
                   req && flag ? "only one change at a time:" : "unexpected argument", a, kUsage);
      return 2;
    }
    req = core::Json::message(flag->type);
    bool unset = std::strstr(flag->type, "unset") != nullptr;
    req.set(unset ? "name" : "assignment", argv[++i]);
  }
  return run_node_command(
      "config-val", std::move(t), req, [](const NodeAnswer& a, const core::Json& r) {
        bool unset = r.has("name");
        std::printf("Successfully %s configuration \"%s\" on startd %s <%s>.\n",
                    unset ? "unset" : "set", (unset ? r.str("name") : r.str("assignment")).c_str(),
                    a.node.c_str(), a.address.c_str());
      });
}

}  // namespace kite::cli
