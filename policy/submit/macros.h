// The submit file's macro table: raw values by case-insensitive name, the per-proc built-ins
// ($(Cluster), $(Process), $(Step), $(ItemIndex), $(Row)), and $(...) expansion with the
// configuration language's function macros ($INT, $REAL, $CHOICE, $F[...], ...).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "policy/submit/submit.h"

namespace kite::submit {

class Macros {
 public:
  struct Macro {
    std::string name;   // as first written
    std::string value;  // raw (unexpanded)
    std::string file;
    int line = 0;
    bool used = false;
    bool item = false;  // a queue variable: never warned about
  };

  /// Sets a macro as a file line does.
  void set(std::string_view name, std::string value, const std::string& file, int line);
  /// Sets a queue variable for the current item.
  void set_item(std::string_view name, std::string_view value);
  /// Forgets a queue variable once its queue statement is done.
  void erase(std::string_view name);

  /// The raw value of a defined macro (marking it used), else null.
  const std::string* raw(std::string_view name);
  /// Expands $(...) references and function macros in `text` into `out` (replacing it).
  Status expand(std::string_view text, std::string* out);
  /// The expanded value of a macro; false when it is not defined (out cleared).
  bool get(std::string_view name, std::string* out, Status* err);

  const std::vector<Macro>& all() const { return macros_; }
  /// The entry of a defined macro (without marking it used), else null.
  const Macro* entry(std::string_view name) { return find(name); }

  /// Some command is set by its job attribute name (RequestCpus = 2): look aliases up.
  bool aliases = false;

  // The per-proc built-ins, and $(SUBMIT_FILE).
  std::string submit_file;
  int cluster = 1;
  int process = 0;
  int step = 0;
  int item_index = 0;

 private:
  friend struct Expansion;
  /// $(Cluster)/$(Process) (and their other names) into `out`; false when `name` is not one.
  bool builtin(std::string_view name, std::string* out) const;
  /// The automatic variables a submit file may redefine: Step, ItemIndex/Row, Node, ARCH,
  /// OPSYS, IsLinux, IsWindows, SUBMIT_FILE, DOLLAR. False when `name` is not one.
  bool automatic(std::string_view name, std::string* out) const;
  /// The defaults condor_submit gives as macro text, expanded when used and unless the
  /// file defines the name: JobId, JobListId, Request_CPUs, Request_Memory, VM_MEMORY,
  /// VM_VCPUS. Null for any other name.
  static const char* default_text(std::string_view name);
  std::string self_substituted(std::string_view name, std::string_view value);
  Macro* find(std::string_view name);

  std::vector<Macro> macros_;
  std::unordered_map<std::string, size_t> index_;  // upper-cased name -> macros_ index
  std::string key_;                                // scratch for upper-casing names
};

/// True for a macro name: letters, digits, '_' and '.', not starting with a digit.
bool valid_macro_name(std::string_view name);

}  // namespace kite::submit
