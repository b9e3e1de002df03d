// The pieces condor_q and condor_history print a job with: status letters, dates, run
// times, memory, the command, the old-syntax `-l` form, JSON and -af (autoformat) columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::queue {

// Attribute lookups as HTCondor's LookupInteger/LookupString do them (the value of the
// expression; numbers convert to integers).
bool ad_int(const classad::ClassAd& ad, std::string_view name, int64_t* out);
bool ad_real(const classad::ClassAd& ad, std::string_view name, double* out);
bool ad_string(const classad::ClassAd& ad, std::string_view name, std::string* out);

// A job's full ad: its cluster's ad overlaid by the proc's own attributes.
classad::AdPtr merge(const classad::ClassAd& cluster, const classad::ClassAd& proc);

// `MM/DD HH:MM` in local time (QDate, EnteredCurrentStatus, CompletionDate).
std::string format_date(int64_t t);
// `D+HH:MM:SS`; `[?????]` for a negative count.
std::string format_duration(int64_t secs);
// The two-letter ST column ("R ", "I ", " >", "<q", ...); false without a JobStatus.
bool job_status_text(const classad::ClassAd& ad, std::string* out);
// The letter of a JobStatus value (I R X C H > S), '?' for others.
char job_status_letter(int64_t status);
// condor_q's RUN_TIME: this run's wall time (ServerTime - ShadowBday) while running, the last
// run's (LastRemoteWallClockTime) while idle or held; -1 without ServerTime. False without
// RemoteUserCpu (the column is then blank).
bool job_run_time(const classad::ClassAd& ad, int64_t* secs);
// SIZE in MB: MemoryUsage, else ImageSize / 1024.
bool job_memory_mb(const classad::ClassAd& ad, double* mb);
// CMD: the executable's base name and its arguments, or "(JobDescription)".
bool job_description(const classad::ClassAd& ad, std::string* out);

// `s` padded with blanks to `width` (never cut); left- or right-aligned.
void append_padded(std::string& out, std::string_view s, int width, bool left);

// One ad as `condor_q -l` prints it: `Name = value` lines sorted case-insensitively by name,
// then a blank line. Values in old ClassAd form (reals as 0.0, 43888.0).
void append_long_ad(std::string& out, const classad::ClassAd& ad);
// Ads as `-json` prints them: "[", ads separated by a "," line, "]"; nothing for no ads.
std::string json_ads(const std::vector<const classad::ClassAd*>& ads);
// -jsonl (-long:jsonl): each ad as one line of JSON, with no enclosing array.
std::string json_lines(const std::vector<const classad::ClassAd*>& ads);
// A value as %v shows it: strings bare, other values in old ClassAd form.
std::string value_text(const classad::Value& v, bool quote_strings);

// -af[:opts] attr ...: one line per ad. Options as condor_q/condor_history take them:
// h (headings), l (labels), V (quoted strings), r (unparsed expressions), , (comma after each
// value), t (tab before), n (newline after), g (newline between ads), j (job id first).
struct Autoformat {
  std::string opts;
  std::vector<std::string> exprs;
};
// False with `err` when an expression does not parse.
bool format_autoformat(const Autoformat& af, const std::vector<const classad::ClassAd*>& ads,
                       std::string* out, std::string* err);

}  // namespace kite::queue
