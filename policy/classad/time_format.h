// Text forms of the ClassAd time types: the parsers for the strings inside
// absTime("...") / relTime("...") literals and the calendar helpers the time
// built-ins share. The printers (format_rel_time, format_abs_time) are
// declared in unparse.h and defined in time_format.cc.
// HTCONDOR: classad-builtin-functions "absTime", "relTime".
#pragma once

#include <cstdint>
#include <ctime>
#include <string_view>

namespace kite::classad {

// Parses a relative time spec, `[-][days(+|d)][hh(:|h)][mm(:|m)]ss[.fff][s]`
// read right to left the way HTCondor does ("03:04", "1d", "-01",
// "11+13:46:40", "1h 30m"). False if anything else is left over.
bool parse_rel_time(std::string_view text, double* secs);

// Parses an absolute time spec: a 4-digit year then up to five 2-digit
// fields (month, day, hour, minute, second) separated by any non-digits,
// with an optional zone `Z`, `+hh:mm`, `-hh:mm`, `+hhmm` or `-hhmm`; with no
// zone the local zone applies. False when the text has no year, has extra
// digits, or names a time the platform cannot represent.
bool parse_abs_time(std::string_view text, int64_t* secs, int32_t* offset);

// Seconds east of UTC of the local zone at `secs` (tm_gmtoff).
int32_t local_zone_offset(int64_t secs);

// Broken-down UTC calendar fields of `secs` (already shifted by any zone
// offset the caller wants to show). False if out of the platform's range.
bool utc_fields(int64_t secs, struct tm* out);

// Day of week (0 = Sunday) and day of year (0-based) of a Gregorian date,
// computed from the date itself rather than from any time zone.
void day_numbers(int year, int month, int day, int* weekday, int* yearday);

// `(int)d` as x86-64 computes it: out-of-range and NaN give INT32_MIN. The
// reference converts several doubles this way and its results show it.
int32_t double_to_int32(double d);

}  // namespace kite::classad
