// condor_userprio's output, pure: the priority tables (default, -all, -usage), -quotas,
// -long and -af from the accountant's state, in the observed layout of HTCondor 25
// (../shared/reference/htcondor-25/observed/cli/condor_userprio.*.txt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/accountant/accountant.h"
#include "policy/classad/classad.h"
#include "policy/fairshare/group_quotas.h"

namespace kite::accountant {

enum class UserprioTable {
  kDefault,  // also -most and -priority
  kAll,
  kUsage,
};

struct UserprioView {
  UserprioTable table = UserprioTable::kDefault;
  int64_t now = 0;                 // the tool's clock
  int64_t active_window = 86400;   // users active since now - this (condor_userprio's 1 day)
  bool all_users = false;          // -allusers: also those not active in the window
  int32_t utc_offset = 0;          // seconds east of UTC for the printed times
  std::vector<std::string> users;  // names given on the command line: only these (none: all)
  // The configured groups (GROUP_NAMES). With any, the tables are hierarchical (condor_userprio
  // -hierarchical, its default then): each group's row, its users indented beneath, the
  // "<none>" group's last. -flat lists the users alone.
  const fairshare::GroupSettings* groups = nullptr;
  bool flat = false;
  bool group_rollup = false;  // -grouprollup: a group row's In Use and Usage sum its users'
};

/// A priority table: "Last Priority Update", the header, one row per submitter in ascending
/// effective priority, the totals. Flat unless the view has groups (see UserprioView).
std::string render_userprio_table(const Accountant& acc, const UserprioView& view);

/// -quotas: one row per configured group, then the totals.
std::string render_userprio_quotas(const Accountant& acc,
                                   const std::vector<fairshare::GroupQuota>& quotas,
                                   const UserprioView& view);

/// -long: each ad's attributes sorted case-insensitively as `Name = value`, a blank line
/// after each ad.
std::string render_userprio_long(const std::vector<const classad::ClassAd*>& ads);

/// -af / -af:h: the attributes' values separated by one space, one ad per line. With the
/// header, values after the first column are padded to 21 and group ads' first column to 24,
/// as condor_userprio does.
std::string render_userprio_af(const std::vector<const classad::ClassAd*>& ads,
                               const std::vector<std::string>& attrs, bool header);

/// "d+hh:mm", the Time Since Last Usage format.
std::string userprio_duration(int64_t secs);

}  // namespace kite::accountant
