// The steps of a `kite pool simulate` scenario (the part after `---`), parsed: machine lines
// and the timed `at T` steps, each remembering its line for error messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kite::pool {

enum class StepKind {
  kMachine,     // machine NAMES [partitionable | slots N] [ad]
  kSubmit,      // submit NAME COUNT [runtime S] [ad]
  kUserprio,    // userprio OP NAME [VALUE]
  kExit,        // exit NAME COUNT
  kRemove,      // remove NAME COUNT
  kMachineOff,  // machine-off NAMES
  kMachineOn,   // machine-on NAMES
  kSet,         // set NAMES Attr=expr ...
  kReschedule,  // reschedule
  kExpect,      // expect WHAT ...
};

struct Step {
  StepKind kind = StepKind::kReschedule;
  int line = 0;
  int64_t time = 0;
  std::string what;                // userprio op / expect form
  std::string name;                // submitter, group, slot or limit
  std::vector<std::string> names;  // machines (ranges expanded)
  int64_t count = 0;               // jobs; slots per machine (0 = one static slot)
  bool partitionable = false;
  int64_t runtime = -1;  // seconds after start; -1 = runs until removed
  std::string ad;        // the [...] text, or `set`'s Attr=expr list as an ad
  double value = 0;      // userprio value; expect number (low end of a range)
  double high = 0;       // expect: high end of a range (== value for one number)
  double tolerance = 0;  // expect prio/eup/quota
  std::string who;       // expect on: who runs there ("none")
};

/// Expands `node[1-3,7]` to node1 node2 node3 node7 (no brackets: the name itself). False with
/// *error on a malformed range.
bool expand_names(const std::string& text, std::vector<std::string>* out, std::string* error);

/// Parses one non-blank step line (comments stripped). False with *error (no file or line).
bool parse_step(const std::string& line, Step* out, std::string* error);

}  // namespace kite::pool
