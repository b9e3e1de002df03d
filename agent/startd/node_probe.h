// What the HAL says about this node, turned into the startd core's MachineFacts: the probe at
// start (resources, identity, GPUs) and the samples at each poll (load, keyboard/console idle).
#pragma once

#include <string>

#include "hal/machine_ad.h"
#include "policy/config/config.h"
#include "policy/startd/machine.h"

namespace kite::agent {

/// Probes the node (sets DETECTED_* in `cfg`) and fills `facts`. False with a message when
/// the HAL cannot tell what the node has.
bool node_probe(const hal::Root& root, config::Config* cfg, const std::string& execute_dir,
                hal::HalReport* report, startd::MachineFacts* facts, std::string* err);

/// Refreshes the sampled inputs (load average, keyboard and console idle) in `facts`.
void node_sample(const hal::Root& root, const config::Config& cfg, startd::MachineFacts* facts);

}  // namespace kite::agent
