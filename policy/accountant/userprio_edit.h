// condor_userprio's edit options, pure: parsing "-setfactor user@domain 10" and friends, and
// applying one to the accountant with the message the tool prints. The CM applies them (they
// need ADMINISTRATOR) and saves the accountant before it answers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/accountant/accountant.h"

namespace kite::accountant {

struct UserprioEdit {
  enum class Op {
    kSetPrio,     // -setprio <user> <val>
    kSetFactor,   // -setfactor <user> <val>
    kSetFloor,    // -setfloor / -set-floor <user> <val>
    kSetCeiling,  // -setceiling / -setceil <user> <val>
    kSetAccum,    // -setaccum <user> <val> (weighted hours)
    kSetBegin,    // -setbegin <user> <unix time>
    kSetLast,     // -setlast <user> <unix time>
    kResetUsage,  // -resetusage <user>
    kResetAll,    // -resetall
    kDelete,      // -delete <user>
  };
  Op op = Op::kSetPrio;
  std::string name;
  double value = 0;
};

/// Reads one edit option and its operands from `args` (the command line after the program
/// name). False when `args` holds no edit option; false with *error naming the option when its
/// operands are missing or wrong (not a number, a factor under 1, a priority under 0.5).
bool parse_userprio_edit(const std::vector<std::string>& args, UserprioEdit* out,
                         std::string* error);

/// Applies the edit at `now` and returns what condor_userprio prints, e.g. "The priority
/// factor of bob@node.example.org was set to 10.000000". False with the message when the
/// record it names does not exist (-resetusage, -delete).
bool apply_userprio_edit(Accountant& acc, const UserprioEdit& edit, int64_t now,
                         std::string* message);

}  // namespace kite::accountant
