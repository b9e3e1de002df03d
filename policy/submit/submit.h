// Public API of the submit description language: a submit file (vanilla universe) turned into
// the job ads condor_submit would write. Pure: no I/O but reading the submit file, its
// includes, `queue ... from FILE`, and checking that the executable and initialdir exist (a
// `queue ... from COMMAND |` runs through the runner the caller gives).
// HTCONDOR: condor_submit (25.x); rules observed in ../shared/conformance/submit/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/config/config.h"

namespace kite::submit {

using Status = config::Status;

/// What the submit needs to know about the world around it.
struct Options {
  std::string cwd;                // absolute: the submit directory
  std::string user;               // the submitting user (Owner, AcctGroupUser)
  std::string filesystem_domain;  // FileSystemDomain (configuration)
  std::string version = "$CondorVersion: 25.14.0 Kite $";   // CondorVersion/SubmitVersion
  std::string platform = "$CondorPlatform: X86_64-Kite $";  // CondorPlatform
  int cluster = 1;                                          // $(Cluster) (a dry run uses 1)
  int64_t now = 0;               // QDate, EnteredCurrentStatus (seconds since 1970)
  int64_t max_procs = 10000000;  // more procs than this is an error
  // Runs the command of `queue ... from COMMAND |` and gives its output (the submit language
  // runs no process itself; without a runner such a queue statement is an error).
  config::Config::CommandRunner run_command;
};

/// One attribute of a job ad: the name as written and the value in canonical ClassAd unparse.
struct Attr {
  std::string name;
  std::string value;
};

/// One proc: its id and only the attributes that differ from (or are missing in) the cluster ad.
struct Proc {
  int id = 0;
  std::vector<Attr> own;
};

/// The outcome of a submit: one cluster ad shared by every proc, the procs in order, and the
/// warnings to print ("WARNING: ..." lines).
struct Result {
  std::vector<Attr> cluster;
  std::vector<Proc> procs;
  std::vector<std::string> warnings;

  /// The merged ad of procs[i]: the cluster's attributes (overridden by the proc's), then the
  /// proc's own additions.
  std::vector<Attr> merged(size_t i) const;
};

/// Reads `path` (relative names are relative to opts.cwd) and builds every proc's ad. Errors are
/// the text condor_submit prints after "ERROR: ", naming file and line where there is one.
Status submit_file(const std::string& path, const Options& opts, Result* out);
/// The same for text already read; `name` is the file name used in messages and JobSubmitFile.
Status submit_text(std::string_view text, const std::string& name, const Options& opts,
                   Result* out);

}  // namespace kite::submit
