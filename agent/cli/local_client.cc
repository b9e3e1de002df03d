// Locating and talking to the local agent's control socket.
#include "agent/cli/local_client.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "agent/core/sock.h"
#include "agent/startd/agent_config.h"

namespace kite::cli {

bool local_option(int argc, char** argv, int* i, LocalTarget* t, bool* local) {
  const char* a = argv[*i];
  if (std::strcmp(a, "--local") == 0 || std::strcmp(a, "-local") == 0) {
    *local = true;
    return true;
  }
  if ((std::strcmp(a, "--socket") == 0 || std::strcmp(a, "-socket") == 0) && *i + 1 < argc) {
    t->socket = argv[++*i];
    *local = true;
    return true;
  }
  if (std::strcmp(a, "-c") == 0 && *i + 1 < argc) {
    t->config_path = argv[++*i];
    return true;
  }
  return false;
}

int local_connect(const char* cmd, LocalTarget* t) {
  if (t->socket.empty()) {
    config::Config cfg("TOOL");
    config::Status st = agent::config_load_default(t->config_path.c_str(), &cfg);
    if (st.ok) st = cfg.finish();
    if (!st.ok) {
      std::fprintf(stderr, "kite %s: configuration error: %s\n", cmd, st.message.c_str());
      return -1;
    }
    agent::AgentConfig ac;
    std::string err;
    if (!agent::agent_config_read(cfg, true, &ac, &err)) {
      std::fprintf(stderr, "kite %s: configuration error: %s\n", cmd, err.c_str());
      return -1;
    }
    t->socket = ac.socket;
  }
  std::string err;
  int fd = core::unix_connect(t->socket, &err);
  if (fd < 0) {
    std::fprintf(stderr, "kite %s: %s (is the agent running?)\n", cmd, err.c_str());
    return -1;
  }
  return fd;
}

int local_request(const char* cmd, LocalTarget* t, const core::Json& req, core::Json* reply) {
  int fd = local_connect(cmd, t);
  if (fd < 0) return 1;
  std::string err;
  core::FrameReader reader;
  if (!core::send_frame(fd, req, &err) ||
      core::recv_frame(fd, &reader, reply, 30000, &err) != core::FrameReader::Result::kMessage) {
    if (err.empty()) err = "no reply from the agent within 30 s";
    std::fprintf(stderr, "kite %s: %s\n", cmd, err.c_str());
    ::close(fd);
    return 1;
  }
  ::close(fd);
  if (reply->type() == "error") {
    std::fprintf(stderr, "kite %s: %s\n", cmd, reply->str("message").c_str());
    return 1;
  }
  return 0;
}

int needs_local(const char* cmd) {
  std::fprintf(stderr,
               "kite %s: only --local (this node's agent) is available; the central manager "
               "is not part of this build yet\n",
               cmd);
  return 2;
}

}  // namespace kite::cli
