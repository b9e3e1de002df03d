// Reads the fetch-work hook settings of a slot and the backfill client's command line.
#include "policy/startd/job_hooks.h"

#include <strings.h>

#include "policy/classad/args_env.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"
#include "policy/startd/text_util.h"

namespace kite::startd {

namespace {

std::string value(const config::Config& cfg, const std::string& name) {
  std::string v;
  if (!cfg.get(name, &v)) return "";
  return trim(v);
}

}  // namespace

JobHooks job_hooks_for_slot(const config::Config& cfg, int slot_id) {
  JobHooks h;
  h.keyword = value(cfg, "SLOT" + std::to_string(slot_id) + "_JOB_HOOK_KEYWORD");
  if (h.keyword.empty()) h.keyword = value(cfg, "STARTD_JOB_HOOK_KEYWORD");
  if (h.keyword.empty()) return h;
  h.fetch_work = value(cfg, h.keyword + "_HOOK_FETCH_WORK");
  h.reply_fetch = value(cfg, h.keyword + "_HOOK_REPLY_FETCH");
  h.evict_claim = value(cfg, h.keyword + "_HOOK_EVICT_CLAIM");
  return h;
}

bool backfill_client_read(const config::Config& cfg, BackfillClient* out, std::string* err) {
  *out = BackfillClient{};
  bool enabled = false;
  config::Status st = config::read_bool(cfg, "ENABLE_BACKFILL", &enabled);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  if (!enabled) return true;
  std::string system = value(cfg, "BACKFILL_SYSTEM");
  std::string program, args, args_name;
  if (strcasecmp(system.c_str(), "KITE") == 0) {
    out->system = "KITE";
    args = value(cfg, "KITE_BACKFILL_COMMAND");
    args_name = "KITE_BACKFILL_COMMAND";
    out->cwd = value(cfg, "KITE_BACKFILL_CWD");
    out->user = value(cfg, "KITE_BACKFILL_USER");
  } else if (strcasecmp(system.c_str(), "BOINC") == 0) {
    out->system = "BOINC";
    program = value(cfg, "BOINC_Executable");
    if (program.empty()) {
      *err = "BACKFILL_SYSTEM = BOINC: BOINC_Executable is not set";
      return false;
    }
    args = value(cfg, "BOINC_Arguments");
    args_name = "BOINC_Arguments";
    out->cwd = value(cfg, "BOINC_InitialDir");
    out->user = value(cfg, "BOINC_Owner");
  } else if (system.empty()) {
    *err = "ENABLE_BACKFILL is true but BACKFILL_SYSTEM is not set (KITE or BOINC)";
    return false;
  } else {
    *err = "BACKFILL_SYSTEM = " + system + ": not one of KITE, BOINC";
    return false;
  }
  std::vector<std::string> words;
  std::string why;
  if (!classad::args_split_v2(args, &words, &why)) {
    *err = args_name + " = " + args + ": " + why;
    return false;
  }
  if (!program.empty()) out->argv.push_back(program);
  for (std::string& w : words) out->argv.push_back(std::move(w));
  if (out->argv.empty()) {
    *err = "BACKFILL_SYSTEM = KITE: KITE_BACKFILL_COMMAND is not set";
    return false;
  }
  return true;
}

}  // namespace kite::startd
