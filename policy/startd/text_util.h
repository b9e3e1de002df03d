// Small text helpers the startd core shares for reading configuration values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kite::config {
class Config;
}

namespace kite::startd {

// A macro's value as an integer; the value may be a ClassAd expression (5 * 60). False when
// undefined or not a number.
bool cfg_int(const config::Config& cfg, const char* name, int64_t* out);

// A macro as a boolean: true/false/yes/no/1/0 (any case) or an expression that evaluates to
// a boolean. False when undefined or not a boolean (*out untouched).
bool cfg_bool(const config::Config& cfg, const char* name, bool* out);

// `s` without leading and trailing blanks (space, tab, CR, LF).
std::string trim(std::string_view s);
// Items of a comma- or whitespace-separated list, empty items dropped.
std::vector<std::string> split_list(std::string_view s);

}  // namespace kite::startd
