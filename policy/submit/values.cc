// Value rules of condor_submit: resource units, signal names, concurrency-limit lists and the
// booleans commands accept.
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/internal.h"
#include "policy/submit/job_ad.h"

namespace kite::submit {
namespace {

using config::internal::trim;

const char* const kSignals[] = {
    nullptr,     "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",   "SIGTRAP", "SIGABRT", "SIGBUS",
    "SIGFPE",    "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2",  "SIGPIPE", "SIGALRM", "SIGTERM",
    "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",  "SIGTTIN", "SIGTTOU", "SIGURG",
    "SIGXCPU",   "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",   "SIGPWR",  "SIGSYS"};
constexpr int kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::string apply_units(std::string_view text, double bare, double unit) {
  std::string_view t = trim(text);
  size_t i = 0;
  size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
  }
  if (digits == 0 || digits > 30) return std::string(text);
  std::string number(t.substr(0, i));
  std::string_view suffix = trim(t.substr(i));
  double factor = 0;
  if (suffix.empty()) {
    factor = bare;
  } else {
    char u = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    bool b = suffix.size() == 2 && (suffix[1] == 'b' || suffix[1] == 'B');
    if (suffix.size() > 2 || (suffix.size() == 2 && !b)) return std::string(text);
    if (u == 'B' && suffix.size() == 1) factor = 1;
    if (u == 'K') factor = 1024.0;
    if (u == 'M') factor = 1024.0 * 1024;
    if (u == 'G') factor = 1024.0 * 1024 * 1024;
    if (u == 'T') factor = 1024.0 * 1024 * 1024 * 1024;
    if (factor == 0) return std::string(text);
  }
  long double v = std::strtold(number.c_str(), nullptr) * factor / unit;
  if (!(v < 9.2e18L)) return std::string(text);
  long double r = std::ceil(v - 1e-9L);
  if (r < 0) r = 0;
  return std::to_string(static_cast<long long>(r));
}

std::string signal_name(std::string_view text) {
  std::string_view t = trim(text);
  if (all_digits(t)) {
    int n = t.size() > 3 ? 0 : std::atoi(std::string(t).c_str());
    return n > 0 && n < kSignalCount ? kSignals[n] : "";
  }
  std::string name(t);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name.compare(0, 3, "SIG") != 0) name = "SIG" + name;
  for (int i = 1; i < kSignalCount; ++i) {
    if (name == kSignals[i]) return name;
  }
  return "";
}

std::string normalise_limits(std::string_view text) {
  std::vector<std::string> items;
  std::string cur;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      if (!cur.empty()) items.push_back(std::move(cur));
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(text[i]))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    }
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

bool parse_bool(std::string_view text, bool* out) {
  std::string_view t = trim(text);
  if (strncasecmp(t.data(), "true", t.size()) == 0 && !t.empty() && t.size() <= 4) {
    *out = true;  // "t", "tr", ... "true"
  } else if (strncasecmp(t.data(), "false", t.size()) == 0 && !t.empty() && t.size() <= 5) {
    *out = false;
  } else if (t.size() == 3 && strncasecmp(t.data(), "yes", 3) == 0) {
    *out = true;
  } else if (t.size() == 2 && strncasecmp(t.data(), "no", 2) == 0) {
    *out = false;
  } else {
    std::string s(t);
    char* end = nullptr;
    double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
    if (s.empty() || !end || *end != '\0') return false;
    *out = d != 0;
  }
  return true;
}

bool parse_long(std::string_view text, long long* out) {
  std::string s(trim(text));
  char* end = nullptr;
  long long v = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 10);
  if (!s.empty() && end && *end == '\0') {
    *out = v;
    return true;
  }
  classad::ExprPtr e = classad::parse_expr(s);
  if (!e) return false;
  classad::Value val = classad::evaluate(e.get());
  if (val.is_integer()) {
    *out = val.as_integer();
  } else if (val.is_real() && val.as_real() > -9.2e18 && val.as_real() < 9.2e18) {
    *out = static_cast<long long>(val.as_real());
  } else if (val.is_boolean()) {
    *out = val.as_boolean() ? 1 : 0;
  } else {
    return false;
  }
  return true;
}

}  // namespace kite::submit
