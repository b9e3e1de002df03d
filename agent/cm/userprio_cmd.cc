// `kite userprio [-pool HOST[:PORT]] [edit-option | display-options [users]]`: the central
// manager's user priorities in condor_userprio's layout, and its edit options (which need
// ADMINISTRATOR). The CM renders the display; this prints it.
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/cm_client.h"
#include "agent/cli/commands.h"
#include "policy/accountant/userprio_options.h"

namespace kite::cli {
namespace {

const char kUsage[] =
    "usage: kite userprio [-pool HOST[:PORT]] [edit-option | display-options [users]]\n"
    "  edit options (ADMINISTRATOR):\n"
    "    -setprio USER VALUE       set USER's real priority (at least 0.5)\n"
    "    -setfactor USER VALUE     set USER's priority factor (at least 1)\n"
    "    -setfloor USER VALUE      guarantee USER this slot weight (also -set-floor)\n"
    "    -setceiling USER VALUE    let USER hold at most this slot weight (also -setceil)\n"
    "    -setaccum USER VALUE      set USER's accumulated usage (weighted hours)\n"
    "    -setbegin USER TIME       set USER's first usage time (Unix time)\n"
    "    -setlast USER TIME        set USER's last usage time (Unix time)\n"
    "    -resetusage USER          USER's priority back to 0.5 and usage to zero\n"
    "    -resetall                 the same for every user\n"
    "    -delete USER              forget USER's record\n"
    "  display options:\n"
    "    -priority, -most          priorities and usage (the default)\n"
    "    -usage                    usage only\n"
    "    -all                      every field\n"
    "    -quotas                   group quotas\n"
    "    -allusers                 also users not active in the last day\n"
    "    -activefrom M D Y         users active since that date\n"
    "    -long, -l                 the Accounting ads\n"
    "    -af[:h] ATTR...           the ads' attributes, one ad per line\n";

int32_t local_utc_offset() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  return static_cast<int32_t>(tm.tm_gmtoff);
}

}  // namespace

int userprio_main(int argc, char** argv) {
  std::vector<std::string> args;
  std::string pool;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-pool" || a == "--pool") && i + 1 < argc) {
      pool = argv[++i];
      continue;
    }
    args.push_back(a);
  }
  const int32_t offset = local_utc_offset();
  accountant::UserprioRequest req =
      accountant::parse_userprio_args(args, std::time(nullptr), offset);
  if (req.kind == accountant::UserprioRequest::Kind::kUsage) {
    if (!req.error.empty()) std::fprintf(stderr, "kite userprio: %s\n", req.error.c_str());
    std::fputs(kUsage, stderr);
    return 1;
  }
  std::string err;
  if (!cm_address(pool, &pool, &err)) {
    std::fprintf(stderr, "kite userprio: %s\n", err.c_str());
    return 1;
  }
  pool = pool.substr(0, pool.find_first_of(", "));  // the first central manager
  core::Json msg = core::Json::message("userprio");
  cJSON* list = cJSON_CreateArray();
  for (const std::string& a : args) cJSON_AddItemToArray(list, cJSON_CreateString(a.c_str()));
  msg.set_json("args", core::Json(list));
  msg.set("utc_offset", offset);
  std::string output;
  int rc = 1;
  bool sent = cm_request(
      pool, "the userprio request", msg,
      [&](core::Json& r, bool* done) {
        if (r.type() != "userprio-reply") return false;
        output = r.str("output");
        rc = static_cast<int>(r.num("exit", 1));
        *done = true;
        return true;
      },
      &err);
  if (!sent) {
    std::fprintf(stderr, "kite userprio: %s\n", err.c_str());
    return 1;
  }
  std::fputs(output.c_str(), rc == 0 ? stdout : stderr);
  return rc;
}

}  // namespace kite::cli
