// Startd cron: a monitor's output read as ClassAd records (`Attr = value` lines, one record per
// `- [name] [update:bool]` line) and the rule that says which slots take each record (pure).
// HTCONDOR: ep-configuration "Startd Cron" / "Job output".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::startd {

/// One ad a monitor published.
struct CronRecord {
  std::string tag;  // the name after `-` ("" for the unnamed ad)
  std::vector<std::pair<std::string, std::string>> attrs;  // prefixed name, expression text
  // Routing (highest priority first): SlotMergeConstraint, SlotName (or Name), SlotTypeId,
  // SlotId. None set: every slot the job's _SLOTS allows.
  classad::ExprPtr merge_constraint;
  std::string slot_name;
  int64_t slot_type_id = -1;
  int64_t slot_id = -1;
  int update = -1;  // `update:true|false` after the separator, -1 when absent
};

/// Reads a monitor's output one line at a time (the caller splits at newlines, so output
/// arriving in pieces is read as it comes). Bad lines are ignored and reported.
class CronOutputParser {
 public:
  explicit CronOutputParser(std::string prefix) : prefix_(std::move(prefix)) {}
  /// One line without its newline. True when it was a separator that closed a record; take()
  /// it then.
  bool line(std::string_view text);
  /// End of output: true when attributes are pending after the last separator (a record).
  bool finish();
  CronRecord take();
  /// "line N: why: text" for each line ignored since the last call; cleared by the call.
  std::vector<std::string> take_errors();
  int lines() const { return lineno_; }

 private:
  void error(const char* why, std::string_view text);
  std::string prefix_;
  CronRecord cur_;
  bool cur_has_data_ = false;
  int lineno_ = 0;
  std::vector<std::string> errors_;
};

/// The slot a record is checked against.
struct CronSlot {
  std::string name;  // "slot1", "slot1_2"
  int64_t id = 0;    // SlotID
  int64_t type_id = 0;
  const classad::ClassAd* ad = nullptr;  // for SlotMergeConstraint (evaluated in the slot ad)
};

/// True when `slot` takes `rec`: the job's _SLOTS list (empty = any) allows its SlotID and the
/// record's routing attribute, the highest set, matches.
bool cron_record_applies(const CronRecord& rec, const std::vector<int>& job_slots,
                         const CronSlot& slot);
/// True when the record names no slot (it goes to every slot the job's _SLOTS allows).
bool cron_record_unrouted(const CronRecord& rec);

}  // namespace kite::startd
