// Runs a reconfig's configuration commands on the agent's loop (see config_commands.h).
#include "agent/startd/config_commands.h"

#include <algorithm>
#include <memory>

namespace kite::agent {

void run_config_commands(HookRunner* hooks, const std::vector<std::string>& commands,
                         uint64_t timeout_ms, std::function<void(ConfigCommandOutputs)> done) {
  struct Batch {
    ConfigCommandOutputs outputs;
    size_t left = 0;
    std::function<void(ConfigCommandOutputs)> done;
  };
  auto batch = std::make_shared<Batch>();
  batch->done = std::move(done);
  std::vector<std::string> unique = commands;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  batch->left = unique.size();
  if (unique.empty()) {
    batch->done(std::move(batch->outputs));
    return;
  }
  for (const std::string& command : unique) {
    HookOptions opts;
    opts.name = "configuration command " + command;
    config::Status st = config_command_argv(command, &opts.argv);
    if (!st.ok) opts.argv.clear();
    opts.max_output = kConfigCommandMaxOutput;
    opts.timeout_ms = timeout_ms;
    hooks->start(std::move(opts), [batch, command, st, timeout_ms](const HookResult& r) {
      ConfigCommandOutput& out = batch->outputs[command];
      if (!st.ok) {
        out.status = st;
      } else {
        ConfigCommandEnd end;
        end.started = r.spawned;
        end.timed_out = r.timed_out;
        end.too_big = r.overflow;
        end.code = r.term_signal ? 128 + r.term_signal : static_cast<int>(r.status);
        end.wrote_nothing = r.output.empty();
        end.timeout_ms = timeout_ms;
        out.status = config_command_status(end);
        if (out.status.ok) out.output = r.output;
      }
      if (--batch->left == 0) batch->done(std::move(batch->outputs));
    });
  }
}

config::Config::CommandRunner config_command_server(const ConfigCommandOutputs* outputs,
                                                    std::vector<std::string>* used,
                                                    std::vector<std::string>* missing) {
  return [outputs, used, missing](const std::string& command, std::string* text) {
    used->push_back(command);
    auto it = outputs->find(command);
    if (it == outputs->end()) {
      missing->push_back(command);
      text->clear();
      return config::Status::Error("its output is not in yet");
    }
    *text = it->second.output;
    return it->second.status;
  };
}

}  // namespace kite::agent
