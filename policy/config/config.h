// Public API of Kite's configuration language: HTCondor's config syntax (macros, includes,
// conditionals, `use` templates, SUBSYS. prefixes) loaded from files or strings and queried by
// name. HTCONDOR: admin-manual/introduction-to-configuration (25.x); templates as observed
// in 25.14.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kite::config {

/// Result of an operation that can fail: ok, or a message naming file and line.
struct Status {
  bool ok = true;
  std::string message;

  static Status Ok() { return {}; }
  static Status Error(std::string msg) { return {false, std::move(msg)}; }
};

/// One macro as stored: the name as first written, the raw (unexpanded) value, and where it was
/// set, formatted like condor_config_val -verbose ("/etc/kite/kite.conf, line 3",
/// "<f>, line 1, use POLICY:DESKTOP+13", "<Default>", "<Detected>").
struct Entry {
  std::string name;
  std::string value;
  std::string source;
  bool is_default = false;  // comes from Kite's built-in default table
};

/// The HTCondor version `if version ...` compares against (Kite implements 25.x semantics).
inline constexpr int kCompatVersion[3] = {25, 0, 0};

/// A loaded configuration. Load with load_main()/load_file()/load_string(), then call finish()
/// (load_main does), then query. Lookups honour `<SUBSYSTEM>.NAME` before `NAME`, then Kite's
/// built-in defaults. Names are case-insensitive. Never throws; never aborts on bad input.
class Config {
 public:
  /// `subsystem` is $(SUBSYSTEM) and selects `SUBSYS.NAME` overrides (default STARTD).
  explicit Config(std::string subsystem = "STARTD");

  /// Reads the main file (`must_exist` false: a missing file is fine), then every file of
  /// $(LOCAL_CONFIG_DIR) (default $(CONFIG_ROOT)/config.d) in lexical order, then finish().
  Status load_main(const std::string& path, bool must_exist);
  /// Reads one file (and its includes). A missing file is an error.
  Status load_file(const std::string& path);
  /// Parses `text` as if it were a file called `name` (used in sources and error messages).
  Status load_string(std::string_view text, const std::string& name = "<string>");
  /// Reads the files of a directory in lexical order, skipping LOCAL_CONFIG_DIR_EXCLUDE_REGEXP.
  /// A missing directory is fine.
  Status load_dir(const std::string& dir);
  /// Checks that every macro expands (no reference cycles, no runaway growth).
  Status finish() const;

  /// Runs the command of `include : COMMAND |` (HTCondor splits it into arguments and runs it
  /// without a shell) and collects its standard output; an error for a failure or a non-zero
  /// exit. The configuration language runs no process itself: without a runner such includes
  /// are errors. (The agent's reconfig gives a runner that serves outputs collected on its
  /// loop beforehand.)
  using CommandRunner = std::function<Status(const std::string& command, std::string* output)>;
  void set_command_runner(CommandRunner run) { runner_ = std::move(run); }
  bool has_command_runner() const { return static_cast<bool>(runner_); }
  /// Writes the output of `include command into FILE : ...` to FILE (HTCondor's cache file,
  /// read instead of running the command while it exists). Without a writer nothing is written.
  using CacheWriter = std::function<Status(const std::string& path, const std::string& text)>;
  void set_cache_writer(CacheWriter write) { cache_writer_ = std::move(write); }

  /// Sets a run-time fact (DETECTED_CPUS, FULL_HOSTNAME, ...); reported as <Detected>.
  void set_detected(const std::string& name, const std::string& value);

  /// Raw lookup: `<SUBSYS>.name`, `name`, then defaults. False if not defined anywhere.
  bool lookup(std::string_view name, Entry* out) const;
  /// Expanded value of a macro; false if not defined. Errors (cycles) go to *err if given.
  /// Booleans, integers and reals are read with policy/config/typed.h, never by hand.
  bool get(std::string_view name, std::string* value, Status* err = nullptr) const;
  /// Expands $(...) references in arbitrary text.
  Status expand(std::string_view text, std::string* out) const;

  /// Per-slot lookup the startd uses: SLOT<slot>_NAME, then SLOT_TYPE_<type>_NAME (type > 0),
  /// then NAME. Returns the raw entry found (its name says which one matched).
  bool lookup_slot(std::string_view name, int slot, int slot_type, Entry* out) const;
  /// `_VANILLA` variant: when `vanilla`, NAME_VANILLA wins over NAME (each via lookup_slot).
  bool lookup_vanilla(std::string_view name, bool vanilla, int slot, int slot_type,
                      Entry* out) const;

  /// Every defined name (set in files, detected, or built-in default), sorted case-insensitively.
  std::vector<Entry> entries() const;
  /// Files read, in order (for condor_config_val's "Contributing configuration file(s)").
  const std::vector<std::string>& files() const { return files_; }
  /// `warning :` lines met while loading, formatted "<file>, line N: message".
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::string& subsystem() const { return subsystem_; }

  // Internal: used by the loader (config.cc).
  struct Loader;

 private:
  friend struct Loader;
  std::string subsystem_;
  std::map<std::string, Entry> table_;  // key: upper-cased name
  std::vector<std::string> files_;
  std::vector<std::string> warnings_;
  CommandRunner runner_ = nullptr;
  CacheWriter cache_writer_ = nullptr;
};

}  // namespace kite::config
