// One proc's job ad from the submit macro table: every vanilla-universe command condor_submit
// implements, its defaults and the attributes it always writes.
#include <strings.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "policy/classad/args_env.h"
#include "policy/classad/expr.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/config/internal.h"
#include "policy/submit/job_ad.h"
#include "policy/submit/retries.h"
#include "policy/submit/transfer.h"

namespace kite::submit {
namespace {

using config::internal::trim;

constexpr const char* kDefaultDisk = "MAX({ 1024,(TransferInputSizeMB + 1) * 1.25 }) * 1024";
constexpr double kMiB = 1024.0 * 1024;

// Commands whose value is an expression copied to an attribute of the same meaning.
struct ExprCommand {
  const char* command;
  const char* attr;
};
const ExprCommand kExprCommands[] = {
    {"max_job_retirement_time", "MaxJobRetirementTime"},
    {"job_max_vacate_time", "JobMaxVacateTime"},
    {"on_exit_remove", "OnExitRemove"},
    {"on_exit_hold", "OnExitHold"},
    {"on_exit_hold_reason", "OnExitHoldReason"},
    {"on_exit_hold_subcode", "OnExitHoldSubCode"},
    {"periodic_hold", "PeriodicHold"},
    {"periodic_hold_reason", "PeriodicHoldReason"},
    {"periodic_hold_subcode", "PeriodicHoldSubCode"},
    {"periodic_release", "PeriodicRelease"},
    {"periodic_remove", "PeriodicRemove"},
    {"periodic_vacate", "PeriodicVacate"},
    {"deferral_time", "DeferralTime"},
};
// Commands whose value is stored as a string.
const ExprCommand kStringCommands[] = {
    {"batch_name", "JobBatchName"},
    {"notify_user", "NotifyUser"},
    {"cron_minute", "CronMinute"},
    {"cron_hour", "CronHour"},
    {"cron_day_of_month", "CronDayOfMonth"},
    {"cron_month", "CronMonth"},
    {"cron_day_of_week", "CronDayOfWeek"},
    {"description", "JobDescription"},
    {"job_machine_attrs", "JobMachineAttrs"},
};
// Commands condor_submit copies as an expression, an integer or a boolean
// (submit_utils.cpp prunable_keywords).
struct SimpleCommand {
  enum Kind { kExpr, kInt, kBool };
  const char* command;
  const char* attr;
  Kind kind;
};
const SimpleCommand kSimpleCommands[] = {
    {"want_graceful_removal", "WantGracefulRemoval", SimpleCommand::kExpr},
    {"stack_size", "StackSize", SimpleCommand::kExpr},
    {"max_transfer_input_mb", "MaxTransferInputMB", SimpleCommand::kExpr},
    {"max_transfer_output_mb", "MaxTransferOutputMB", SimpleCommand::kExpr},
    {"allowed_job_duration", "AllowedJobDuration", SimpleCommand::kExpr},
    {"allowed_execute_duration", "AllowedExecuteDuration", SimpleCommand::kExpr},
    {"core_size", "CoreSize", SimpleCommand::kInt},
    {"checkpoint_exit_code", "SuccessCheckpointExitCode", SimpleCommand::kInt},
    {"job_machine_attrs_history_length", "JobMachineAttrsHistoryLength", SimpleCommand::kInt},
    {"run_as_owner", "RunAsOwner", SimpleCommand::kBool},
    {"log_xml", "UserLogUseXML", SimpleCommand::kBool},
    {"preserve_relative_paths", "PreserveRelativePaths", SimpleCommand::kBool},
    {"erase_output_and_error_on_restart", "EraseOutputAndErrorOnRestart", SimpleCommand::kBool},
    {"load_profile", "LoadProfile", SimpleCommand::kBool},
};
const ExprCommand kSignalCommands[] = {
    {"kill_sig", "KillSig"},
    {"remove_kill_sig", "RemoveKillSig"},
    {"hold_kill_sig", "HoldKillSig"},
};
// Attributes every job ad carries, in canonical unparse.
const Attr* constants(size_t* n) {
  static const Attr kConstants[] = {
      {"MyType", "\"Job\""},
      {"TargetType", "\"Machine\""},
      {"JobUniverse", "5"},
      {"Owner", "undefined"},
      {"MaxHosts", "1"},
      {"MinHosts", "1"},
      {"CurrentHosts", "0"},
      {"NumCkpts", "0"},
      {"NumRestarts", "0"},
      {"NumJobStarts", "0"},
      {"NumJobCompletions", "0"},
      {"NumSystemHolds", "0"},
      {"ExitStatus", "0"},
      {"ExitBySignal", "false"},
      {"RemoteSysCpu", "0.0"},
      {"RemoteUserCpu", "0.0"},
      {"CumulativeRemoteSysCpu", "0.0"},
      {"CumulativeRemoteUserCpu", "0.0"},
      {"RemoteWallClockTime", "0.0"},
      {"CommittedTime", "0"},
      {"CommittedSlotTime", "0"},
      {"CommittedSuspensionTime", "0"},
      {"CumulativeSlotTime", "0"},
      {"CumulativeSuspensionTime", "0"},
      {"TotalSuspensions", "0"},
      {"LastSuspensionTime", "0"},
      {"LeaveJobInQueue", "false"},
      {"JobSubmitMethod", "0"},
  };
  *n = sizeof(kConstants) / sizeof(kConstants[0]);
  return kConstants;
}

std::string quoted(std::string_view s) {
  std::string out;
  classad::unparse_string(out, s);
  return out;
}

// `path` made absolute against `base`; a leading "./" is dropped.
std::string absolute(std::string_view path, const std::string& base) {
  if (!path.empty() && path[0] == '/') return std::string(path);
  while (path.size() >= 2 && path[0] == '.' && path[1] == '/') path.remove_prefix(2);
  if (path == ".") return base;
  std::string out = base;
  if (out.empty() || out.back() != '/') out += '/';
  out += path;
  return out;
}

// A literal number's value, or false for anything else.
bool literal_number(const std::string& canonical, double* v) {
  char* end = nullptr;
  *v = std::strtod(canonical.c_str(), &end);
  return !canonical.empty() && end && *end == '\0';
}

// The text from the single quote that is never closed (V2 quoting).
std::string unbalanced_from(std::string_view s) {
  bool open = false;
  size_t at = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\'') continue;
    if (!open) {
      open = true;
      at = i;
    } else if (i + 1 < s.size() && s[i + 1] == '\'') {
      ++i;
    } else {
      open = false;
    }
  }
  return open ? std::string(s.substr(at)) : std::string(s);
}

// HTCondor takes a value whose first non-blank character is a double quote as the new (V2)
// syntax (condor_arglist.cpp IsV2QuotedString).
bool is_v2(std::string_view v) {
  size_t b = v.find_first_not_of(" \t");
  return b != std::string_view::npos && v[b] == '"';
}

// The V2 text inside the double quotes ("" stands for one "), or false with condor_submit's
// message when the quote is not closed or something follows it (V2QuotedToV2Raw).
bool v2_raw(std::string_view v, std::string* raw, std::string* err) {
  size_t i = v.find('"') + 1;
  for (;;) {
    if (i >= v.size()) {
      *err = "Unterminated double-quote.";
      return false;
    }
    if (v[i] != '"') {
      *raw += v[i++];
    } else if (i + 1 < v.size() && v[i + 1] == '"') {
      *raw += '"';
      i += 2;
    } else {
      break;
    }
  }
  size_t rest = v.find_first_not_of(" \t\r\n", i + 1);
  if (rest != std::string_view::npos) {
    *err =
        "Unexpected characters following double-quote.  Did you forget to escape the "
        "double-quote by repeating it?  Here is the quote and trailing characters: " +
        std::string(v.substr(i));
    return false;
  }
  return true;
}

// condor_submit's message for an environment entry it refuses (env.cpp SetEnvWithErrorMessage,
// whose own "ERROR: " lands after the one condor_submit prints), or empty.
std::string env_entry_error(std::string_view entry) {
  size_t eq = entry.find('=');
  if (eq == std::string_view::npos && entry.find("$$") == std::string_view::npos)
    return "ERROR: Missing '=' after environment variable '" + std::string(entry) + "'.";
  if (eq == 0) return "ERROR: missing variable in '" + std::string(entry) + "'.";
  return "";
}

bool istarts(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && strncasecmp(s.data(), prefix.data(), prefix.size()) == 0;
}

// Reads commands from the macro table (by their name, else by the job attribute name
// condor_submit also accepts for them), keeping the first expansion error.
struct Commands {
  Macros& m;
  Status err;
  const char* last = nullptr;  // the last command found: where a bad value came from
  bool get(const char* name, std::string* out) {
    Status st;
    bool found = m.get(name, out, &st);
    const char* alias = found || !m.aliases ? nullptr : command_alias(name);
    if (alias) {
      found = m.get(alias, out, &st);
      name = alias;
    }
    if (found) last = name;
    if (!st.ok && err.ok) err = st;
    if (found) {
      std::string_view t = trim(*out);
      if (t.size() != out->size()) *out = std::string(t);
    }
    return found && err.ok;
  }
};

}  // namespace

namespace {

// Commands outside the tables above that condor_submit also accepts under their attribute name.
const ExprCommand kOtherAliases[] = {
    {"request_cpus", "RequestCpus"},
    {"request_memory", "RequestMemory"},
    {"request_disk", "RequestDisk"},
    {"priority", "JobPrio"},
    {"nice_user", "NiceUser"},
    {"initialdir", "Iwd"},
    {"job_lease_duration", "JobLeaseDuration"},
    {"concurrency_limits", "ConcurrencyLimits"},
    {"deferral_window", "DeferralWindow"},
    {"deferral_prep_time", "DeferralPrepTime"},
    {"cron_prep_time", "CronPrepTime"},
    {"cron_window", "CronWindow"},
    {"should_transfer_files", "ShouldTransferFiles"},
    {"when_to_transfer_output", "WhenToTransferOutput"},
    {"transfer_input_files", "TransferInput"},
    {"transfer_output_files", "TransferOutput"},
    {"transfer_output_remaps", "TransferOutputRemaps"},
    {"max_retries", "JobMaxRetries"},
    {"success_exit_code", "JobSuccessExitCode"},
};

// `name` equals the NUL-terminated `word`, ignoring case (no strlen: the hot path calls this).
bool same_word(std::string_view name, const char* word) {
  return strncasecmp(name.data(), word, name.size()) == 0 && word[name.size()] == '\0';
}

// The table entry naming `name` (as a command, or as an attribute when `by_attr`), or null.
const ExprCommand* alias_entry(std::string_view name, bool by_attr) {
  struct Table {
    const ExprCommand* first;
    size_t n;
  };
  static const Table kTables[] = {
      {kExprCommands, sizeof(kExprCommands) / sizeof(kExprCommands[0])},
      {kSignalCommands, sizeof(kSignalCommands) / sizeof(kSignalCommands[0])},
      {kStringCommands, sizeof(kStringCommands) / sizeof(kStringCommands[0])},
      {kOtherAliases, sizeof(kOtherAliases) / sizeof(kOtherAliases[0])},
  };
  for (const Table& t : kTables) {
    for (size_t i = 0; i < t.n; ++i) {
      if (same_word(name, by_attr ? t.first[i].attr : t.first[i].command)) return &t.first[i];
    }
  }
  return nullptr;
}

}  // namespace

const char* command_alias(std::string_view command) {
  if (const ExprCommand* e = alias_entry(command, false)) return e->attr;
  if (const ExprCommand* e = alias_entry(command, true)) return e->command;
  return nullptr;
}

bool is_attribute_alias(std::string_view name) {
  return alias_entry(name, true) != nullptr;
}

const JobBuilder::FileFacts& JobBuilder::facts(const std::string& path) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second;
  struct stat st;
  FileFacts f;
  if (::stat(path.c_str(), &st) == 0) {
    f.exists = true;
    f.dir = S_ISDIR(st.st_mode);
    f.size = st.st_size;
  }
  return files_.emplace(path, f).first->second;
}

bool JobBuilder::file_exists(const std::string& path, bool dir) {
  const FileFacts& f = facts(path);
  return f.exists && f.dir == dir;
}

long long JobBuilder::size_of(const std::string& path) {
  return facts(path).size;
}

Status JobBuilder::canonical(std::string_view name, std::string_view text, std::string* out) {
  auto it = cache_.find(name);
  if (it == cache_.end()) it = cache_.emplace(std::string(name), Cached{}).first;
  Cached& c = it->second;
  if (!c.canonical.empty() && c.source == text) {
    *out = c.canonical;
    return Status::Ok();
  }
  classad::ParseError perr;
  classad::ExprPtr e = classad::parse_expr(text, &perr);
  if (!e) {
    return Status::Error("Parse error in expression:\n\t" + std::string(name) + " = " +
                         std::string(text) + "\n\t(" + perr.to_string() + ")");
  }
  c.source.assign(text.data(), text.size());
  c.canonical.clear();
  classad::unparse_expr_old(c.canonical, e.get());
  *out = c.canonical;
  return Status::Ok();
}

// One proc's ad while it is written: the commands it reads, the attributes it puts, what the
// default Requirements needs to know. Each section below writes one group of attributes.
struct JobBuilder::Draft {
  Draft(JobBuilder& builder, Macros& macros, std::vector<Attr>* out)
      : b(builder), m(macros), ad(out) {}

  JobBuilder& b;
  Macros& m;
  std::vector<Attr>* ad;
  Commands cmd{m, Status::Ok()};
  Status st;
  std::string v;  // the value of the last command read
  std::string exe;
  RequirementsInput req;
  TransferPlan xfer;
  bool deferral = false;

  void put(std::string_view name, std::string value) {
    ad->push_back(Attr{std::string(name), std::move(value)});
  }
  // An expression attribute in canonical form; a parse error names the command it came from.
  bool put_expr(std::string_view name, std::string_view text) {
    std::string c;
    st = b.canonical(name, text, &c);
    if (st.ok) {
      put(name, std::move(c));
    } else if (const Macros::Macro* from = cmd.last ? m.entry(cmd.last) : nullptr) {
      st.message +=
          "\n\t(" + from->file + ", line " + std::to_string(from->line) + ": " + from->name + ")";
    }
    return st.ok;
  }
  // The first error met so far (an expansion error or a section's own).
  Status error() const { return cmd.err.ok ? st : cmd.err; }
  bool failed() const { return !cmd.err.ok || !st.ok; }

  Status paths();
  Status arguments();
  Status resources();
  Status gpu_properties();
  Status matching();
  Status accounting();
  Status policy();
  Status status();
  void submit_side();
  Status plus_attributes();
};

// Universe, executable, directories, standard streams, the event log.
Status JobBuilder::Draft::paths() {
  if (cmd.get("universe", &v) && strcasecmp(v.c_str(), "vanilla") != 0) {
    return Status::Error("Kite supports only the vanilla universe (universe = " + v + ")");
  }
  if (!cmd.get("executable", &v) || v.empty()) {
    if (!cmd.err.ok) return cmd.err;
    return Status::Error("No 'executable' parameter was provided");
  }
  exe = absolute(v, b.opts_.cwd);
  if (!b.file_exists(exe, false))
    return Status::Error("Executable file " + exe + " does not exist");
  std::string iwd = b.opts_.cwd;
  if (cmd.get("initialdir", &v) || cmd.get("initial_dir", &v)) {
    iwd = absolute(v, b.opts_.cwd);
    while (iwd.size() > 1 && iwd.back() == '/') iwd.pop_back();
    if (!b.file_exists(iwd, true)) return Status::Error("No such directory: " + iwd);
  }
  put("ClusterId", std::to_string(m.cluster));
  put("ProcId", std::to_string(m.process));
  put("Cmd", quoted(exe));
  put("Iwd", quoted(iwd));
  bool has_in = cmd.get("input", &v);
  put("In", quoted(has_in ? v : "/dev/null"));
  put(has_in ? "StreamIn" : "TransferIn", "false");
  bool has_out = cmd.get("output", &v);
  put("Out", quoted(has_out ? v : "/dev/null"));
  put(has_out ? "StreamOut" : "TransferOut", "false");
  bool has_err = cmd.get("error", &v);
  put("Err", quoted(has_err ? v : "/dev/null"));
  put(has_err ? "StreamErr" : "TransferErr", "false");
  if (cmd.get("log", &v) && !v.empty()) put("UserLog", quoted(absolute(v, iwd)));
  return error();
}

// Args (V1) or Arguments (canonical V2), and Environment (V2, sorted) from either syntax.
Status JobBuilder::Draft::arguments() {
  std::string err;
  if (cmd.get("arguments", &v) && is_v2(v)) {
    std::string inner;
    if (!v2_raw(v, &inner, &err)) return Status::Error(err);
    std::vector<std::string> words;
    if (!classad::args_split_v2(inner, &words, &err)) {
      return Status::Error("Unbalanced quote starting here: " + unbalanced_from(inner));
    }
    std::string canon;
    for (const std::string& w : words) classad::args_append_v2(w, &canon);
    put("Arguments", quoted(canon));
  } else if (cmd.err.ok && !v.empty()) {
    std::string args;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '\\' && i + 1 < v.size() && v[i + 1] == '"') continue;  // \" is a "
      if (v[i] == '"' && (i == 0 || v[i - 1] != '\\'))
        return Status::Error("Found illegal unescaped double-quote: " + v.substr(i));
      args += v[i];
    }
    put("Args", quoted(args));
  } else {
    put("Arguments", "\"\"");
  }
  classad::Environment env;
  if (cmd.get("environment", &v)) {
    std::string text = v;
    std::vector<std::string> v2_entries;
    std::vector<std::string_view> entries;
    if (is_v2(v)) {
      text.clear();
      if (!v2_raw(v, &text, &err)) return Status::Error(err);
      if (!classad::args_split_v2(text, &v2_entries, &err))
        return Status::Error("Unbalanced quote starting here: " + unbalanced_from(text));
      entries.assign(v2_entries.begin(), v2_entries.end());
    } else {
      entries = classad::Environment::split_v1(text);
    }
    for (std::string_view entry : entries) {
      std::string why = env_entry_error(entry);
      if (!why.empty()) return Status::Error(why);
    }
    bool ok = is_v2(v) ? env.merge_v2(text, &err) : env.merge_v1(text, &err);
    if (!ok) return Status::Error("environment: " + err);
  }
  put("Environment", quoted(env.to_v2()));
  return error();
}

// RequestCpus/Memory/Disk with units and defaults, then every request_<tag>.
Status JobBuilder::Draft::resources() {
  double num = 0;
  if (!put_expr("RequestCpus", cmd.get("request_cpus", &v) ? v : "1")) return error();
  req.cpus_clause = !(literal_number(ad->back().value, &num) && num <= 1);
  v = cmd.get("request_memory", &v) ? apply_units(v, kMiB, kMiB) : "128";
  if (failed() || !put_expr("RequestMemory", v)) return error();
  req.memory_clause = !(literal_number(ad->back().value, &num) && num <= 1);
  if (cmd.get("request_disk", &v)) {
    if (!put_expr("RequestDisk", apply_units(v, 1024, 1024))) return error();
  } else {
    put("RequestDisk", kDefaultDisk);  // written as condor_submit spells it (1.25, not 1.25E+00)
  }
  std::vector<std::pair<std::string, std::string>> custom;  // tag, command
  for (const Macros::Macro& mac : m.all()) {
    if (mac.item || !istarts(mac.name, "request_") || mac.name.size() == 8) continue;
    std::string tag = mac.name.substr(8);
    if (!strcasecmp(tag.c_str(), "cpus") || !strcasecmp(tag.c_str(), "memory") ||
        !strcasecmp(tag.c_str(), "disk")) {
      continue;
    }
    if (!strcasecmp(tag.c_str(), "gpus")) tag = "GPUs";
    custom.emplace_back(tag, mac.name);
  }
  std::sort(custom.begin(), custom.end(), [](const auto& a, const auto& b) {
    return strcasecmp(a.first.c_str(), b.first.c_str()) < 0;
  });
  bool gpus = false;
  for (auto& [tag, command] : custom) {
    cmd.get(command.c_str(), &v);
    if (failed() || !put_expr("Request" + tag, v)) return error();
    // A string request matches by regexp, unless empty; a number above 0 (or an expression)
    // needs TARGET.<tag> >= Request<tag> (HTCONDOR: submit_utils.cpp SetRequirements).
    const std::string& value = ad->back().value;
    bool is_string = value.size() >= 2 && value.front() == '"' && value.back() == '"';
    if (is_string) {
      if (value.size() > 2) {
        req.custom.push_back(tag);
        req.string_tags.push_back(tag);
      }
    } else if (!(literal_number(value, &num) && num <= 0)) {
      req.custom.push_back(tag);
    }
    gpus = gpus || tag == "GPUs";
  }
  return gpus ? gpu_properties() : error();
}

// HTCONDOR: submit_utils.cpp SetRequestResources and SetResourceRequirements: with a GPU
// request, require_gpus becomes RequireGPUs and the GPU property limits are written and
// and-ed into it ("Capability >= GPUsMinCapability", ...) unless it already names the
// property.
Status JobBuilder::Draft::gpu_properties() {
  std::string require;
  bool has_require = cmd.get("require_gpus", &require) && !require.empty();
  std::vector<std::string> refs;
  if (has_require) machine_refs(require, &refs);
  auto names = [&refs](const char* prop) {
    return std::find(refs.begin(), refs.end(), prop) != refs.end();
  };
  std::string clauses;
  auto clause = [&clauses](const char* text) {
    clauses += (clauses.empty() ? "" : " && ") + std::string(text);
  };
  if (cmd.get("gpus_minimum_capability", &v) && !v.empty()) {
    if (!put_expr("GPUsMinCapability", v)) return error();
    if (!names("capability")) clause("Capability >= GPUsMinCapability");
  }
  if (cmd.get("gpus_maximum_capability", &v) && !v.empty()) {
    if (!put_expr("GPUsMaxCapability", v)) return error();
    if (!names("capability")) clause("Capability <= GPUsMaxCapability");
  }
  if (cmd.get("gpus_minimum_memory", &v) && !v.empty()) {
    if (!put_expr("GPUsMinMemory", apply_units(v, kMiB, kMiB))) return error();
    if (!names("globalmemorymb")) clause("GlobalMemoryMb >= GPUsMinMemory");
  }
  if (cmd.get("gpus_minimum_runtime", &v) && !v.empty()) {
    // "x" or "x.y" is the version x * 1000 + y * 10 (a number above 1000 is taken as is).
    std::string t(trim(v));
    size_t dot = t.find('.');
    std::string major = t.substr(0, dot);
    std::string minor = dot == std::string::npos ? "" : t.substr(dot + 1);
    auto digits = [](const std::string& d) {
      return !d.empty() && d.size() < 10 &&
             std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    std::string value = t;
    if (digits(major) && (dot == std::string::npos || (digits(minor) && std::stol(minor) < 100))) {
      long long mj = std::stoll(major);
      long long ver = dot == std::string::npos && mj > 1000 ? mj : mj * 1000;
      if (dot != std::string::npos) ver += std::stoll(minor) * 10;
      value = std::to_string(ver);
    }
    if (!put_expr("GPUsMinRuntime", value)) return error();
    if (!names("maxsupportedversion")) clause("MaxSupportedVersion >= GPUsMinRuntime");
  }
  if (failed()) return error();
  std::string text = require;
  if (!clauses.empty()) {
    if (has_require) {
      // and-ed after the user's expression, parenthesised when it binds more loosely than &&
      classad::ExprPtr e = classad::parse_expr(require);
      const classad::Expr* root = e.get();
      bool loose = root && root->kind == classad::ExprKind::kOp &&
                   classad::paren_count(root) == 0 &&
                   (root->op == classad::Op::kOr || root->op == classad::Op::kTernary ||
                    root->op == classad::Op::kElvis);
      text = (loose ? "(" + std::string(trim(require)) + ")" : std::string(trim(require))) +
             " && " + clauses;
    } else {
      text = clauses;
    }
  }
  if (!text.empty()) {
    if (!put_expr("RequireGPUs", text)) return error();
    req.require_gpus = true;
  }
  return error();
}

// Requirements (the user's expression and the default clauses), Rank, JobPrio, the lease.
Status JobBuilder::Draft::matching() {
  if (cmd.get("requirements", &v) && !v.empty()) {
    if (!b.canonical("Requirements.user", v, &req.user).ok) {
      return Status::Error("Parse error in expression:\n\tRequirements = " + v);
    }
    machine_refs(req.user, &req.refs);
  }
  for (const char* c :
       {"cron_minute", "cron_hour", "cron_day_of_month", "cron_month", "cron_day_of_week"}) {
    deferral = deferral || m.entry(c) != nullptr;
  }
  deferral = deferral || m.entry("deferral_time") != nullptr;
  req.deferral = deferral;
  std::string given[5];
  const char* const kTransfer[5] = {"should_transfer_files", "when_to_transfer_output",
                                    "transfer_input_files", "transfer_output_files",
                                    "transfer_output_remaps"};
  const std::string* found[5] = {};
  for (int i = 0; i < 5; ++i) {
    if (cmd.get(kTransfer[i], &given[i])) found[i] = &given[i];
  }
  if (failed()) return error();
  Status ts =
      plan_transfer(TransferCommands{found[0], found[1], found[2], found[3], found[4]}, &xfer);
  if (!ts.ok) return ts;
  req.transfer = xfer.should;
  if (failed() || !put_expr("Requirements", build_requirements(req))) return error();
  if (!put_expr("Rank", cmd.get("rank", &v) && !v.empty() ? v : "0.0")) return error();
  // HTCONDOR: submit_utils.cpp prunable_keywords: priority is read as an integer.
  long long prio = 0;
  if (cmd.get("priority", &v) && !v.empty() && !parse_long(v, &prio)) {
    return Status::Error("priority=" + v + " is invalid, must eval to an integer.");
  }
  if (failed()) return error();
  put("JobPrio", std::to_string(prio));
  put_expr("JobLeaseDuration", cmd.get("job_lease_duration", &v) ? v : "2400");
  return error();
}

// nice_user, accounting groups, concurrency limits.
Status JobBuilder::Draft::accounting() {
  bool nice = false;
  if (cmd.get("nice_user", &v) && !parse_bool(v, &nice)) {
    return Status::Error("nice_user must be a boolean, not '" + v + "'");
  }
  std::string group, group_user = b.opts_.user;
  bool has_group = cmd.get("accounting_group", &v) && !v.empty();
  if (has_group) group = v;
  bool has_user = cmd.get("accounting_group_user", &v) && !v.empty();
  if (has_user) group_user = v;
  if (nice) {
    group = "nice-user";
    has_group = true;
  }
  if (has_group) {
    put("AcctGroup", quoted(group));
    put("AcctGroupUser", quoted(group_user));
    put("AccountingGroup", quoted(group + "." + group_user));
  } else if (has_user) {
    put("AcctGroupUser", quoted(group_user));
    put("AccountingGroup", quoted(group_user));
  }
  if (nice && !m.entry("max_job_retirement_time")) put("MaxJobRetirementTime", "0");
  if (cmd.get("concurrency_limits", &v) && !v.empty()) {
    put("ConcurrencyLimits", quoted(normalise_limits(v)));
  } else if (cmd.get("concurrency_limits_expr", &v) && !v.empty()) {
    put_expr("ConcurrencyLimits", v);
  }
  return error();
}

// Policy expressions, signals, string commands, deferral, notification, file transfer.
Status JobBuilder::Draft::policy() {
  std::string given[5];
  const char* const kRetry[5] = {"max_retries", "success_exit_code", "retry_until",
                                 "on_exit_remove", "on_exit_hold"};
  const std::string* found[5] = {};
  for (int i = 0; i < 5; ++i) {
    if (cmd.get(kRetry[i], &given[i]) && !given[i].empty()) found[i] = &given[i];
  }
  if (failed()) return error();
  RetryCommands retry{found[0], found[1], found[2], found[3], found[4]};
  bool retries = retries_wanted(retry);
  for (const ExprCommand& c : kExprCommands) {
    // With retries, OnExitRemove and OnExitHold come from plan_retries below.
    if (retries &&
        (std::strcmp(c.attr, "OnExitRemove") == 0 || std::strcmp(c.attr, "OnExitHold") == 0)) {
      continue;
    }
    if (cmd.get(c.command, &v) && !v.empty() && !put_expr(c.attr, v)) return error();
  }
  if (retries) {
    std::vector<std::pair<std::string, std::string>> attrs;
    Status rs = plan_retries(retry, &attrs);
    if (!rs.ok) return rs;
    for (const auto& a : attrs) {
      if (!put_expr(a.first, a.second)) return error();
    }
  }
  for (const ExprCommand& c : kSignalCommands) {
    if (!cmd.get(c.command, &v) || v.empty()) continue;
    std::string name = signal_name(v);
    if (name.empty()) return Status::Error("invalid signal " + v + " (" + c.command + ")");
    put(c.attr, quoted(name));
  }
  for (const ExprCommand& c : kStringCommands) {
    if (!cmd.get(c.command, &v) || v.empty()) continue;
    // batch_name loses surrounding quotes (condor_submit's f_strip_quotes).
    if (std::strcmp(c.command, "batch_name") == 0 && v.size() >= 2 && v.front() == '"' &&
        v.back() == '"') {
      v = v.substr(1, v.size() - 2);
    }
    put(c.attr, quoted(v));
  }
  for (const SimpleCommand& c : kSimpleCommands) {
    if (!cmd.get(c.command, &v) || v.empty()) continue;
    if (c.kind == SimpleCommand::kExpr) {
      if (!put_expr(c.attr, v)) return error();
    } else if (c.kind == SimpleCommand::kInt) {
      long long n = 0;
      if (!parse_long(v, &n)) {
        return Status::Error(std::string(c.command) + "=" + v +
                             " is invalid, must eval to an integer.");
      }
      put(c.attr, std::to_string(n));
    } else {
      bool flag = false;
      if (!parse_bool(v, &flag)) {
        return Status::Error(std::string(c.command) + "=" + v +
                             " is invalid, must eval to a boolean.");
      }
      put(c.attr, flag ? "true" : "false");
    }
  }
  if (deferral) {
    std::string window = "0", prep = "300";
    if (cmd.get("deferral_window", &v) || cmd.get("cron_window", &v)) window = v;
    if (cmd.get("deferral_prep_time", &v) || cmd.get("cron_prep_time", &v)) prep = v;
    if (failed() || !put_expr("DeferralWindow", window) || !put_expr("DeferralPrepTime", prep)) {
      return error();
    }
    put("ScheddInterval", "300");
  }
  int notify = 0;  // Never
  if (cmd.get("notification", &v)) {
    static const char* const kNotify[] = {"never", "always", "complete", "error"};
    notify = -1;
    for (int i = 0; i < 4; ++i) {
      if (strcasecmp(v.c_str(), kNotify[i]) == 0) notify = i;
    }
    if (notify < 0) {
      return Status::Error("Notification must be 'Never', 'Always', 'Complete', or 'Error'");
    }
  }
  put("JobNotification", std::to_string(notify));
  put("ShouldTransferFiles", quoted(xfer.should_text));
  if (!xfer.when_text.empty()) put("WhenToTransferOutput", quoted(xfer.when_text));
  if (xfer.has_input) put("TransferInput", quoted(xfer.input));
  if (xfer.has_output) put("TransferOutput", quoted(xfer.output));
  if (!xfer.remaps.empty()) put("TransferOutputRemaps", quoted(xfer.remaps));
  return error();
}

// JobStatus: held on request, else idle.
Status JobBuilder::Draft::status() {
  bool hold = false;
  if (cmd.get("hold", &v) && !parse_bool(v, &hold)) {
    return Status::Error("hold must be a boolean, not '" + v + "'");
  }
  put("JobStatus", hold ? "5" : "1");
  if (hold) {
    put("HoldReason", "\"submitted on hold at user's request\"");
    put("HoldReasonCode", "15");
  }
  return error();
}

// What the submitting side adds, and the attributes every job ad carries.
void JobBuilder::Draft::submit_side() {
  const Options& o = b.opts_;
  // condor_submit writes FileSystemDomain unless files are always transferred.
  if (xfer.should != ShouldTransfer::kYes) put("FileSystemDomain", quoted(o.filesystem_domain));
  put("JobSubmitFile", quoted(b.submit_file_));
  put("CondorVersion", quoted(o.version));
  put("SubmitVersion", quoted(o.version));
  put("CondorPlatform", quoted(o.platform));
  put("QDate", std::to_string(o.now));
  put("EnteredCurrentStatus", std::to_string(o.now));
  long long kib = std::max((b.size_of(exe) + 1023) / 1024, 1LL);
  put("ExecutableSize", std::to_string(kib));
  put("ImageSize", std::to_string(kib));
  put("DiskUsage", std::to_string(kib));
  put("TransferInputSizeMB", std::to_string((kib + 1023) / 1024));
  size_t n = 0;
  const Attr* k = constants(&n);
  ad->insert(ad->end(), k, k + n);
  // leave_in_queue replaces the default LeaveJobInQueue = false.
  if (cmd.get("leave_in_queue", &v) && !v.empty()) {
    std::string c;
    if (b.canonical("LeaveJobInQueue", v, &c).ok) {
      for (Attr& a : *ad) {
        if (a.name == "LeaveJobInQueue") a.value = c;
      }
    }
  }
}

// +Attr and MY.Attr: stored as written (expanded), unevaluated; they win over the above.
Status JobBuilder::Draft::plus_attributes() {
  std::string canon;
  for (size_t i = 0; i < m.all().size(); ++i) {
    const Macros::Macro& mac = m.all()[i];
    std::string attr;
    if (!mac.name.empty() && mac.name[0] == '+') {
      attr = mac.name.substr(1);
    } else if (istarts(mac.name, "MY.")) {
      attr = mac.name.substr(3);
    } else {
      continue;
    }
    std::string name = mac.name;
    cmd.get(name.c_str(), &v);
    if (!cmd.err.ok) return cmd.err;
    if (v.empty()) continue;
    if (!b.canonical(attr, v, &canon).ok) {
      return Status::Error("Parse error in expression:\n\t" + attr + " = " + v + "\n\t(" +
                           m.all()[i].file + ", line " + std::to_string(m.all()[i].line) + ")");
    }
    auto same = [&attr](const Attr& a) { return strcasecmp(a.name.c_str(), attr.c_str()) == 0; };
    auto it = std::find_if(ad->begin(), ad->end(), same);
    if (it != ad->end()) {
      it->value = canon;
    } else {
      put(attr, canon);
    }
  }
  return Status::Ok();
}

Status JobBuilder::build(Macros& m, std::vector<Attr>* ad) {
  ad->clear();
  Draft d(*this, m, ad);
  Status st = d.paths();
  if (st.ok) st = d.arguments();
  if (st.ok) st = d.resources();
  if (st.ok) st = d.matching();
  if (st.ok) st = d.accounting();
  if (st.ok) st = d.policy();
  if (st.ok) st = d.status();
  if (!st.ok) return st;
  d.submit_side();
  return d.plus_attributes();
}

}  // namespace kite::submit
