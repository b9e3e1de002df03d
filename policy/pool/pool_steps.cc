// Parsing of the scenario's step lines (see pool_steps.h and the README's "Pool dry run" section).
#include "policy/pool/pool_steps.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace kite::pool {
namespace {

bool read_int(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool read_real(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

// A time: seconds, or a number with s, m, h or d.
bool read_time(std::string s, int64_t* out) {
  int64_t unit = 1;
  if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) {
    switch (s.back()) {
      case 's': unit = 1; break;
      case 'm': unit = 60; break;
      case 'h': unit = 3600; break;
      case 'd': unit = 86400; break;
      default: return false;
    }
    s.pop_back();
  }
  double v;
  if (!read_real(s, &v) || v < 0) return false;
  *out = static_cast<int64_t>(v * static_cast<double>(unit) + 0.5);
  return true;
}

// A count or a range "A..B".
bool read_range(const std::string& s, double* lo, double* hi) {
  size_t dots = s.find("..");
  if (dots == std::string::npos) {
    if (!read_real(s, lo)) return false;
    *hi = *lo;
    return true;
  }
  return read_real(s.substr(0, dots), lo) && read_real(s.substr(dots + 2), hi) && *lo <= *hi;
}

// Splits at blanks; a word starting with '[' takes the rest of the line (the ad) as one word.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    if (line[i] == '[') {
      size_t end = line.find_last_not_of(" \t\r");
      out.push_back(line.substr(i, end + 1 - i));
      break;
    }
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool is_ad(const std::string& w) {
  return w.size() >= 2 && w.front() == '[' && w.back() == ']';
}

bool parse_expect(const std::vector<std::string>& w, size_t i, Step* out, std::string* error) {
  out->kind = StepKind::kExpect;
  if (i >= w.size()) {
    *error = "expect: what? (running, idle, quota, prio, eup, on, limit, preemptions)";
    return false;
  }
  out->what = w[i++];
  const std::string& what = out->what;
  auto need = [&](size_t n) {
    if (w.size() - i == n) return true;
    *error = "expect " + what + ": expected " + std::to_string(n) + " argument(s)";
    return false;
  };
  if (what == "running" || what == "idle" || what == "limit") {
    if (!need(2)) return false;
    out->name = w[i];
    if (!read_range(w[i + 1], &out->value, &out->high)) {
      *error = "expect " + what + ": '" + w[i + 1] + "' is not a count or a range A..B";
      return false;
    }
    return true;
  }
  if (what == "preemptions") {
    if (!need(1)) return false;
    if (!read_range(w[i], &out->value, &out->high)) {
      *error = "expect preemptions: '" + w[i] + "' is not a count or a range A..B";
      return false;
    }
    return true;
  }
  if (what == "quota" || what == "prio" || what == "eup") {
    if (w.size() - i != 2 && w.size() - i != 3) {
      *error = "expect " + what + ": expected NAME VALUE [TOLERANCE]";
      return false;
    }
    out->name = w[i];
    out->tolerance = 1e-6;
    if (!read_real(w[i + 1], &out->value) ||
        (w.size() - i == 3 && (!read_real(w[i + 2], &out->tolerance) || out->tolerance < 0))) {
      *error = "expect " + what + ": value and tolerance must be numbers";
      return false;
    }
    out->high = out->value;
    return true;
  }
  if (what == "on") {
    if (!need(2)) return false;
    out->name = w[i];
    out->who = w[i + 1];
    return true;
  }
  *error = "expect: unknown form '" + what +
           "' (running, idle, quota, prio, eup, on, limit, preemptions)";
  return false;
}

}  // namespace

bool expand_names(const std::string& text, std::vector<std::string>* out, std::string* error) {
  size_t open = text.find('[');
  if (open == std::string::npos) {
    if (text.empty()) {
      *error = "empty machine name";
      return false;
    }
    out->push_back(text);
    return true;
  }
  size_t close = text.find(']', open);
  if (close == std::string::npos || open == 0) {
    *error = "bad machine range '" + text + "'";
    return false;
  }
  const std::string prefix = text.substr(0, open), suffix = text.substr(close + 1);
  std::string body = text.substr(open + 1, close - open - 1);
  size_t p = 0;
  while (p <= body.size()) {
    size_t comma = body.find(',', p);
    std::string item = body.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
    size_t dash = item.find('-');
    int64_t lo, hi;
    bool ok = dash == std::string::npos
                  ? read_int(item, &lo) && (hi = lo, true)
                  : read_int(item.substr(0, dash), &lo) && read_int(item.substr(dash + 1), &hi);
    if (!ok || lo < 0 || hi < lo || hi - lo > 1000000) {
      *error = "bad machine range '" + text + "' (expected NAME[A-B,C])";
      return false;
    }
    for (int64_t n = lo; n <= hi; ++n) out->push_back(prefix + std::to_string(n) + suffix);
    if (comma == std::string::npos) break;
    p = comma + 1;
  }
  return true;
}

bool parse_step(const std::string& line, Step* out, std::string* error) {
  std::vector<std::string> w = words(line);
  size_t i = 0;
  if (w.empty()) {
    *error = "empty step";
    return false;
  }
  if (w[0] == "machine") {
    out->kind = StepKind::kMachine;
    if (w.size() < 2 || is_ad(w[1])) {
      *error = "machine: expected a name (node or node[1-30])";
      return false;
    }
    if (!expand_names(w[1], &out->names, error)) return false;
    for (i = 2; i < w.size(); ++i) {
      if (w[i] == "partitionable") {
        out->partitionable = true;
      } else if (w[i] == "slots" && i + 1 < w.size()) {
        if (!read_int(w[++i], &out->count) || out->count < 1 || out->count > 4096) {
          *error = "machine: slots needs a count from 1 to 4096";
          return false;
        }
      } else if (is_ad(w[i])) {
        out->ad = w[i];
      } else {
        *error = "machine: unexpected '" + w[i] + "' (partitionable, slots N or an ad [...])";
        return false;
      }
    }
    if (out->partitionable && out->count > 0) {
      *error = "machine: partitionable and slots N do not go together";
      return false;
    }
    return true;
  }
  if (w[0] != "at" || w.size() < 3) {
    *error = "expected 'machine ...' or 'at TIME STEP ...'";
    return false;
  }
  if (!read_time(w[1], &out->time)) {
    *error = "at: '" + w[1] + "' is not a time (seconds, or a number with s, m, h or d)";
    return false;
  }
  const std::string& verb = w[2];
  i = 3;
  const size_t n = w.size() - i;
  if (verb == "submit") {
    out->kind = StepKind::kSubmit;
    if (n < 2 || !read_int(w[i + 1], &out->count) || out->count < 0) {
      *error = "submit: expected NAME COUNT [runtime SECONDS] [ad]";
      return false;
    }
    out->name = w[i];
    for (i += 2; i < w.size(); ++i) {
      if (w[i] == "runtime" && i + 1 < w.size() && read_time(w[i + 1], &out->runtime)) {
        ++i;
      } else if (is_ad(w[i])) {
        out->ad = w[i];
      } else {
        *error = "submit: unexpected '" + w[i] + "' (runtime SECONDS or an ad [...])";
        return false;
      }
    }
    return true;
  }
  if (verb == "userprio") {
    out->kind = StepKind::kUserprio;
    if (n < 2) {
      *error = "userprio: expected OP NAME [VALUE]";
      return false;
    }
    out->what = w[i];
    out->name = w[i + 1];
    const std::string& op = out->what;
    bool valued = op == "setfactor" || op == "setprio" || op == "setceil" || op == "setfloor";
    bool plain = op == "resetusage" || op == "delete";
    if (!valued && !plain) {
      *error = "userprio: unknown operation '" + op +
               "' (setfactor, setprio, setceil, setfloor, resetusage, delete)";
      return false;
    }
    if (valued && (n != 3 || !read_real(w[i + 2], &out->value))) {
      *error = "userprio " + op + ": expected NAME VALUE";
      return false;
    }
    if (plain && n != 2) {
      *error = "userprio " + op + ": expected NAME only";
      return false;
    }
    return true;
  }
  if (verb == "exit" || verb == "remove") {
    out->kind = verb == "exit" ? StepKind::kExit : StepKind::kRemove;
    if (n != 2 || !read_int(w[i + 1], &out->count) || out->count < 0) {
      *error = verb + ": expected NAME COUNT";
      return false;
    }
    out->name = w[i];
    return true;
  }
  if (verb == "machine-off" || verb == "machine-on") {
    out->kind = verb == "machine-off" ? StepKind::kMachineOff : StepKind::kMachineOn;
    if (n < 1) {
      *error = verb + ": expected machine names";
      return false;
    }
    for (; i < w.size(); ++i) {
      if (!expand_names(w[i], &out->names, error)) return false;
    }
    return true;
  }
  if (verb == "set") {
    out->kind = StepKind::kSet;
    if (n < 2 || !expand_names(w[i], &out->names, error)) {
      if (error->empty()) *error = "set: expected NAMES Attr=expr ...";
      return false;
    }
    // The rest: an ad, or Attr=expr items (an item runs until the next "Word=").
    std::string rest;
    for (size_t k = i + 1; k < w.size(); ++k) rest += (rest.empty() ? "" : " ") + w[k];
    if (is_ad(rest)) {
      out->ad = rest;
      return true;
    }
    std::string ad = "[";
    for (size_t k = i + 1; k < w.size(); ++k) {
      size_t eq = w[k].find('=');
      bool starts = eq != std::string::npos && eq > 0 &&
                    std::isalpha(static_cast<unsigned char>(w[k][0])) &&
                    w[k].find_first_not_of(
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == eq;
      if (starts && ad.size() > 1)
        ad += "; ";
      else if (!starts && ad.size() == 1) {
        *error = "set: expected Attr=expr, got '" + w[k] + "'";
        return false;
      } else if (!starts)
        ad += " ";
      ad += w[k];
    }
    out->ad = ad + "]";
    return true;
  }
  if (verb == "reschedule") {
    out->kind = StepKind::kReschedule;
    if (n != 0) {
      *error = "reschedule takes no arguments";
      return false;
    }
    return true;
  }
  if (verb == "expect") return parse_expect(w, i, out, error);
  *error = "unknown step '" + verb +
           "' (submit, userprio, exit, remove, machine-off, machine-on, set, reschedule, expect)";
  return false;
}

}  // namespace kite::pool
