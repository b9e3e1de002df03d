// condor_userprio's command line, pure: which output or edit the arguments ask for. The CLI
// parses with this, fetches the accountant's state from the CM, and renders with
// userprio_format.h (or sends the edit).
#pragma once

#include <string>
#include <vector>

#include "policy/accountant/userprio_edit.h"
#include "policy/accountant/userprio_format.h"

namespace kite::accountant {

struct UserprioRequest {
  enum class Kind {
    kTable,   // default, -most, -priority, -all, -usage (view.table says which)
    kQuotas,  // -quotas
    kLong,    // -long / -l
    kAf,      // -af / -autoformat
    kEdit,    // one of the edit options (edit)
    kUsage,   // -help, -json (unsupported, as in HTCondor 25) or a bad option: print the usage
  };
  Kind kind = Kind::kTable;
  UserprioView view;  // table, -allusers, -activefrom, the names given (now is the caller's)
  std::vector<std::string> af_attrs;  // -af's attributes
  bool af_header = false;             // -af:h
  UserprioEdit edit;
  std::string error;  // why kUsage, when it is an error ("" for -help)
};

/// Parses the arguments after the program name. `now` and `utc_offset` feed -activefrom
/// (a date at midnight, local time) and the view.
UserprioRequest parse_userprio_args(const std::vector<std::string>& args, int64_t now,
                                    int32_t utc_offset = 0);

}  // namespace kite::accountant
