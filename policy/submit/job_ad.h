// Internal to policy/submit: the pieces that turn a proc's macro table into its job ad
// (job_ad.cc), the default Requirements (requirements.cc) and the value rules (values.cc).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/submit/macros.h"
#include "policy/submit/submit.h"
#include "policy/submit/transfer.h"

namespace kite::submit {

/// `text` with resource units applied: a number with an optional K/KB, M/MB, G/GB, T/TB (or B)
/// suffix becomes a whole count of `unit` bytes, rounded up; a bare number is `bare` bytes.
/// Anything else is returned unchanged (kept as an expression).
std::string apply_units(std::string_view text, double bare, double unit);
/// A signal number or name as its canonical name ("15", "term", "SIGTERM" -> "SIGTERM");
/// empty when unknown.
std::string signal_name(std::string_view text);
/// concurrency_limits normalised: lower case, blanks removed, sorted, joined by ','.
std::string normalise_limits(std::string_view text);
/// The boolean a submit command means (true/false/yes/no/t/f/numbers); false with no result
/// when `text` is not one.
bool parse_bool(std::string_view text, bool* out);
/// An integer as condor_submit reads one (string_is_long_param): a decimal literal, or an
/// expression that evaluates to a number (truncated) or a boolean. False when it is neither.
bool parse_long(std::string_view text, long long* out);

/// The other name condor_submit accepts for a command: the job attribute it sets
/// ("request_cpus" <-> "RequestCpus"); null when there is none.
const char* command_alias(std::string_view command);
/// True when `name` is a job attribute name that stands for a command.
bool is_attribute_alias(std::string_view name);

/// What the default Requirements depends on.
struct RequirementsInput {
  std::string user;                                     // canonical user expression or empty
  std::vector<std::string> refs;                        // machine attributes it names (lower)
  bool memory_clause = true;                            // RequestMemory not a literal <= 1
  bool cpus_clause = false;                             // RequestCpus not a literal <= 1
  std::vector<std::string> custom;                      // custom tags needing a clause, sorted
  bool deferral = false;                                // deferral_time or cron_*
  ShouldTransfer transfer = ShouldTransfer::kIfNeeded;  // should_transfer_files
  std::vector<std::string> string_tags;                 // custom tags whose request is a string
  bool require_gpus = false;  // RequireGPUs written: the GPU clause uses countMatches
};
/// Attribute names an expression refers to (unqualified or TARGET.), lower-cased.
void machine_refs(std::string_view expr_text, std::vector<std::string>* out);
/// The Requirements expression text condor_submit writes.
std::string build_requirements(const RequirementsInput& in);

/// Builds proc ads; keeps a cache of canonical expressions so procs that share a value parse it
/// once.
class JobBuilder {
 public:
  JobBuilder(const Options& opts, std::string submit_file)
      : opts_(opts), submit_file_(std::move(submit_file)) {}

  /// The ad of the current proc (m's built-ins say which) from the macro table.
  Status build(Macros& m, std::vector<Attr>* ad);

 private:
  struct Draft;  // one proc's ad while it is written (job_ad.cc)

  struct Cached {
    std::string source;
    std::string canonical;
  };
  /// The canonical unparse of expression `text` for attribute `name`; a parse error names
  /// the command that set it.
  Status canonical(std::string_view name, std::string_view text, std::string* out);
  struct FileFacts {
    bool exists = false;
    bool dir = false;
    long long size = 0;
  };
  /// stat() of a path, once per path and submit.
  const FileFacts& facts(const std::string& path);
  bool file_exists(const std::string& path, bool dir);
  long long size_of(const std::string& path);

  const Options& opts_;
  std::string submit_file_;
  std::map<std::string, Cached, std::less<>> cache_;
  std::map<std::string, FileFacts> files_;
};

}  // namespace kite::submit
