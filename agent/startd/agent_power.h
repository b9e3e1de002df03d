// The agent's power-management state: the HAL's sleep method and network facts on the power
// root, and the one sleep in flight between the offline ads and the HAL call.
#pragma once

#include <uv.h>

#include <string>

#include "hal/power.h"
#include "hal/root.h"

namespace kite::agent {

struct PowerState {
  hal::Root root;               // KITE_POWER_ROOT: "/" on a node, a fixture tree in tests
  hal::PowerInfo info;          // the method and states LINUX_HIBERNATION_METHOD leads to
  hal::NetInterface main;       // the interface whose MAC the rooster wakes
  bool wakeable = false;        // the main interface wakes on a magic packet
  bool override_wol = false;    // HIBERNATION_OVERRIDE_WOL
  uv_timer_t* timer = nullptr;  // set while a sleep waits for the offline ads to leave
  int level = 0;                // the level of that sleep
};

}  // namespace kite::agent
