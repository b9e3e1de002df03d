// `kite reschedule [-pool HOST[:PORT]]`: asks the central manager for a negotiation cycle now,
// as condor_reschedule does (WRITE). Without -pool, COLLECTOR_HOST from the configuration.
#include <cstdio>
#include <cstring>

#include "agent/cli/cm_client.h"
#include "agent/cli/commands.h"
#include "agent/startd/agent_config.h"
#include "policy/config/config.h"

namespace kite::cli {

int reschedule_main(int argc, char** argv) {
  std::string pool;
  for (int i = 1; i < argc; ++i) {
    if ((std::strcmp(argv[i], "-pool") == 0 || std::strcmp(argv[i], "--pool") == 0) &&
        i + 1 < argc) {
      pool = argv[++i];
    } else {
      std::fprintf(stderr, "usage: kite reschedule [-pool HOST[:PORT]]\n");
      return 2;
    }
  }
  if (pool.empty()) {
    config::Config cfg("TOOL");
    config::Status st = agent::config_load_default(nullptr, &cfg);
    if (st.ok) st = cfg.finish();
    if (!st.ok || !cfg.get("COLLECTOR_HOST", &pool) || pool.empty()) {
      std::fprintf(stderr, "kite reschedule: give -pool HOST[:PORT] or set COLLECTOR_HOST%s%s\n",
                   st.ok ? "" : ": ", st.ok ? "" : st.message.c_str());
      return 1;
    }
    pool = pool.substr(0, pool.find_first_of(", "));  // the first central manager
  }
  core::Json req = core::Json::message("reschedule");
  std::string err;
  CmReplyFn on_reply = [](core::Json& msg, std::string*) { return msg.type() == "ok"; };
  if (!cm_request(pool, "kite-reschedule", "ask for a reschedule from", req, on_reply, &err)) {
    std::fprintf(stderr, "kite reschedule: %s\n", err.c_str());
    return 1;
  }
  std::printf("Sent reschedule command to the central manager at %s\n", pool.c_str());
  return 0;
}

}  // namespace kite::cli
