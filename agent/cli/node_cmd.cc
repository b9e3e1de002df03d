// The CLI side of remote node commands (see node_cmd.h).
#include "agent/cli/node_cmd.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "agent/cli/cm_client.h"
#include "agent/startd/agent_config.h"
#include "policy/config/typed.h"

namespace kite::cli {
namespace {

// The first COLLECTOR_HOST of the configuration, for commands given without -pool.
bool configured_pool(const std::string& config_path, std::string* pool, std::string* err) {
  config::Config cfg("TOOL");
  config::Status st = agent::config_load_default(config_path.c_str(), &cfg);
  if (st.ok) st = cfg.finish();
  if (!st.ok) {
    *err = "configuration error: " + st.message;
    return false;
  }
  std::string hosts;
  cfg.get("COLLECTOR_HOST", &hosts);
  std::vector<std::string> list = config::split_list(hosts);
  if (list.empty()) {
    *err = "no central manager: give -pool HOST[:PORT] or set COLLECTOR_HOST";
    return false;
  }
  *pool = list.front();
  return true;
}

}  // namespace

bool remote_option(int argc, char** argv, int* i, RemoteTarget* t, std::string* err) {
  const char* a = argv[*i];
  std::string* dst = nullptr;
  if (std::strcmp(a, "-pool") == 0) {
    dst = &t->pool;
  } else if (std::strcmp(a, "-constraint") == 0) {
    dst = &t->constraint;
  } else if (std::strcmp(a, "-name") != 0) {
    return false;
  }
  if (*i + 1 >= argc) {
    *err = std::string(a) + " needs a value";
    return true;
  }
  ++*i;
  if (dst) {
    *dst = argv[*i];
  } else {
    t->names.push_back(argv[*i]);
  }
  return true;
}

int run_node_command(const char* cmd, RemoteTarget t, const core::Json& request,
                     NodeOkPrinter ok_line) {
  std::string err;
  if (t.names.empty() && t.constraint.empty()) {
    std::fprintf(stderr, "kite %s: name a node (-name NODE) or give -constraint EXPR\n", cmd);
    return 1;
  }
  if (t.pool.empty() && !configured_pool(t.config_path, &t.pool, &err)) {
    std::fprintf(stderr, "kite %s: %s\n", cmd, err.c_str());
    return 1;
  }
  core::Json msg = core::Json::message("node-command");
  cJSON* names = cJSON_CreateArray();
  for (const std::string& n : t.names) cJSON_AddItemToArray(names, cJSON_CreateString(n.c_str()));
  msg.set_json("names", core::Json(names));
  if (!t.constraint.empty()) msg.set("constraint", t.constraint);
  msg.set_json("request", core::Json(cJSON_Duplicate(request.get(), 1)));
  std::vector<NodeAnswer> answers;
  bool sent = cm_request(
      t.pool, "command", msg,
      [&answers](core::Json& r, bool* done) {
        if (r.type() == "node-done") {
          *done = true;
          return true;
        }
        if (r.type() != "node-reply") return false;
        answers.push_back({r.str("node"), r.str("address"), r.flag("ok"), r.str("message")});
        return true;
      },
      &err);
  if (!sent) {
    std::fprintf(stderr, "kite %s: %s\n", cmd, err.c_str());
    return 1;
  }
  if (answers.empty()) {
    std::fprintf(stderr, "kite %s: no machine matches the constraint %s\n", cmd,
                 t.constraint.c_str());
    return 1;
  }
  // Nodes answer in any order; the output does not depend on which was quicker.
  std::stable_sort(answers.begin(), answers.end(),
                   [](const NodeAnswer& x, const NodeAnswer& y) { return x.node < y.node; });
  int rc = 0;
  for (const NodeAnswer& a : answers) {
    if (a.ok) {
      ok_line(a, request);
      continue;
    }
    std::fprintf(stderr, "kite %s: %s: %s\n", cmd, a.node.c_str(), a.message.c_str());
    rc = 1;
  }
  return rc;
}

}  // namespace kite::cli
