// The submit file reader: logical lines (continuations, comments), include, if/elif/else/endif,
// macro assignments and queue statements, each queue statement making procs through JobBuilder;
// then the unused-command warnings.
#include "policy/submit/submit.h"

#include <strings.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/internal.h"
#include "policy/submit/job_ad.h"
#include "policy/submit/macros.h"
#include "policy/submit/queue.h"

namespace kite::submit {
namespace {

using config::internal::trim;

constexpr int kMaxIncludeDepth = 16;
constexpr size_t kMaxFileBytes = 64u << 20;
constexpr int kVersion[3] = {25, 14, 0};  // what `if version` compares against

// Commands condor_submit knows beyond those job_ad.cc reads on every path: never "unused".
const char* const kKnownCommands[] = {
    "universe", "executable", "arguments", "environment", "input", "output", "error", "initialdir",
    "initial_dir", "log", "request_cpus", "request_memory", "request_disk", "request_gpus",
    "requirements", "rank", "priority", "nice_user", "kill_sig", "remove_kill_sig", "hold_kill_sig",
    "max_job_retirement_time", "job_max_vacate_time", "job_lease_duration", "accounting_group",
    "accounting_group_user", "concurrency_limits", "concurrency_limits_expr", "on_exit_remove",
    "on_exit_hold", "on_exit_hold_reason", "on_exit_hold_subcode", "periodic_hold",
    "periodic_hold_reason", "periodic_hold_subcode", "periodic_release", "periodic_remove",
    "periodic_vacate", "deferral_time", "deferral_window", "deferral_prep_time", "cron_minute",
    "cron_hour", "cron_day_of_month", "cron_month", "cron_day_of_week", "cron_prep_time",
    "cron_window", "hold", "batch_name", "notification", "notify_user", "should_transfer_files",
    "when_to_transfer_output", "transfer_input_files", "transfer_output_files", "description",
    "max_retries", "retry_until", "success_exit_code",
    // Known to condor_submit, without effect on a Kite vanilla job.
    "getenv", "transfer_executable", "stream_input", "stream_output", "stream_error",
    "transfer_input", "transfer_output", "transfer_error", "copy_to_spool", "leave_in_queue",
    "next_job_start_delay", "job_machine_attrs", "want_graceful_removal", "max_idle",
    "materialize_max_idle", "max_materialize", "coresize", "image_size", "encrypt_input_files",
    "encrypt_output_files", "dont_encrypt_input_files", "dont_encrypt_output_files",
    "output_destination", "transfer_output_remaps", "preserve_relative_paths", "load_profile",
    "run_as_owner", "job_ad_information_attrs", "submit_event_notes", "log_xml", "dagman_log",
    "email_attributes", "allowed_job_duration", "allowed_execute_duration", "want_checkpoint",
    "checkpoint_exit_code", "job_max_vacate_time", "periodic_remove_reason",
    "periodic_remove_subcode", "on_exit_remove_reason", "on_exit_remove_subcode",
    "transfer_plugins", "use_oauth_services", "job_batch_id", "skip_filechecks", "machine_count",
    "keep_claim_idle", "max_transfer_input_mb", "max_transfer_output_mb", "core_size", "stack_size",
    "erase_output_and_error_on_restart", "job_machine_attrs_history_length", "require_gpus",
    "gpus_minimum_capability", "gpus_maximum_capability", "gpus_minimum_memory",
    "gpus_minimum_runtime"};

bool known_command(std::string_view name) {
  if (command_alias(name)) return true;
  for (const char* k : kKnownCommands) {
    if (std::strlen(k) == name.size() && strncasecmp(k, name.data(), name.size()) == 0) {
      return true;
    }
  }
  return false;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

// condor_submit's "on Line N of FILE" (submit.cpp: "ERROR: on Line %d of %s: %s").
std::string where(const std::string& file, int line) {
  return "on Line " + std::to_string(line) + " of " + file;
}

// Why condor_submit's configuration parser refuses an if condition (config.cpp
// Evaluate_config_if): a single word that is no boolean "is not a conditional"; anything with
// operators, blanks or brackets is "complex".
std::string if_refusal(std::string_view expanded) {
  bool word = !expanded.empty();
  for (char c : expanded) {
    word = word && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' ||
                    c == '.' || c == '-');
  }
  return word ? "expression is not a conditional" : "complex conditionals are not supported";
}

std::string excerpt(std::string_view s) {
  return s.size() > 80 ? std::string(s.substr(0, 77)) + "..." : std::string(s);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash == 0 ? 1 : slash);
}

// `version OP x.y[.z]` against kVersion, comparing as many components as are given.
bool version_test(std::string_view rest, bool* r, std::string* err) {
  size_t k = std::min(rest.find_first_not_of("<>=!"), rest.size());
  std::string_view op = rest.substr(0, k);
  std::string ver(trim(rest.substr(k)));
  int want[3] = {0, 0, 0};
  int used = 0;
  bool digits = ver.find_first_not_of("0123456789.") == std::string::npos && ver.size() < 24;
  int parts =
      digits ? std::sscanf(ver.c_str(), "%d.%d%n.%d%n", &want[0], &want[1], &used, &want[2], &used)
             : 0;
  if (parts < 2 || used != static_cast<int>(ver.size())) {
    *err = "bad version '" + excerpt(ver) + "' in if (expected x.y or x.y.z)";
    return false;
  }
  // Which outcomes (older, same, newer) make each operator true, as bits 1, 2, 4.
  static const struct {
    const char* op;
    int true_for;
  } kOps[] = {{"==", 2}, {"!=", 5}, {">=", 6}, {"<=", 3}, {">", 4}, {"<", 1}};
  int order = 2;
  for (int i = 0; i < parts && order == 2; ++i) {
    if (kVersion[i] != want[i]) order = kVersion[i] < want[i] ? 1 : 4;
  }
  for (const auto& o : kOps) {
    if (op == o.op) {
      *r = (o.true_for & order) != 0;
      return true;
    }
  }
  *err = "bad version comparison '" + excerpt(op) + "'";
  return false;
}

struct IfFrame {
  int line;
  bool parent_active;  // the enclosing branch runs
  bool taken;          // some branch of this if ran already
  bool active;         // the current branch runs
  bool in_else;
};

class Submitter {
 public:
  Submitter(const Options& opts, const std::string& name, Result* out)
      : opts_(opts), out_(out), builder_(opts, name) {
    m_.cluster = opts.cluster;
    m_.submit_file = !name.empty() && name[0] == '/' ? name : opts.cwd + "/" + name;
  }

  Status run(std::string_view text, const std::string& file, int depth);
  Status finish();

 private:
  Status statement(std::string_view s, const std::string& file, int line,
                   std::vector<IfFrame>& ifs);
  Status condition(std::string_view cond, const char* kind, const std::string& file, int line,
                   bool* result);
  Status include(std::string_view rest, const std::string& file, int line, int depth);
  Status queue(std::string_view rest, const std::string& file, int line);
  void add_proc(std::vector<Attr>& ad);

  const Options& opts_;
  Result* out_;
  Macros m_;
  JobBuilder builder_;
  bool queued_ = false;
  int include_error_line_ = 0;  // the line of an included file an error was found on
  int depth_ = 0;
};

// Physical lines of a file, numbered from 1, without their line end ("\n" or "\r\n").
struct Lines {
  std::string_view text;
  size_t pos = 0;
  int number = 0;

  bool next(std::string_view* line) {
    if (pos >= text.size()) return false;
    size_t nl = std::min(text.find('\n', pos), text.size());
    *line = text.substr(pos, nl - pos);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    pos = nl + 1;
    ++number;
    return true;
  }
};

Status Submitter::run(std::string_view text, const std::string& file, int depth) {
  depth_ = depth;
  std::vector<IfFrame> ifs;
  Lines lines{text};
  std::string logical;
  std::string_view raw;
  while (lines.next(&raw)) {
    int start = lines.number;
    std::string_view t = trim(raw);
    if (t.empty() || t[0] == '#') continue;
    logical.assign(t.data(), t.size());
    while (!logical.empty() && logical.back() == '\\' && lines.next(&raw)) {
      logical.pop_back();
      std::string_view next = trim(raw);
      if (next.empty() || next[0] != '#') logical.append(next.data(), next.size());
    }
    // NAME @=TAG starts a multi-line value that ends at a line @TAG.
    size_t at = logical.find("@=");
    if (at != std::string::npos && at > 0) {
      std::string_view name = trim(std::string_view(logical).substr(0, at));
      std::string end(1, '@');
      end += trim(std::string_view(logical).substr(at + 2));
      if (valid_macro_name(name[0] == '+' ? name.substr(1) : name) && end.size() > 1 &&
          end.find_first_of(" \t") == std::string::npos) {
        std::string value;
        bool closed = false;
        while (!closed && lines.next(&raw)) {
          closed = trim(raw) == end;
          if (closed) break;
          if (!value.empty()) value += '\n';
          value.append(raw.data(), raw.size());
        }
        if (!closed) {
          return Status::Error(where(file, start) + ": no line " + end + " ends the value of " +
                               std::string(name));
        }
        if (ifs.empty() || ifs.back().active) {
          m_.aliases = m_.aliases || is_attribute_alias(name);
          m_.set(name, std::move(value), file, start);
        }
        continue;
      }
    }
    // A queue statement's parenthesised list goes on up to a line beginning with ')'.
    size_t sp = 0;
    while (sp < logical.size() && !is_blank(logical[sp]) && logical[sp] != '(') ++sp;
    if (iequals(std::string_view(logical).substr(0, sp), "queue") && queue_list_open(logical)) {
      bool closed = false;
      while (!closed && lines.next(&raw)) {
        logical += '\n';
        logical.append(raw.data(), raw.size());
        closed = !trim(raw).empty() && trim(raw)[0] == ')';
      }
      if (!closed) {
        return Status::Error(where(file, lines.number) +
                             ": Reached end of file without finding closing brace ')' for Queue "
                             "command on line " +
                             std::to_string(start));
      }
    }
    if (logical.find('\0') != std::string::npos) {
      return Status::Error(where(file, start) + ": a NUL byte in the line");
    }
    Status st = statement(logical, file, start, ifs);
    if (!st.ok) return st;
  }
  if (!ifs.empty()) {
    return Status::Error(where(file, lines.number) + ": endif(s) not found before end-of-file");
  }
  return Status::Ok();
}

Status Submitter::statement(std::string_view s, const std::string& file, int line,
                            std::vector<IfFrame>& ifs) {
  size_t sp = 0;
  while (sp < s.size() && !is_blank(s[sp]) && s[sp] != '=' && s[sp] != ':' && s[sp] != '(') ++sp;
  std::string_view word = s.substr(0, sp);
  std::string_view rest = trim(s.substr(sp));
  bool active = ifs.empty() || ifs.back().active;
  bool keyword_form = rest.empty() || rest[0] != '=';
  if (keyword_form && iequals(word, "if")) {
    bool r = false;
    if (active) {
      Status st = condition(rest, "if", file, line, &r);
      if (!st.ok) return st;
    }
    ifs.push_back(IfFrame{line, active, r, active && r, false});
    return Status::Ok();
  }
  if (keyword_form && iequals(word, "elif")) {
    if (ifs.empty()) return Status::Error(where(file, line) + ": elif without matching if");
    IfFrame& f = ifs.back();
    if (f.in_else) return Status::Error(where(file, line) + ": elif is not allowed after else");
    bool r = false;
    if (f.parent_active && !f.taken) {
      Status st = condition(rest, "elif", file, line, &r);
      if (!st.ok) return st;
    }
    f.active = f.parent_active && !f.taken && r;
    f.taken = f.taken || f.active;
    return Status::Ok();
  }
  if (keyword_form && iequals(word, "else") && rest.empty()) {
    if (ifs.empty()) return Status::Error(where(file, line) + ": else without matching if");
    IfFrame& f = ifs.back();
    if (f.in_else) return Status::Error(where(file, line) + ": else is not allowed after else");
    f.in_else = true;
    f.active = f.parent_active && !f.taken;
    f.taken = true;
    return Status::Ok();
  }
  if (keyword_form && iequals(word, "endif") && rest.empty()) {
    if (ifs.empty()) return Status::Error(where(file, line) + ": endif without matching if");
    ifs.pop_back();
    return Status::Ok();
  }
  if (!active) return Status::Ok();
  if (keyword_form && iequals(word, "include")) return include(rest, file, line, depth_);
  if (keyword_form && iequals(word, "queue")) {
    // condor_submit stops reading at a queue statement and reads on with a new if-stack
    // (config.cpp Parse_macros): an if still open there is forgotten, so a later endif has
    // no matching if.
    ifs.clear();
    return queue(rest, file, line);
  }
  size_t eq = s.find('=');
  std::string_view name = eq == std::string_view::npos ? "" : trim(s.substr(0, eq));
  std::string_view check = !name.empty() && name[0] == '+' ? name.substr(1) : name;
  if (eq == std::string_view::npos || !valid_macro_name(check)) {
    return Status::Error(where(file, line) + ": cannot read '" + excerpt(s) +
                         "' (expected NAME = VALUE, +Attr = VALUE, queue, include or if)");
  }
  m_.aliases = m_.aliases || is_attribute_alias(name);
  m_.set(name, std::string(trim(s.substr(eq + 1))), file, line);
  return Status::Ok();
}

// HTCONDOR: config.cpp Test_config_if_expression / Evaluate_config_if: the condition is
// macro-expanded first (empty means false), may start with '!', and is then a number, a
// boolean (true/false/yes/no/t/f), "defined NAME" or "version OP x.y[.z]".
Status Submitter::condition(std::string_view cond, const char* kind, const std::string& file,
                            int line, bool* result) {
  std::string_view raw = trim(cond);
  auto refuse = [&](const std::string& reason) {
    return Status::Error(where(file, line) + ": " + std::string(raw) + " is not a valid " + kind +
                         " condition because " + reason);
  };
  std::string expanded;
  std::string_view c = raw;
  bool was_expanded = raw.find('$') != std::string_view::npos;
  if (was_expanded) {
    Status st = m_.expand(raw, &expanded);
    if (!st.ok) return Status::Error(where(file, line) + ": " + st.message);
    c = trim(expanded);
  }
  bool neg = false;
  if (!c.empty() && c[0] == '!') {
    neg = true;
    c = trim(c.substr(1));
  }
  size_t sp = 0;
  while (sp < c.size() && !is_blank(c[sp])) ++sp;
  std::string_view word = c.substr(0, sp);
  std::string_view rest = trim(c.substr(sp));
  bool r = false;
  std::string number(c);
  char* end = nullptr;
  double d = number.empty() ? 0 : std::strtod(number.c_str(), &end);
  if (was_expanded && c.empty()) {
    r = false;
  } else if (!number.empty() && end && *end == '\0' &&
             !std::isalpha(static_cast<unsigned char>(c[0]))) {
    r = d != 0;
  } else if (iequals(c, "true") || iequals(c, "yes") || iequals(c, "t")) {
    r = true;
  } else if (iequals(c, "false") || iequals(c, "no") || iequals(c, "f")) {
    r = false;
  } else if (iequals(word, "defined")) {
    bool b = false;
    if (rest.empty()) {
      r = false;
    } else if (valid_macro_name(rest)) {
      const std::string* v = m_.raw(rest);
      r = v && !v->empty();
    } else if (parse_bool(rest, &b)) {
      r = true;  // a boolean or a number is defined
    } else {
      return refuse("defined argument must be param name, boolean, or number");
    }
  } else if (iequals(word, "version")) {
    std::string msg;
    if (!version_test(rest, &r, &msg)) return refuse("the version literal is invalid");
  } else {
    return refuse(if_refusal(c));
  }
  *result = neg ? !r : r;
  return Status::Ok();
}

Status Submitter::include(std::string_view rest, const std::string& file, int line, int depth) {
  std::string_view r = rest;
  bool ifexist = false, command = false;
  if (r.empty()) return Status::Error(where(file, line) + ": expected 'include [ifexist] : FILE'");
  if (r[0] != ':') {
    size_t colon = r.find(':');
    if (colon == std::string_view::npos)
      return Status::Error(where(file, line) + ": expected 'include [ifexist] : FILE'");
    // The options before the colon: ifexist, command (`include command : COMMAND`).
    std::string_view opts = trim(r.substr(0, colon));
    while (!opts.empty()) {
      size_t end = opts.find_first_of(" \t");
      std::string_view opt = opts.substr(0, end);
      if (iequals(opt, "ifexist")) {
        ifexist = true;
      } else if (iequals(opt, "command")) {
        command = true;
      } else {
        return Status::Error(where(file, line) + ": expected 'include [ifexist] : FILE'");
      }
      opts = end == std::string_view::npos ? std::string_view() : trim(opts.substr(end));
    }
    r = r.substr(colon);
  }
  std::string path;
  Status st = m_.expand(trim(r.substr(1)), &path);
  if (!st.ok) return Status::Error(where(file, line) + ": " + st.message);
  path = std::string(trim(path));
  if (path.empty()) return Status::Error(where(file, line) + ": include names no file");
  if (depth >= kMaxIncludeDepth)
    return Status::Error(where(file, line) + ": includes nested too deeply");
  std::string full = path;
  if (full[0] != '/') {
    std::string dir = dir_of(file);
    full = (dir.empty() || dir[0] != '/' ? opts_.cwd + (dir.empty() ? "" : "/" + dir) : dir) + "/" +
           path;
  }
  // condor_submit reports a failed include on the include line with an empty message; what
  // went wrong follows on the next line ("Error "FILE", Line N, Include Depth D: ...").
  auto failed = [&](int inner_line, const std::string& msg) {
    return Status::Error(where(file, line) + ": \nError \"" + path + "\", Line " +
                         std::to_string(inner_line) + ", Include Depth " +
                         std::to_string(depth + 1) + ": " + msg);
  };
  if (path.back() == '|' || command) {
    // `include : COMMAND |` (or `include command : COMMAND`): the command's output is read as
    // submit text, through the runner the caller gives.
    if (path.back() == '|')
      path = std::string(trim(std::string_view(path).substr(0, path.size() - 1)));
    if (path.empty()) return Status::Error(where(file, line) + ": include names no command");
    if (!opts_.run_command) {
      return Status::Error(where(file, line) + ": including a command's output is not supported");
    }
    std::string output;
    st = opts_.run_command(path, &output);
    if (!st.ok && ifexist) return Status::Ok();
    if (!st.ok) return Status::Error(where(file, line) + ": include: " + path + ": " + st.message);
    st = run(output, path, depth + 1);
    depth_ = depth;
    if (!st.ok) return failed(include_error_line_, st.message);
    return st;
  }
  std::string text;
  st = read_text_file(full, kMaxFileBytes, &text);
  if (!st.ok) {
    if (ifexist) return Status::Ok();
    struct stat info;
    bool missing = ::stat(full.c_str(), &info) != 0;
    return failed(0, "can't open file " + path + ": " +
                         (missing ? std::string("No such file or directory") : st.message));
  }
  std::string shown = path[0] == '/'         ? path
                      : dir_of(file).empty() ? path
                                             : dir_of(file) + "/" + path;
  st = run(text, shown, depth + 1);
  depth_ = depth;
  if (!st.ok) return failed(include_error_line_, st.message);
  return st;
}

Status Submitter::queue(std::string_view rest, const std::string& file, int line) {
  if (depth_ > 0) {
    include_error_line_ = line;
    return Status::Error("Queue statement not allowed in include file or command");
  }
  queued_ = true;
  QueueSpec q;
  Status st = parse_queue(rest, opts_.cwd, opts_.run_command, &q);
  if (!st.ok) return Status::Error(where(file, line) + ": " + st.message);
  int64_t count = 1;
  if (!q.count.empty()) {
    std::string text;
    st = m_.expand(q.count, &text);
    if (!st.ok) return Status::Error(where(file, line) + ": " + st.message);
    classad::ExprPtr e = classad::parse_expr(text);
    classad::AdPtr scope(classad::ClassAd::make());
    classad::Value v = e ? scope->evaluate_expr(e.get()) : classad::Value();
    // HTCONDOR: submit_utils.cpp parse_q_args' messages.
    if (!e || !v.is_integer()) {
      return Status::Error(where(file, line) + ": Invalid Queue count expression");
    }
    if (v.as_integer() < 0 || v.as_integer() >= INT32_MAX) {
      return Status::Error(where(file, line) + ": Queue count out of range");
    }
    count = v.as_integer();
  }
  size_t items = q.has_items ? q.items.size() : 1;
  int64_t limit = opts_.max_procs;
  if (count > 0 &&
      (count > limit || static_cast<int64_t>(items) > limit / count ||
       static_cast<int64_t>(out_->procs.size()) + count * static_cast<int64_t>(items) > limit)) {
    return Status::Error(where(file, line) + ": more than " + std::to_string(limit) + " procs");
  }
  std::vector<Attr> ad;
  for (size_t i = 0; i < items; ++i) {
    if (q.has_items) {
      for (size_t k = 0; k < q.vars.size(); ++k) m_.set_item(q.vars[k], q.items[i][k]);
    }
    m_.item_index = q.has_items ? q.rows[i] : 0;
    for (int64_t s = 0; s < count; ++s) {
      m_.step = static_cast<int>(s);
      m_.process = static_cast<int>(out_->procs.size());
      st = builder_.build(m_, &ad);
      if (!st.ok) return st;
      add_proc(ad);
    }
  }
  for (const std::string& v : q.vars) m_.erase(v);
  return Status::Ok();
}

// The first proc's ad becomes the cluster ad; every proc keeps ProcId, JobStatus and what
// differs (an attribute the cluster has and the proc lacks is kept with an empty value).
void Submitter::add_proc(std::vector<Attr>& ad) {
  std::vector<Attr>& cl = out_->cluster;
  Proc p;
  p.id = m_.process;
  if (out_->procs.empty()) {
    for (Attr& a : ad) {
      if (a.name == "ProcId" || a.name == "JobStatus") {
        p.own.push_back(std::move(a));
      } else {
        cl.push_back(std::move(a));
      }
    }
    out_->procs.push_back(std::move(p));
    return;
  }
  size_t matched = 0;
  for (size_t i = 0; i < ad.size(); ++i) {
    Attr& a = ad[i];
    if (a.name == "ProcId" || a.name == "JobStatus") {
      p.own.push_back(std::move(a));
      continue;
    }
    const Attr* c = nullptr;
    if (i < cl.size() && cl[i].name == a.name) {
      c = &cl[i];
    } else {
      for (const Attr& x : cl) {
        if (x.name == a.name) c = &x;
      }
    }
    if (c) ++matched;
    if (!c || c->value != a.value) p.own.push_back(std::move(a));
  }
  if (matched != cl.size()) {
    for (const Attr& x : cl) {
      bool found = false;
      for (const Attr& a : ad) found = found || a.name == x.name;
      if (!found) p.own.push_back(Attr{x.name, ""});
    }
  }
  out_->procs.push_back(std::move(p));
}

Status Submitter::finish() {
  if (!queued_) return Status::Error("no queue statement: nothing to submit");
  for (const Macros::Macro& mac : m_.all()) {
    if (mac.used || mac.item || mac.name[0] == '+' || known_command(mac.name) ||
        (mac.name.size() > 3 && strncasecmp(mac.name.c_str(), "MY.", 3) == 0)) {
      continue;
    }
    out_->warnings.push_back("WARNING: the line '" + mac.name + " = " + mac.value +
                             "' was unused by condor_submit. Is it a typo?");
  }
  return Status::Ok();
}

}  // namespace

std::vector<Attr> Result::merged(size_t i) const {
  const Proc& p = procs[i];
  std::vector<Attr> out;
  out.reserve(cluster.size() + p.own.size());
  std::vector<bool> placed(p.own.size(), false);
  for (const Attr& c : cluster) {
    const Attr* use = &c;
    for (size_t k = 0; k < p.own.size(); ++k) {
      if (p.own[k].name == c.name) {
        use = &p.own[k];
        placed[k] = true;
      }
    }
    if (!use->value.empty()) out.push_back(*use);
  }
  for (size_t k = 0; k < p.own.size(); ++k) {
    if (!placed[k] && !p.own[k].value.empty()) out.push_back(p.own[k]);
  }
  return out;
}

Status submit_text(std::string_view text, const std::string& name, const Options& opts,
                   Result* out) {
  *out = Result{};
  Submitter s(opts, name, out);
  Status st = s.run(text, name, 0);
  if (st.ok) st = s.finish();
  if (!st.ok) out->procs.clear(), out->cluster.clear();
  return st;
}

Status submit_file(const std::string& path, const Options& opts, Result* out) {
  std::string full = !path.empty() && path[0] == '/' ? path : opts.cwd + "/" + path;
  std::string text;
  Status st = read_text_file(full, kMaxFileBytes, &text);
  if (!st.ok) return st;
  return submit_text(text, path, opts, out);
}

}  // namespace kite::submit
