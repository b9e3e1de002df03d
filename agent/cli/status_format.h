// condor_status's output forms for a list of ads, byte for byte: the slot tables (default,
// -claimed, -server, -state, -compact) with their totals, the daemon tables (-schedd, -run,
// -submitters, -negotiator, -collector), -af, -format, -l and -json. Shared by `kite status
// -ads FILE` and `kite status --local`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::cli {

enum class StatusMode {
  kSlots,       // default slot table
  kClaimed,     // -claimed
  kServer,      // -server
  kState,       // -state
  kAvail,       // -avail (the default table restricted to available slots)
  kAbsent,      // -absent
  kOffline,     // -offline
  kSchedd,      // -schedd
  kScheddRun,   // -run
  kSubmitters,  // -submitters
  kNegotiator,  // -negotiator
  kCollector,   // -collector
  kMaster,      // -master
  kAny,         // -any: every ad type
};

// One -format FMT ATTR pair.
struct FormatItem {
  std::string format;
  std::string attr;
};

struct StatusOptions {
  StatusMode mode = StatusMode::kSlots;
  // Which slots the table shows when -server or -state draws it: kAvail for -avail.
  StatusMode select = StatusMode::kSlots;
  bool compact = false;
  bool wide = false;     // -wide: full-width columns, totals keyed to their own width
  int width = 0;         // -wide:N: lines cut to N-1 columns (0: not cut)
  int limit = 0;         // -limit N: at most N ads (0: all)
  bool no_sort = false;  // -sort false|0|no|none: the order the ads came in
  bool natural = true;   // -natural:off compares sort keys as plain strings
  std::vector<std::string> attributes;  // -attributes A,B: what -l / -json print
  bool total_only = false;              // -total
  bool longform = false;                // -l
  bool json = false;                    // -json
  bool new_ads = false;                 // -long:new: longform's ads in new ClassAd syntax
  bool xml = false;                     // -xml
  std::vector<std::string> af;          // -af attributes (expressions)
  std::string af_opts;                  // the letters after -af:
  bool have_af = false;
  std::vector<FormatItem> formats;  // -format
  std::vector<std::string> sort;    // -sort expressions (default Machine, Name)
  std::string constraint;           // -constraint (ANDed with the mode's own)
  std::vector<std::string> names;   // NAME arguments
  bool typed = true;      // show only the mode's ad type (false for -ads FILE, as condor_status)
  bool filtered = false;  // the ads already passed status_mode_constraint (the CM applied it)
};

// The ad type (MyType) a mode shows.
const char* status_mode_ad_type(StatusMode mode);
// The constraint a mode adds (empty: none).
std::string status_mode_constraint(const StatusOptions& o);

// -format FMT EXPR pairs over `ads` in their order, as HTCondor's tools print them (a value the
// conversion cannot take prints nothing). False with `err` for an expression that does not
// parse.
bool format_ads(const std::vector<FormatItem>& formats,
                const std::vector<const classad::ClassAd*>& ads, std::string* out,
                std::string* err);
// True when `o` prints only totals that the ads' order cannot change (integer counts): a
// source may then send each distinct ad once with how many ads it stands for.
bool status_counts_only(const StatusOptions& o);
// The attributes the output of `o` reads, when they are known: those of the totals when
// status_counts_only(o), those of the default slot table; else empty (whole ads are needed).
std::vector<std::string> status_needed_attrs(const StatusOptions& o);

// condor_status's "natural" comparison of sort keys (its -natural, on by default; the rule of
// strverscmp): runs of digits compare as numbers, a run with more leading zeros first.
int natural_compare(const char* a, const char* b);

// Selects, sorts and prints `ads` (all types mixed; the mode picks its own) as condor_status
// does. `err` gets a message (and the result is false) for a bad constraint or sort expression.
bool render_status(const StatusOptions& o, const std::vector<classad::AdPtr>& ads, std::string* out,
                   std::string* err);
// The same with `counts[i]` ads like ads[i] (status_counts_only(o) must hold; empty: one each).
bool render_status(const StatusOptions& o, const std::vector<classad::AdPtr>& ads,
                   const std::vector<uint64_t>& counts, std::string* out, std::string* err);

}  // namespace kite::cli
