// The fetch-work job hooks and the backfill client as configured: which hook keyword a slot
// uses (SLOT<N>_JOB_HOOK_KEYWORD, else STARTD_JOB_HOOK_KEYWORD), that keyword's hook programs,
// and the command the backfill system runs (BACKFILL_SYSTEM). Reading configuration only.
// HTCONDOR: ep-configuration "Job Hooks That Fetch Work", "Configuring HTCondor for Running
// Backfill Jobs"; hooks.rst.
#pragma once

#include <string>
#include <vector>

namespace kite::config {
class Config;
}

namespace kite::startd {

/// The fetch-work hooks of one slot. Empty strings: not configured.
struct JobHooks {
  std::string keyword;      // HookKeyword
  std::string fetch_work;   // <Keyword>_HOOK_FETCH_WORK (without it no hook runs)
  std::string reply_fetch;  // <Keyword>_HOOK_REPLY_FETCH
  std::string evict_claim;  // <Keyword>_HOOK_EVICT_CLAIM
  bool active() const { return !keyword.empty() && !fetch_work.empty(); }
};

/// The hooks of slot number `slot_id` (the SlotID; dynamic slots use their parent's).
JobHooks job_hooks_for_slot(const config::Config& cfg, int slot_id);

/// The program the backfill system runs while slots are in Backfill.
///   BACKFILL_SYSTEM = KITE: KITE_BACKFILL_COMMAND (program and arguments in the V2
///     arguments syntax: blanks separate words, '...' quotes), KITE_BACKFILL_CWD and
///     KITE_BACKFILL_USER.
///   BACKFILL_SYSTEM = BOINC: BOINC_Executable, BOINC_Arguments, BOINC_InitialDir and
///     BOINC_Owner, as HTCondor's BOINC settings name them.
struct BackfillClient {
  std::string system;             // "KITE" or "BOINC", empty when backfill is not set up
  std::vector<std::string> argv;  // program first
  std::string cwd;                // empty: the agent's EXECUTE directory
  std::string user;               // the account it runs as; empty: SLOT_USER
};

/// Reads the backfill client. With ENABLE_BACKFILL false, an empty client and true. False
/// with a message naming the variable when BACKFILL_SYSTEM is unknown or names no program.
bool backfill_client_read(const config::Config& cfg, BackfillClient* out, std::string* err);

}  // namespace kite::startd
