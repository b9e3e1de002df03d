// The rooster's decisions, pure: which offline machines to wake this cycle (ROOSTER_UNHIBERNATE,
// ROOSTER_UNHIBERNATE_RANK, ROOSTER_MAX_UNHIBERNATE over the collector's offline ads, with the
// idle jobs that match an offline ad standing in for the negotiator's MachineLastMatchTime),
// and the Wake-on-LAN magic packet. HTCONDOR: startd UNHIBERNATE, condor_rooster, condor_power.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/config/config.h"

namespace kite::negotiator {

struct RoosterConfig {
  int64_t interval = 300;        // ROOSTER_INTERVAL, seconds
  classad::ExprPtr unhibernate;  // ROOSTER_UNHIBERNATE: "Offline && Unhibernate"
  classad::ExprPtr rank;         // ROOSTER_UNHIBERNATE_RANK: "Mips * Cpus"
  int64_t max_wake = 0;          // ROOSTER_MAX_UNHIBERNATE, 0: no limit
  std::string wakeup_cmd;        // ROOSTER_WAKEUP_CMD: empty, Kite sends the packet itself
  std::string wol_address = "255.255.255.255";  // ROOSTER_WOL_ADDRESS: where packets go
  int wol_port = 9;                             // ROOSTER_WOL_PORT
};
/// Reads the ROOSTER_* settings with their defaults; false with a message naming the setting.
bool rooster_config(const config::Config& cfg, RoosterConfig* out, std::string* err);

/// One machine to wake: its Machine, the MAC of its HardwareAddress, and the offline ad that
/// asked (the one with the best rank), as the wake-up command reads it.
struct WakeTarget {
  std::string machine;
  std::string mac;
  double rank = 0;
  classad::AdPtr ad;
};

/// The machines to wake among `offline` (the collector's offline slot ads), best rank first,
/// at most max_wake. When `idle_jobs` is given, each offline ad one of them matches (both
/// Requirements) gets MachineLastMatchTime = now first, as the negotiator would have set it.
/// A machine wakes when any of its slots' ROOSTER_UNHIBERNATE is true; ads without a
/// HardwareAddress are skipped and named in `skipped`.
std::vector<WakeTarget> rooster_pick(const RoosterConfig& cfg,
                                     const std::vector<classad::AdPtr>& offline,
                                     const std::vector<classad::AdPtr>* idle_jobs, int64_t now,
                                     std::vector<std::string>* skipped);

/// The Wake-on-LAN magic packet for `mac` ("aa:bb:cc:dd:ee:ff" or with '-'): six 0xFF bytes,
/// then the six MAC bytes sixteen times (102 bytes). False with a message for a bad MAC.
bool wol_magic_packet(const std::string& mac, std::vector<uint8_t>* out, std::string* err);

}  // namespace kite::negotiator
