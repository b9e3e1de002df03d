// condor_userprio's options: display modes, -activefrom, -af attributes, edit options.
#include "policy/accountant/userprio_options.h"

#include <cstdlib>
#include <ctime>

namespace kite::accountant {
namespace {

bool parse_int(const std::string& s, int* out) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size()) return false;
  *out = int(v);
  return true;
}

UserprioRequest usage_error(std::string why) {
  UserprioRequest r;
  r.kind = UserprioRequest::Kind::kUsage;
  r.error = std::move(why);
  return r;
}

}  // namespace

UserprioRequest parse_userprio_args(const std::vector<std::string>& args, int64_t now,
                                    int32_t utc_offset) {
  UserprioRequest r;
  r.view.now = now;
  r.view.utc_offset = utc_offset;
  std::string error;
  if (parse_userprio_edit(args, &r.edit, &error)) {
    r.kind = UserprioRequest::Kind::kEdit;
    return r;
  }
  if (!error.empty()) return usage_error(error);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-all") {
      r.view.table = UserprioTable::kAll;
    } else if (a == "-usage") {
      r.view.table = UserprioTable::kUsage;
    } else if (a == "-most" || a == "-priority") {
      r.view.table = UserprioTable::kDefault;
    } else if (a == "-flat") {
      r.view.flat = true;
    } else if (a == "-hierarchical") {
      r.view.flat = false;
    } else if (a == "-grouprollup") {
      r.view.group_rollup = true;
    } else if (a == "-allusers") {
      r.view.all_users = true;
    } else if (a == "-quotas") {
      r.kind = UserprioRequest::Kind::kQuotas;
    } else if (a == "-long" || a == "-l") {
      r.kind = UserprioRequest::Kind::kLong;
    } else if (a == "-help" || a == "-h") {
      return usage_error("");
    } else if (a == "-json") {
      return usage_error("");  // condor_userprio 25 has no -json: it prints the usage
    } else if (a == "-activefrom") {
      int month = 0, day = 0, year = 0;
      if (i + 3 >= args.size() || !parse_int(args[i + 1], &month) ||
          !parse_int(args[i + 2], &day) || !parse_int(args[i + 3], &year) || month < 1 ||
          month > 12 || day < 1 || day > 31 || year < 1970)
        return usage_error("-activefrom needs <month> <day> <year>");
      std::tm tm{};
      tm.tm_year = year - 1900;
      tm.tm_mon = month - 1;
      tm.tm_mday = day;
      const int64_t from = int64_t(timegm(&tm)) - utc_offset;
      r.view.active_window = now - from;
      i += 3;
    } else if (a.rfind("-af", 0) == 0 || a.rfind("-autoformat", 0) == 0) {
      size_t colon = a.find(':');
      std::string word = a.substr(0, colon);
      if (word != "-af" && word != "-autoformat") return usage_error("unknown option " + a);
      r.kind = UserprioRequest::Kind::kAf;
      r.af_header = colon != std::string::npos && a.find('h', colon) != std::string::npos;
      while (i + 1 < args.size() && args[i + 1].rfind("-", 0) != 0) r.af_attrs.push_back(args[++i]);
      if (r.af_attrs.empty()) return usage_error(a + " needs at least one attribute");
    } else if (a == "-pool" || a == "-name") {
      if (i + 1 >= args.size()) return usage_error(a + " needs a value");
      ++i;  // the CLI finds the CM itself
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else {
      r.view.users.push_back(a);
    }
  }
  return r;
}

}  // namespace kite::accountant
