// Action names and the ISO 8601 parser for SIMULATION_START.
#include "policy/startd/engine.h"
#include "policy/startd/text_util.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>

namespace kite::startd {

namespace {

const char* const kActionNames[] = {
#define X(n, s) s,
    KITE_STARTD_ACTIONS(X)
#undef X
};

}  // namespace

const char* action_name(ActionKind k) {
  return kActionNames[static_cast<int>(k)];
}

bool action_parse(const std::string& name, ActionKind* out) {
  for (size_t i = 0; i < sizeof kActionNames / sizeof *kActionNames; ++i) {
    if (strcasecmp(kActionNames[i], name.c_str()) == 0) {
      *out = static_cast<ActionKind>(i);
      return true;
    }
  }
  return false;
}

bool iso8601_parse(const std::string& text, int64_t* out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
  std::string t = trim(text);
  int n = std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &s, &used);
  int64_t offset = 0;
  if (n == 6) {
    // Zone: Z, +HH:MM, -HH:MM (or nothing: UTC).
    std::string z = t.substr(static_cast<size_t>(used));
    if (!z.empty() && z[0] == '.') {  // fractional seconds are ignored
      size_t k = 1;
      while (k < z.size() && z[k] >= '0' && z[k] <= '9') ++k;
      z = z.substr(k);
    }
    if (z == "Z" || z.empty()) {
      offset = 0;
    } else if ((z[0] == '+' || z[0] == '-') && z.size() == 6 && z[3] == ':') {
      int zh = std::atoi(z.substr(1, 2).c_str()), zm = std::atoi(z.substr(4, 2).c_str());
      if (zh > 23 || zm > 59) return false;
      offset = (zh * 3600 + zm * 60) * (z[0] == '-' ? -1 : 1);
    } else {
      return false;
    }
  } else if (n == 3) {
    int consumed = 0;
    if (std::sscanf(t.c_str(), "%*d-%*d-%*d%n", &consumed) != 0 ||
        consumed != static_cast<int>(t.size()))
      return false;
  } else {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
      s > 60)
    return false;
  // Days from civil (proleptic Gregorian), UTC.
  int yy = y - (mo <= 2);
  int era = (yy >= 0 ? yy : yy - 399) / 400;
  int yoe = yy - era * 400;
  int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
  *out = days * 86400 + h * 3600 + mi * 60 + s - offset;
  return true;
}

// ---------------------------------------------------------------------------------------------

}  // namespace kite::startd
