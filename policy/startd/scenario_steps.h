// Internal to the scenario runner: one parsed step of a scenario file (`at SECONDS COMMAND
// ...`), the parser for a step line, and the text helpers both halves share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/startd/startd.h"
#include "policy/startd/text_util.h"

namespace kite::startd::scenario_detail {

using classad::AdPtr;

using kite::startd::trim;  // text_util.h
bool contains_nocase(const std::string& hay, const std::string& needle);
// Drops a `#` comment that is outside quotes and brackets.
std::string strip_comment(const std::string& line);
// Splits on blanks outside quotes, brackets and parentheses.
std::vector<std::string> tokens(const std::string& s);

enum class Cmd {
  kSet,
  kMatch,
  kClaim,
  kActivate,
  kDeactivate,
  kStarterExit,
  kJobExit,
  kStarterCleaned,
  kRelease,
  kVacate,
  kVacateFast,
  kDrain,
  kCancelDrain,
  kIgnoresSoftkill,
  kStarterStuck,
  kWithdraw,
  kLeaseExpire,
  kAlive,
  kFetchWork,
  kShutdown,
  kExpect,
  kExpectAttr,
  kExpectAction,
  kExpectNoAction,
  kExpectTotals
};

struct Step {
  int line = 0;
  int64_t time = 0;
  Cmd cmd;
  std::string text;  // the step after the time, for messages
  std::string slot;
  std::vector<std::pair<std::string, std::string>> sets;
  AdPtr ad;
  int code = 0;
  DrainMode drain = DrainMode::kGraceful;
  bool drain_resume = false;
  std::string drain_reason;
  ShutdownMode shutdown = ShutdownMode::kGraceful;
  bool priority = false;    // claim ... preempt-priority
  std::string state_text;   // expect: "Claimed/Busy", "Claimed", "absent"
  classad::ExprPtr expr;    // expect-attr
  std::string action;       // expect-action: the action's name
  std::string action_text;  // expect-action: text its detail must contain
};

// Parses one step line (numbered `line` for messages); false with "line N: ..." in `err`.
bool parse_step(const std::string& raw, int line, Step* st, std::string* err);

}  // namespace kite::startd::scenario_detail
