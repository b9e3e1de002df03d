// Reads startd cron output into records and routes them to slots.
#include "policy/startd/cron_output.h"

#include <strings.h>

#include <algorithm>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/startd/text_util.h"

namespace kite::startd {

namespace {

bool name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && c >= '0' && c <= '9');
}

bool is(std::string_view a, const char* b) {
  return a.size() == std::char_traits<char>::length(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

// The separator's words: `[name] [update:bool]`.
void read_separator(std::string_view rest, CronRecord* rec) {
  for (const std::string& w : split_list(rest)) {
    if (w.size() > 7 && strncasecmp(w.c_str(), "update:", 7) == 0) {
      std::string v = w.substr(7);
      if (strcasecmp(v.c_str(), "true") == 0) rec->update = 1;
      if (strcasecmp(v.c_str(), "false") == 0) rec->update = 0;
    } else if (rec->tag.empty()) {
      rec->tag = w;
    }
  }
}

}  // namespace

void CronOutputParser::error(const char* why, std::string_view text) {
  std::string t(text.substr(0, 80));
  errors_.push_back("line " + std::to_string(lineno_) + ": " + why + ": " + t);
}

bool CronOutputParser::line(std::string_view text) {
  ++lineno_;
  std::string t = trim(text);
  if (t.empty() || t[0] == '#') return false;
  if (t[0] == '-') {
    read_separator(std::string_view(t).substr(1), &cur_);
    cur_has_data_ = true;  // a separator publishes even an empty record (it clears old values)
    return true;
  }
  size_t eq = t.find('=');
  if (eq == std::string::npos) {
    error("not `Attr = value`", t);
    return false;
  }
  std::string name = trim(std::string_view(t).substr(0, eq));
  std::string value = trim(std::string_view(t).substr(eq + 1));
  bool ok = !name.empty() && name_char(name[0], true);
  for (size_t i = 1; ok && i < name.size(); ++i) ok = name_char(name[i], false);
  if (!ok) {
    error("bad attribute name", t);
    return false;
  }
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(value, &pe);
  if (!e) {
    error(("bad value (" + pe.to_string() + ")").c_str(), t);
    return false;
  }
  cur_has_data_ = true;
  if (is(name, "SlotMergeConstraint")) {
    cur_.merge_constraint = std::move(e);
    return false;
  }
  classad::Value v = classad::evaluate(e.get());
  int64_t n = 0;
  if ((is(name, "SlotName") || is(name, "Name")) && v.is_string()) {
    cur_.slot_name = std::string(v.as_string());
    return false;
  }
  if ((is(name, "SlotTypeId") || is(name, "SlotId")) && v.is_integer()) {
    n = v.as_integer();
    (is(name, "SlotId") ? cur_.slot_id : cur_.slot_type_id) = n;
    return false;
  }
  std::string full = prefix_ + name;
  auto same = [&](const std::pair<std::string, std::string>& a) {
    return is(a.first, full.c_str());
  };
  auto it = std::find_if(cur_.attrs.begin(), cur_.attrs.end(), same);
  if (it != cur_.attrs.end())
    it->second = value;
  else
    cur_.attrs.emplace_back(std::move(full), std::move(value));
  return false;
}

bool CronOutputParser::finish() {
  return cur_has_data_;
}

CronRecord CronOutputParser::take() {
  CronRecord r = std::move(cur_);
  cur_ = CronRecord();
  cur_has_data_ = false;
  return r;
}

std::vector<std::string> CronOutputParser::take_errors() {
  std::vector<std::string> e;
  e.swap(errors_);
  return e;
}

bool cron_record_unrouted(const CronRecord& rec) {
  return !rec.merge_constraint && rec.slot_name.empty() && rec.slot_type_id < 0 && rec.slot_id < 0;
}

bool cron_record_applies(const CronRecord& rec, const std::vector<int>& job_slots,
                         const CronSlot& slot) {
  if (!job_slots.empty() &&
      std::find(job_slots.begin(), job_slots.end(), slot.id) == job_slots.end()) {
    return false;
  }
  if (rec.merge_constraint) {
    if (!slot.ad) return false;
    classad::Value v = slot.ad->evaluate_expr(rec.merge_constraint.get());
    return v.is_boolean() && v.as_boolean();
  }
  if (!rec.slot_name.empty())
    return strncasecmp(slot.name.c_str(), rec.slot_name.c_str(), rec.slot_name.size()) == 0;
  if (rec.slot_type_id >= 0) return slot.type_id == rec.slot_type_id;
  if (rec.slot_id >= 0) return slot.id == rec.slot_id;
  return true;
}

}  // namespace kite::startd
