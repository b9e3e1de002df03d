// Text helpers for reading configuration values in the startd core.
#include "policy/startd/text_util.h"

#include <strings.h>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"

namespace kite::startd {

bool cfg_bool(const config::Config& cfg, const char* name, bool* out) {
  bool found = false;
  return config::read_bool(cfg, name, out, &found).ok && found;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n'))
    --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_list(std::string_view s) {
  return config::split_list(s);
}

}  // namespace kite::startd
