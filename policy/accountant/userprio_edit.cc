// condor_userprio's edit options: parsing, checks, and their effect on the accountant.
#include "policy/accountant/userprio_edit.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kite::accountant {
namespace {

using Op = UserprioEdit::Op;

struct OptionSpec {
  const char* option;
  Op op;
  int operands;  // 0: none, 1: <user>, 2: <user> <val>
};

constexpr OptionSpec kOptions[] = {
    {"-setprio", Op::kSetPrio, 2},       {"-setfactor", Op::kSetFactor, 2},
    {"-setfloor", Op::kSetFloor, 2},     {"-set-floor", Op::kSetFloor, 2},
    {"-setceiling", Op::kSetCeiling, 2}, {"-setceil", Op::kSetCeiling, 2},
    {"-setaccum", Op::kSetAccum, 2},     {"-setbegin", Op::kSetBegin, 2},
    {"-setlast", Op::kSetLast, 2},       {"-resetusage", Op::kResetUsage, 1},
    {"-resetall", Op::kResetAll, 0},     {"-delete", Op::kDelete, 1},
};

std::string fixed6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", v);
  return buf;
}

}  // namespace

bool parse_userprio_edit(const std::vector<std::string>& args, UserprioEdit* out,
                         std::string* error) {
  error->clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : kOptions)
      if (args[i] == s.option) spec = &s;
    if (!spec) continue;
    if (spec->operands > 0 && i + size_t(spec->operands) >= args.size()) {
      *error = std::string(spec->option) + " needs " +
               (spec->operands == 2 ? "a user name and a value" : "a user name");
      return false;
    }
    UserprioEdit e;
    e.op = spec->op;
    if (spec->operands >= 1) e.name = args[i + 1];
    if (spec->operands == 2) {
      const std::string& text = args[i + 2];
      char* end = nullptr;
      e.value = std::strtod(text.c_str(), &end);
      // strtod also reads "nan" and "inf", which no priority, factor or time may be.
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(e.value) ||
          std::fabs(e.value) > 1e15) {
        *error = std::string(spec->option) + " " + e.name + ": \"" + text + "\" is not a number";
        return false;
      }
      if (e.op == Op::kSetFactor && e.value < 1) {
        *error =
            std::string(spec->option) + " " + e.name + ": the priority factor must be at least 1.0";
        return false;
      }
      if (e.op == Op::kSetPrio && e.value < kMinPriority) {
        *error = std::string(spec->option) + " " + e.name + ": the priority must be at least 0.5";
        return false;
      }
    }
    *out = std::move(e);
    return true;
  }
  return false;
}

bool apply_userprio_edit(Accountant& acc, const UserprioEdit& e, int64_t now,
                         std::string* message) {
  switch (e.op) {
    case Op::kSetPrio:
      acc.set_priority(e.name, e.value, now);
      *message = "The priority of " + e.name + " was set to " + fixed6(e.value);
      return true;
    case Op::kSetFactor:
      acc.set_factor(e.name, e.value, now);
      *message = "The priority factor of " + e.name + " was set to " + fixed6(e.value);
      return true;
    case Op::kSetFloor:
      acc.set_floor(e.name, e.value, now);
      *message = "The floor of " + e.name + " was set to " + fixed6(e.value);
      return true;
    case Op::kSetCeiling:
      acc.set_ceiling(e.name, e.value, now);
      *message = "The ceiling of " + e.name + " was set to " + fixed6(e.value);
      return true;
    case Op::kSetAccum:
      acc.set_accumulated(e.name, e.value * 3600, now);
      *message = "The accumulated usage of " + e.name + " was set to " + fixed6(e.value);
      return true;
    case Op::kSetBegin:
      acc.set_begin_usage(e.name, int64_t(e.value), now);
      *message =
          "The begin usage time of " + e.name + " was set to " + std::to_string(int64_t(e.value));
      return true;
    case Op::kSetLast:
      acc.set_last_usage(e.name, int64_t(e.value), now);
      *message =
          "The last usage time of " + e.name + " was set to " + std::to_string(int64_t(e.value));
      return true;
    case Op::kResetUsage:
      if (!acc.reset_usage(e.name, now)) {
        *message = "No accountant record named " + e.name;
        return false;
      }
      *message = "The accumulated usage of " + e.name + " was reset";
      return true;
    case Op::kResetAll:
      acc.reset_all(now);
      *message = "The accumulated usage was reset for all users";
      return true;
    case Op::kDelete:
      if (!acc.remove(e.name)) {
        *message = "No accountant record named " + e.name;
        return false;
      }
      *message = "The accountant record named " + e.name + " was deleted";
      return true;
  }
  return false;
}

}  // namespace kite::accountant
