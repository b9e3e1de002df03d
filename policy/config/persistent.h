// HTCondor's remote configuration (`condor_config_val -set/-unset/-rset`): the persistent file
// kept in PERSISTENT_CONFIG_DIR and read after every other configuration file, the runtime
// settings applied after it, and which peer may set which name (SETTABLE_ATTRS_<LEVEL>).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/config/config.h"

namespace kite::config {

/// The persistent file of `cfg` (PERSISTENT_CONFIG_DIR/.config.<subsystem in lower case>, as
/// HTCondor names it) when ENABLE_PERSISTENT_CONFIG is true; "" when it is false. An error
/// when it is enabled and PERSISTENT_CONFIG_DIR is unset.
Status persistent_config_path(const Config& cfg, std::string* path);

/// Reads the persistent file after the rest of the configuration (a missing file is fine).
Status load_persistent(Config* cfg);

/// Applies the runtime settings (`-rset`, kept in the daemon's memory) last.
Status load_runtime(Config* cfg, const std::map<std::string, std::string>& settings);

/// Splits "NAME = value" (the argument of -set and -rset). The name is letters, digits, '_'
/// and '.'; the value one line. False with a message naming what is wrong.
bool parse_assignment(std::string_view text, std::string* name, std::string* value,
                      std::string* err);
/// True when `name` is a configuration name -unset accepts.
bool valid_config_name(std::string_view name);

/// The persistent file's text with `name` set to `value` (null: removed). Other entries keep
/// their order; a name is matched without regard to case.
std::string edit_persistent(std::string_view text, const std::string& name,
                            const std::string* value);

/// May a peer holding `levels` ("READ", "WRITE", "ADMINISTRATOR", "DAEMON") set `name`?
/// A level grants the names its SETTABLE_ATTRS_<LEVEL> list matches (`*` wildcards, no case);
/// ADMINISTRATOR grants every name while SETTABLE_ATTRS_ADMINISTRATOR is unset.
bool settable(const Config& cfg, const std::vector<std::string>& levels, std::string_view name);

}  // namespace kite::config
