// The parser of scenario steps (see scenario_steps.h): `at SECONDS COMMAND ARGS`, with each
// command's arguments checked and line-numbered errors. The commands are in kCmds; the checks
// are expect (SLOT State/Activity or absent), expect-attr (SLOT EXPR), expect-action and
// expect-no-action (SLOT ACTION [TEXT]) and expect-totals (the slots' resources add up to the
// machine; see the case below).
#include "policy/startd/scenario_steps.h"

#include <strings.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "policy/classad/parser.h"

namespace kite::startd::scenario_detail {

bool contains_nocase(const std::string& hay, const std::string& needle) {
  if (needle.size() > hay.size()) return false;
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (strncasecmp(hay.c_str() + i, needle.c_str(), needle.size()) == 0) return true;
  }
  return false;
}

// Drops a `#` comment that is outside quotes and brackets.
std::string strip_comment(const std::string& line) {
  bool q = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (q) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        q = false;
    } else if (c == '"') {
      q = true;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

// Splits on blanks outside quotes, brackets and parentheses.
std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool q = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (q) {
      cur += c;
      if (c == '\\' && i + 1 < s.size())
        cur += s[++i];
      else if (c == '"')
        q = false;
      continue;
    }
    if (c == '"') q = true;
    if (c == '[' || c == '(' || c == '{') ++depth;
    if ((c == ']' || c == ')' || c == '}') && depth > 0) --depth;
    if ((c == ' ' || c == '\t') && depth == 0) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

namespace {

struct CmdName {
  const char* name;
  Cmd cmd;
};
const CmdName kCmds[] = {
    {"set", Cmd::kSet},
    {"match", Cmd::kMatch},
    {"claim", Cmd::kClaim},
    {"activate", Cmd::kActivate},
    {"deactivate", Cmd::kDeactivate},
    {"starter-exit", Cmd::kStarterExit},
    {"job-exit", Cmd::kJobExit},
    {"starter-cleaned", Cmd::kStarterCleaned},
    {"release", Cmd::kRelease},
    {"vacate", Cmd::kVacate},
    {"vacate-fast", Cmd::kVacateFast},
    {"drain", Cmd::kDrain},
    {"cancel-drain", Cmd::kCancelDrain},
    {"job-ignores-softkill", Cmd::kIgnoresSoftkill},
    {"starter-stuck", Cmd::kStarterStuck},
    {"withdraw", Cmd::kWithdraw},
    {"lease-expire", Cmd::kLeaseExpire},
    {"alive", Cmd::kAlive},
    {"fetch-work", Cmd::kFetchWork},
    {"shutdown", Cmd::kShutdown},
    {"expect", Cmd::kExpect},
    {"expect-attr", Cmd::kExpectAttr},
    {"expect-action", Cmd::kExpectAction},
    {"expect-no-action", Cmd::kExpectNoAction},
    {"expect-totals", Cmd::kExpectTotals},
};

}  // namespace

bool parse_step(const std::string& raw, int line, Step* st, std::string* err) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "line %d: ", line);
  std::string pre = buf;
  std::string s = trim(strip_comment(raw));
  std::vector<std::string> tk = tokens(s);
  if (tk.size() < 2 || strcasecmp(tk[0].c_str(), "at") != 0) {
    *err = pre + "expected 'at SECONDS COMMAND ...', got '" + s + "'";
    return false;
  }
  char* end = nullptr;
  long long t = std::strtoll(tk[1].c_str(), &end, 10);
  if (!end || *end || t < 0 || tk[1].empty() || t > 100LL * 365 * 86400) {
    *err = pre + "bad time '" + tk[1] + "' (seconds from 0)";
    return false;
  }
  st->line = line;
  st->time = t;
  if (tk.size() < 3) {
    *err = pre + "missing command after 'at " + tk[1] + "'";
    return false;
  }
  bool found = false;
  for (const CmdName& c : kCmds) {
    if (strcasecmp(c.name, tk[2].c_str()) == 0) {
      st->cmd = c.cmd;
      found = true;
    }
  }
  if (!found) {
    *err = pre + "unknown command '" + tk[2] + "'";
    return false;
  }
  size_t cmdpos = s.find(tk[2]);
  st->text = trim(s.substr(cmdpos));
  std::vector<std::string> args(tk.begin() + 3, tk.end());
  auto need_slot = [&]() -> bool {
    if (args.empty() || args[0][0] == '[') {
      *err = pre + tk[2] + ": missing slot name";
      return false;
    }
    st->slot = args[0];
    return true;
  };
  auto opt_ad = [&](size_t i) -> bool {
    if (i >= args.size()) {
      st->ad = AdPtr(classad::ClassAd::make());
      return true;
    }
    std::string rest;
    for (size_t k = i; k < args.size(); ++k) rest += (k > i ? " " : "") + args[k];
    classad::ParseError pe;
    st->ad = classad::parse_classad(rest, &pe);
    if (!st->ad) {
      *err = pre + "bad ad '" + rest + "': " + pe.to_string();
      return false;
    }
    return true;
  };
  switch (st->cmd) {
    case Cmd::kSet: {
      size_t i = 0;
      if (args.size() == 1 && args[0].find('=') == std::string::npos) {
        *err = pre + "set: '" + args[0] + "' is not Attr=value";
        return false;
      }
      if (!args.empty() && args[0].find('=') == std::string::npos) {
        st->slot = args[0];
        i = 1;
      }
      if (i >= args.size()) {
        *err = pre + "set: nothing to set (want Attr=value ...)";
        return false;
      }
      for (; i < args.size(); ++i) {
        size_t eq = args[i].find('=');
        if (eq == std::string::npos || eq == 0) {
          *err = pre + "set: '" + args[i] + "' is not Attr=value";
          return false;
        }
        std::string name = args[i].substr(0, eq), val = args[i].substr(eq + 1);
        classad::ParseError pe;
        if (!classad::parse_expr(val, &pe)) {
          *err = pre + "set: " + name + ": bad value '" + val + "': " + pe.to_string();
          return false;
        }
        st->sets.emplace_back(name, val);
      }
      return true;
    }
    case Cmd::kClaim:
      // claim SLOT preempt-priority [ad]: the negotiator preempts by user priority.
      if (args.size() > 1 && strcasecmp(args[1].c_str(), "preempt-priority") == 0) {
        st->priority = true;
        return need_slot() && opt_ad(2);
      }
      return need_slot() && opt_ad(1);
    case Cmd::kMatch:
    case Cmd::kActivate: return need_slot() && opt_ad(1);
    case Cmd::kFetchWork:
      // fetch-work SLOT [ad]: the slot's fetch-work hook finished with this job; without an
      // ad it found no work.
      return need_slot() && (args.size() < 2 || opt_ad(1));
    case Cmd::kStarterExit:
    case Cmd::kJobExit:
      if (!need_slot()) return false;
      if (args.size() > 1) {
        long code = std::strtol(args[1].c_str(), &end, 10);
        if (*end || args[1].empty() || code < INT_MIN || code > INT_MAX) {
          *err = pre + (st->cmd == Cmd::kJobExit ? "job-exit" : "starter-exit") +
                 ": bad exit code '" + args[1] + "'";
          return false;
        }
        st->code = static_cast<int>(code);
      }
      return true;
    case Cmd::kDeactivate:
    case Cmd::kStarterCleaned:
    case Cmd::kRelease:
    case Cmd::kIgnoresSoftkill:
    case Cmd::kStarterStuck:
    case Cmd::kWithdraw:
    case Cmd::kLeaseExpire:
    case Cmd::kAlive: return need_slot();
    case Cmd::kVacate:
    case Cmd::kVacateFast:
      if (!args.empty()) st->slot = args[0];
      return true;
    case Cmd::kDrain:
      // drain ... reason TEXT: condor_drain -reason (the rest of the line, quotes dropped).
      for (size_t k = 0; k < args.size(); ++k) {
        if (strcasecmp(args[k].c_str(), "reason") != 0 &&
            strcasecmp(args[k].c_str(), "-reason") != 0)
          continue;
        std::string r;
        for (size_t m = k + 1; m < args.size(); ++m) r += (m > k + 1 ? " " : "") + args[m];
        if (r.size() >= 2 && r.front() == '"' && r.back() == '"') r = r.substr(1, r.size() - 2);
        if (r.empty()) {
          *err = pre + "drain: 'reason' wants a text";
          return false;
        }
        st->drain_reason = r;
        args.resize(k);
        break;
      }
      if (!args.empty() && (strcasecmp(args.back().c_str(), "resume-on-completion") == 0 ||
                            strcasecmp(args.back().c_str(), "-resume-on-completion") == 0)) {
        st->drain_resume = true;
        args.pop_back();
      }
      if (args.size() > 1) {
        *err =
            pre + "drain: want 'drain [graceful|quick|fast] [resume-on-completion] [reason TEXT]'";
        return false;
      }
      if (!args.empty()) {
        std::string m = args[0];
        if (!m.empty() && m[0] == '-') m = m.substr(1);
        if (strcasecmp(m.c_str(), "graceful") == 0)
          st->drain = DrainMode::kGraceful;
        else if (strcasecmp(m.c_str(), "quick") == 0)
          st->drain = DrainMode::kQuick;
        else if (strcasecmp(m.c_str(), "fast") == 0)
          st->drain = DrainMode::kFast;
        else {
          *err = pre + "drain: mode must be graceful, quick or fast, not '" + args[0] + "'";
          return false;
        }
      }
      return true;
    case Cmd::kCancelDrain: return true;
    case Cmd::kShutdown:
      if (!args.empty()) {
        if (strcasecmp(args[0].c_str(), "peaceful") == 0)
          st->shutdown = ShutdownMode::kPeaceful;
        else if (strcasecmp(args[0].c_str(), "graceful") == 0)
          st->shutdown = ShutdownMode::kGraceful;
        else if (strcasecmp(args[0].c_str(), "fast") == 0)
          st->shutdown = ShutdownMode::kFast;
        else {
          *err = pre + "shutdown: mode must be peaceful, graceful or fast, not '" + args[0] + "'";
          return false;
        }
      }
      return true;
    case Cmd::kExpect: {
      if (!need_slot()) return false;
      if (args.size() != 2) {
        *err = pre + "expect: want 'expect SLOT State/Activity'";
        return false;
      }
      std::string sa = args[1];
      if (strcasecmp(sa.c_str(), "absent") != 0) {
        size_t slash = sa.find('/');
        std::string sn = sa.substr(0, slash);
        State x;
        Activity y;
        if (!state_parse(sn.c_str(), static_cast<int>(sn.size()), &x)) {
          *err = pre + "expect: unknown state '" + sn + "'";
          return false;
        }
        if (slash != std::string::npos) {
          std::string an = sa.substr(slash + 1);
          if (!activity_parse(an.c_str(), static_cast<int>(an.size()), &y)) {
            *err = pre + "expect: unknown activity '" + an + "'";
            return false;
          }
        }
      }
      st->state_text = sa;
      return true;
    }
    case Cmd::kExpectAction:
    case Cmd::kExpectNoAction: {
      if (!need_slot()) return false;
      if (args.size() < 2) {
        *err = pre + tk[2] + ": want '" + tk[2] + " SLOT ACTION [TEXT]'";
        return false;
      }
      ActionKind kind;
      if (!action_parse(args[1], &kind)) {
        *err = pre + tk[2] + ": unknown action '" + args[1] + "'";
        return false;
      }
      st->action = args[1];
      for (size_t k = 2; k < args.size(); ++k) st->action_text += (k > 2 ? " " : "") + args[k];
      return true;
    }
    case Cmd::kExpectTotals:
      // expect-totals: the slots' resources add up (Startd::resources_balance): nothing
      // negative, each partitionable slot's free resources plus its dynamic slots' equal what it
      // was given, and the slots together have no more than the machine. No arguments.
      if (!args.empty()) {
        *err = pre + "expect-totals: takes no arguments";
        return false;
      }
      return true;
    case Cmd::kExpectAttr: {
      if (!need_slot()) return false;
      std::string rest;
      for (size_t k = 1; k < args.size(); ++k) rest += (k > 1 ? " " : "") + args[k];
      if (trim(rest).empty()) {
        *err = pre + "expect-attr: missing expression";
        return false;
      }
      classad::ParseError pe;
      st->expr = classad::parse_expr(rest, &pe);
      if (!st->expr) {
        *err = pre + "expect-attr: bad expression '" + rest + "': " + pe.to_string();
        return false;
      }
      st->text = "expect-attr " + st->slot + " " + rest;
      return true;
    }
  }
  return true;
}

}  // namespace kite::startd::scenario_detail
