// Text forms of absolute and relative times: the printers unparse uses for
// absTime("...") / relTime("...") and the parsers for the same strings.
// HTCONDOR: classad-builtin-functions "absTime", "relTime" (formats as the
// reference library prints and reads them, including its quirks).
#include "policy/classad/time_format.h"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "policy/classad/unparse.h"

namespace kite::classad {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

void skip_space_back(std::string_view s, int& i) {
  while (i >= 0 && is_space(s[i])) --i;
}

// Collects the digits ending at s[i] (moving i left) and returns their value;
// an empty or overflowing run counts as 0, as the reference's reader does.
int digits_back(std::string_view s, int& i) {
  int end = i + 1;
  while (i >= 0 && is_digit(s[i])) --i;
  int value = 0;
  std::from_chars(s.data() + i + 1, s.data() + end, value, 10);
  return value;
}

// atoi() of at most `n` characters starting at s[i].
int atoi_n(const std::string& s, int i, int n) {
  int v = 0;
  for (int k = 0; k < n && i + k < static_cast<int>(s.size()) && is_digit(s[i + k]); ++k) {
    v = v * 10 + (s[i + k] - '0');
  }
  return v;
}

void next_digit(const std::string& s, int& i) {
  while (i < static_cast<int>(s.size()) && !is_digit(s[i])) ++i;
}

// "+hhmm" / "-hhmm" at the end of `s`: removes it and returns the offset.
bool extract_zone(std::string& s, int* tzhr, int* tzmin) {
  size_t at = s.size() - 5;
  const char* z = s.c_str() + at;
  if ((z[0] != '+' && z[0] != '-') || !is_digit(z[1]) || !is_digit(z[2]) || !is_digit(z[3]) ||
      !is_digit(z[4])) {
    return false;
  }
  int hr = (z[1] - '0') * 10 + (z[2] - '0');
  int mn = (z[3] - '0') * 10 + (z[4] - '0');
  bool neg = z[0] == '-';
  *tzhr = neg ? -hr : hr;
  *tzmin = neg ? -mn : mn;
  s.erase(at, 5);
  return true;
}

// Offset without daylight saving, as the reference uses to undo mktime().
int64_t standard_zone_offset(int64_t secs) {
  time_t t = static_cast<time_t>(secs);
  struct tm tms;
  if (!localtime_r(&t, &tms)) return 0;
  int64_t off = tms.tm_gmtoff;
  if (tms.tm_isdst > 0) off -= 3600;
  return off;
}

}  // namespace

int32_t double_to_int32(double d) {
  if (!(d > -2147483649.0 && d < 2147483648.0)) return INT32_MIN;
  return static_cast<int32_t>(d);
}

int32_t local_zone_offset(int64_t secs) {
  time_t t = static_cast<time_t>(secs);
  struct tm tms;
  if (!localtime_r(&t, &tms)) return 0;
  return static_cast<int32_t>(tms.tm_gmtoff);
}

bool utc_fields(int64_t secs, struct tm* out) {
  time_t t = static_cast<time_t>(secs);
  if (!gmtime_r(&t, out)) {
    std::memset(out, 0, sizeof *out);
    return false;
  }
  return true;
}

void day_numbers(int year, int month, int day, int* weekday, int* yearday) {
  auto leap = [](int y) {
    int m400 = y % 400;
    return y % 4 == 0 && m400 != 100 && m400 != 200 && m400 != 300;
  };
  auto fixed = [&](int y, int m, int d) {
    int adjust = m <= 2 ? 0 : (leap(y) ? -1 : -2);
    return 365 * (y - 1) + (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400 + (367 * m - 362) / 12 +
           adjust + d;
  };
  int f = fixed(year, month, day);
  *weekday = f % 7;
  *yearday = f - fixed(year, 1, 1);
}

// HTCONDOR: classad-builtin-functions "relTime": [-]days+hh:mm:ss.fff with
// leading zero components omitted; fractions print with %g.
void format_rel_time(std::string& out, double rsecs) {
  char buf[128];
  if (rsecs < 0) {
    out += '-';
    rsecs = -rsecs;
  }
  double frac = rsecs - std::floor(rsecs);
  int32_t days = double_to_int32(rsecs);
  int32_t hrs = days % 86400;
  int32_t mins = hrs % 3600;
  double secs = (mins % 60) + frac;
  days /= 86400;
  hrs /= 3600;
  mins /= 60;
  bool whole = frac == 0;
  if (days) {
    if (whole) {
      snprintf(buf, sizeof buf, "%d+%02d:%02d:%02d", days, hrs, mins, static_cast<int>(secs));
    } else {
      snprintf(buf, sizeof buf, "%d+%02d:%02d:%02g", days, hrs, mins, secs);
    }
  } else if (hrs) {
    if (whole) {
      snprintf(buf, sizeof buf, "%02d:%02d:%02d", hrs, mins, static_cast<int>(secs));
    } else {
      snprintf(buf, sizeof buf, "%02d:%02d:%02g", hrs, mins, secs);
    }
  } else if (mins) {
    if (whole) {
      snprintf(buf, sizeof buf, "%02d:%02d", mins, static_cast<int>(secs));
    } else {
      snprintf(buf, sizeof buf, "%02d:%02g", mins, secs);
    }
  } else {
    if (whole) {
      snprintf(buf, sizeof buf, "%02d", static_cast<int>(secs));
    } else {
      snprintf(buf, sizeof buf, "%02g", secs);
    }
  }
  out += buf;
}

// HTCONDOR: classad-builtin-functions "absTime": yyyy-mm-ddThh:mm:ss+hh:mm in
// the value's own zone; a zero offset prints as "-00:00".
void format_abs_time(std::string& out, int64_t secs, int32_t offset) {
  struct tm tms;
  utc_fields(secs + offset, &tms);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tms);
  out.append(buf, n);
  int64_t tz = offset;
  char sign = '+';
  if (tz <= 0) {
    sign = '-';
    tz = -tz;
  }
  snprintf(buf, sizeof buf, "%c%02d:%02d", sign, static_cast<int>(tz / 3600),
           static_cast<int>((tz / 60) % 60));
  out += buf;
}

bool parse_rel_time(std::string_view s, double* out) {
  double secs = 0;
  int mins = 0, hrs = 0, days = 0;
  bool negative = false;
  int i = static_cast<int>(s.size()) - 1;

  skip_space_back(s, i);
  if (i >= 0 && (s[i] == 's' || s[i] == 'S' || is_digit(s[i]))) {
    if (s[i] == 's' || s[i] == 'S') --i;
    skip_space_back(s, i);
    int end = i + 1;
    while (i >= 0 && is_digit(s[i])) --i;
    if (i >= 0 && s[i] == '.') {
      --i;
      while (i >= 0 && is_digit(s[i])) --i;
    }
    std::string num(s.substr(i + 1, end - (i + 1)));
    secs = std::strtod(num.c_str(), nullptr);
  }
  skip_space_back(s, i);
  if (i >= 0 && (s[i] == 'm' || s[i] == 'M' || s[i] == ':')) {
    --i;
    skip_space_back(s, i);
    mins = digits_back(s, i);
  }
  skip_space_back(s, i);
  if (i >= 0 && (s[i] == 'h' || s[i] == 'H' || s[i] == ':')) {
    --i;
    skip_space_back(s, i);
    hrs = digits_back(s, i);
  }
  skip_space_back(s, i);
  if (i >= 0 && (s[i] == 'd' || s[i] == 'D' || s[i] == '+')) {
    --i;
    skip_space_back(s, i);
    days = digits_back(s, i);
  }
  skip_space_back(s, i);
  if (i >= 0 && s[i] == '-') {
    negative = true;
    --i;
  }
  skip_space_back(s, i);
  if (i >= 0) return false;  // something other than the components is left

  // The reference sums the whole units in (wrapping) int arithmetic.
  uint32_t whole = static_cast<uint32_t>(days) * 86400u + static_cast<uint32_t>(hrs) * 3600u +
                   static_cast<uint32_t>(mins) * 60u;
  double total = static_cast<int32_t>(whole) + secs;
  *out = negative ? -total : total;
  return true;
}

bool parse_abs_time(std::string_view text, int64_t* secs_out, int32_t* offset_out) {
  std::string s(text);
  int len = static_cast<int>(s.size());
  int tzhr = 0, tzmin = 0;
  bool has_zone = false;

  int i = len - 1;
  skip_space_back(s, i);
  if (i > 0 && (s[i] == 'z' || s[i] == 'Z')) {
    has_zone = true;
    s.erase(i, 1);
  } else if (len > 5 && (s[len - 5] == '+' || s[len - 5] == '-')) {
    has_zone = extract_zone(s, &tzhr, &tzmin);
  } else if (len > 6 && (s[len - 6] == '+' || s[len - 6] == '-') && s[len - 3] == ':') {
    s.erase(len - 3, 1);
    has_zone = extract_zone(s, &tzhr, &tzmin);
  }

  len = static_cast<int>(s.size());
  struct tm fields;
  std::memset(&fields, 0, sizeof fields);
  i = 0;
  next_digit(s, i);
  if (i > len - 4) return false;  // needs a 4-digit year
  fields.tm_year = atoi_n(s, i, 4) - 1900;
  i += 4;
  int* rest[] = {&fields.tm_mon, &fields.tm_mday, &fields.tm_hour, &fields.tm_min, &fields.tm_sec};
  for (int k = 0; k < 5; ++k) {
    next_digit(s, i);
    if (i <= len - 2) {
      *rest[k] = atoi_n(s, i, 2) - (k == 0 ? 1 : 0);
      i += 2;
    }
  }
  next_digit(s, i);
  if (i <= len - 1 && is_digit(s[i])) return false;  // digits left over

  // The reference reads the fields as local time with mktime() and then
  // shifts the result; doing the same keeps its answers (and its -1 hole).
  time_t t = mktime(&fields);
  if (t == static_cast<time_t>(-1)) return false;
  int64_t secs = t;
  int64_t offset = has_zone ? tzhr * 3600 + tzmin * 60 : local_zone_offset(secs);
  secs += standard_zone_offset(secs);
  secs -= offset;
  if (offset == -1) return false;
  *secs_out = secs;
  *offset_out = static_cast<int32_t>(offset);
  return true;
}

}  // namespace kite::classad
