// Small text helpers the startd core shares for reading configuration values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kite::startd {

// `s` without leading and trailing blanks (space, tab, CR, LF).
std::string trim(std::string_view s);
// Items of a comma- or whitespace-separated list, empty items dropped.
std::vector<std::string> split_list(std::string_view s);

}  // namespace kite::startd
