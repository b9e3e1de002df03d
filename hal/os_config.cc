// The OS identity as the configuration macros HTCondor detects at start-up: $(ARCH), $(OPSYS),
// $(OPSYSANDVER), $(UNAME_ARCH), $(UTSNAME_SYSNAME), ...
// HTCONDOR: condor_config.cpp fill_attributes (the values are the machine ad's Arch, OpSys...).
#include <string>

#include "hal/facts.h"
#include "policy/config/config.h"

namespace kite::hal {

void os_info_set_detected(const OsInfo& os, config::Config* cfg) {
  auto set = [cfg](const char* name, const std::string& value) {
    if (!value.empty()) cfg->set_detected(name, value);
  };
  set("ARCH", os.arch);
  set("UNAME_ARCH", os.uname_machine);
  set("OPSYS", os.opsys);
  set("OPSYSLEGACY", os.opsys);
  set("UNAME_OPSYS", os.uname_sysname);
  set("OPSYSANDVER", os.opsys_and_ver);
  set("OPSYSNAME", os.opsys_name);
  set("OPSYSLONGNAME", os.opsys_long_name);
  set("OPSYSSHORTNAME", os.opsys_short_name);
  // Only when known, as HTCondor inserts them only when greater than 0.
  if (os.opsys_ver > 0) set("OPSYSVER", std::to_string(os.opsys_ver));
  if (os.opsys_major_ver > 0) set("OPSYSMAJORVER", std::to_string(os.opsys_major_ver));
  set("UTSNAME_SYSNAME", os.uname_sysname);
  set("UTSNAME_NODENAME", os.uname_nodename);
  set("UTSNAME_RELEASE", os.uname_release);
  set("UTSNAME_VERSION", os.uname_version);
  set("UTSNAME_MACHINE", os.uname_machine);
}

}  // namespace kite::hal
