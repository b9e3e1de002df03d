// Text helpers for reading configuration values in the startd core.
#include "policy/startd/text_util.h"

#include <strings.h>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/config.h"

namespace kite::startd {

bool cfg_bool(const config::Config& cfg, const char* name, bool* out) {
  std::string v;
  if (!cfg.get(name, &v)) return false;
  v = trim(v);
  for (const char* t : {"true", "yes", "1"}) {
    if (strcasecmp(v.c_str(), t) == 0) return *out = true, true;
  }
  for (const char* f : {"false", "no", "0"}) {
    if (strcasecmp(v.c_str(), f) == 0) return *out = false, true;
  }
  classad::ExprPtr e = classad::parse_expr(v);
  if (!e) return false;
  classad::Value r = classad::evaluate(e.get());
  if (!r.is_boolean()) return false;
  *out = r.as_boolean();
  return true;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n'))
    --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace kite::startd
