// Job transforms and submit requirements: parsing the configuration, applying them to job ads.
#include "policy/queue/submit_policy.h"

#include <cctype>
#include <map>

#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/config/typed.h"

namespace kite::queue_policy {
namespace {

using config::Status;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// Splits off the first word (an attribute name); `rest` is what follows, with one optional
// '=' before it dropped.
std::string_view first_word(std::string_view s, std::string_view* rest, bool eat_equals) {
  s = trim(s);
  size_t n = 0;
  while (n < s.size() && is_name_char(s[n])) ++n;
  std::string_view word = s.substr(0, n);
  std::string_view r = trim(s.substr(n));
  if (eat_equals && !r.empty() && r.front() == '=' && (r.size() < 2 || r[1] != '=')) {
    r = trim(r.substr(1));
  }
  *rest = r;
  return word;
}

// Replaces $(name) of the transform's own macros; leaves $(MY.attr) for the job.
Status expand_macros(std::string_view text, const std::map<std::string, std::string>& macros,
                     int depth, std::string* out) {
  if (depth > 20) return Status::Error("macros nest too deeply (a loop?)");
  out->clear();
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      size_t close = text.find(')', i + 2);
      if (close == std::string_view::npos) return Status::Error("unterminated $(");
      std::string name(text.substr(i + 2, close - i - 2));
      std::string key;
      for (char c : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto it = macros.find(key);
      if (it != macros.end()) {
        std::string inner;
        Status st = expand_macros(it->second, macros, depth + 1, &inner);
        if (!st.ok) return st;
        *out += inner;
      } else if (key.rfind("my.", 0) == 0) {
        out->append(text.substr(i, close + 1 - i));
      } else {
        return Status::Error("$(" + name + ") is not defined in the transform");
      }
      i = close + 1;
    } else {
      *out += text[i++];
    }
  }
  return Status::Ok();
}

// $(MY.attr) -> the job's attribute as ClassAd text ("undefined" when it has none).
std::string expand_my(std::string_view text, const classad::ClassAd& job) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    size_t start = text.find("$(", i);
    if (start == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    size_t close = text.find(')', start);
    out.append(text.substr(i, start - i));
    std::string_view attr = text.substr(start + 5, close - start - 5);  // after "$(MY."
    const classad::Expr* e = job.lookup(attr);
    if (e) {
      classad::unparse_expr(out, e);
    } else {
      out += "undefined";
    }
    i = close + 1;
  }
  return out;
}

bool truthy(const classad::Value& v) {
  return classad::requirements_accept(v);
}

classad::ExprPtr rule_expr(const TransformRule& r, const classad::ClassAd& job,
                           const JobTransform& t, std::string* err) {
  if (r.text.empty()) return classad::ExprPtr(classad::expr_copy(r.expr.get()));
  std::string text = expand_my(r.text, job);
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(text, &pe);
  if (!e && err) {
    *err = "JOB_TRANSFORM_" + t.name + " line " + std::to_string(r.line) + ": '" + text +
           "' is not an expression: " + pe.to_string();
  }
  return e;
}

}  // namespace

Status parse_transform(const std::string& name, const std::string& text, JobTransform* out) {
  out->name = name;
  out->rules.clear();
  std::map<std::string, std::string> macros;
  std::string where = "JOB_TRANSFORM_" + name;
  size_t pos = 0;
  for (int line = 1; pos <= text.size(); ++line) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string_view raw = trim(std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
    if (raw.empty() || raw.front() == '#') continue;
    auto fail = [&](const std::string& why) {
      return Status::Error(where + " line " + std::to_string(line) + ": " + why);
    };
    std::string_view rest;
    std::string_view word = first_word(raw, &rest, false);
    TransformRule r;
    r.line = line;
    bool needs_expr = true;
    if (iequals(word, "REQUIREMENTS")) {
      r.kind = TransformRule::kRequirements;
    } else if (iequals(word, "SET") || iequals(word, "EVALSET") || iequals(word, "DEFAULT")) {
      r.kind = iequals(word, "SET")       ? TransformRule::kSet
               : iequals(word, "EVALSET") ? TransformRule::kEvalSet
                                          : TransformRule::kDefault;
      r.attr = std::string(first_word(rest, &rest, true));
    } else if (iequals(word, "DELETE")) {
      r.kind = TransformRule::kDelete;
      r.attr = std::string(first_word(rest, &rest, false));
      needs_expr = false;
      if (!rest.empty()) return fail("DELETE takes one attribute name");
    } else if (iequals(word, "RENAME") || iequals(word, "COPY")) {
      r.kind = iequals(word, "RENAME") ? TransformRule::kRename : TransformRule::kCopy;
      r.attr = std::string(first_word(rest, &rest, true));
      r.target = std::string(first_word(rest, &rest, false));
      needs_expr = false;
      if (r.target.empty() || !rest.empty())
        return fail(std::string(word) + " takes two attribute names");
    } else if (!word.empty() && !rest.empty() && rest.front() == '=') {
      std::string key;
      for (char c : word) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      macros[key] = std::string(trim(rest.substr(1)));
      continue;
    } else {
      return fail("'" + std::string(raw) +
                  "' is not a transform statement (REQUIREMENTS, SET, EVALSET, DEFAULT, DELETE, "
                  "RENAME, COPY, or NAME = VALUE)");
    }
    if (r.kind != TransformRule::kRequirements && r.attr.empty())
      return fail(std::string(word) + " needs an attribute name");
    if (needs_expr) {
      if (rest.empty()) return fail(std::string(word) + " needs an expression");
      std::string expanded;
      Status st = expand_macros(rest, macros, 0, &expanded);
      if (!st.ok) return fail(st.message);
      if (expanded.find("$(") != std::string::npos) {
        r.text = expanded;  // parsed per job, after $(MY.attr) is replaced
      } else {
        classad::ParseError pe;
        r.expr = classad::parse_expr(expanded, &pe);
        if (!r.expr) return fail("'" + expanded + "' is not an expression: " + pe.to_string());
      }
    }
    out->rules.push_back(std::move(r));
  }
  return Status::Ok();
}

Status load_submit_policy(const config::Config& cfg, SubmitPolicy* out) {
  out->transforms.clear();
  out->requirements.clear();
  std::string names;
  if (cfg.get("JOB_TRANSFORM_NAMES", &names)) {
    for (const std::string& n : config::split_list(names)) {
      config::Entry e;
      if (!cfg.lookup("JOB_TRANSFORM_" + n, &e))
        return Status::Error("JOB_TRANSFORM_NAMES names " + n + " but JOB_TRANSFORM_" + n +
                             " is not defined");
      JobTransform t;
      Status st = parse_transform(n, e.value, &t);
      if (!st.ok) return st;
      out->transforms.push_back(std::move(t));
    }
  }
  if (cfg.get("SUBMIT_REQUIREMENT_NAMES", &names)) {
    for (const std::string& n : config::split_list(names)) {
      SubmitRequirement r;
      r.name = n;
      std::string var = "SUBMIT_REQUIREMENT_" + n, text;
      if (!cfg.get(var, &text) || trim(text).empty())
        return Status::Error("SUBMIT_REQUIREMENT_NAMES names " + n + " but " + var +
                             " is not defined");
      classad::ParseError pe;
      r.expr = classad::parse_expr(text, &pe);
      if (!r.expr) return Status::Error(var + ": not an expression: " + pe.to_string());
      if (cfg.get(var + "_REASON", &text) && !trim(text).empty()) {
        r.reason = classad::parse_expr(text, &pe);
        if (!r.reason) return Status::Error(var + "_REASON: not an expression: " + pe.to_string());
      }
      Status st = config::read_bool(cfg, var + "_IS_WARNING", &r.is_warning);
      if (!st.ok) return st;
      out->requirements.push_back(std::move(r));
    }
  }
  return Status::Ok();
}

bool apply_transforms(const SubmitPolicy& p, classad::ClassAd* job, std::string* err) {
  for (const JobTransform& t : p.transforms) {
    bool applies = true;
    for (const TransformRule& r : t.rules) {
      if (r.kind != TransformRule::kRequirements) continue;
      classad::ExprPtr e = rule_expr(r, *job, t, err);
      if (!e) return false;
      if (!truthy(job->evaluate_expr(e.get()))) applies = false;
    }
    if (!applies) continue;
    for (const TransformRule& r : t.rules) {
      switch (r.kind) {
        case TransformRule::kRequirements: break;
        case TransformRule::kSet:
        case TransformRule::kEvalSet:
        case TransformRule::kDefault: {
          if (r.kind == TransformRule::kDefault && job->lookup(r.attr)) break;
          classad::ExprPtr e = rule_expr(r, *job, t, err);
          if (!e) return false;
          if (r.kind == TransformRule::kEvalSet) {
            job->insert_value(r.attr, job->evaluate_expr(e.get()));
          } else {
            job->insert(r.attr, e.release());
          }
          break;
        }
        case TransformRule::kDelete: job->remove(r.attr); break;
        case TransformRule::kRename:
        case TransformRule::kCopy: {
          const classad::Expr* e = job->lookup(r.attr);
          if (!e) break;
          job->insert(r.target, classad::expr_copy(e));
          if (r.kind == TransformRule::kRename) job->remove(r.attr);
          break;
        }
      }
    }
  }
  return true;
}

RequirementOutcome check_submit_requirements(const SubmitPolicy& p, classad::ClassAd& schedd,
                                             classad::ClassAd& job) {
  RequirementOutcome out;
  classad::MatchPair pair(schedd, job);
  for (const SubmitRequirement& r : p.requirements) {
    if (truthy(pair.evaluate_left(r.expr.get()))) continue;
    std::string reason;
    if (r.reason) {
      classad::Value v = pair.evaluate_left(r.reason.get());
      if (v.is_string()) reason = std::string(v.as_string());
    }
    if (reason.empty()) reason = "Submit requirement " + r.name + " not met";
    if (r.is_warning) {
      out.warning = reason;
      continue;
    }
    out.refused = true;
    out.error = reason;
    return out;
  }
  return out;
}

}  // namespace kite::queue_policy
