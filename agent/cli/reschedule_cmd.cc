// `kite reschedule [-pool HOST[:PORT]]`: asks the central manager for a negotiation cycle now,
// as condor_reschedule does (WRITE). Without -pool, COLLECTOR_HOST from the configuration.
#include <cstdio>
#include <cstring>

#include "agent/cli/cm_client.h"
#include "agent/cli/commands.h"

namespace kite::cli {
namespace {

struct Reschedule final : CmConversation {
  void start(net::NetClient* c) override { c->send(core::Json::message("reschedule")); }
  bool on_reply(net::NetClient*, core::Json& msg, bool* done) override {
    *done = msg.type() == "ok";
    return *done;
  }
};

}  // namespace

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
  std::string err;
  if (!cm_address(pool, &pool, &err)) {
    std::fprintf(stderr, "kite reschedule: %s\n", err.c_str());
    return 1;
  }
  pool = pool.substr(0, pool.find_first_of(", "));  // the first central manager
  Reschedule conv;
  if (!talk_to_cm(pool, "the reschedule", &conv, 30000, &err)) {
    std::fprintf(stderr, "kite reschedule: %s\n", err.c_str());
    return 1;
  }
  std::printf("Sent reschedule command to the central manager at %s\n", pool.c_str());
  return 0;
}

}  // namespace kite::cli
