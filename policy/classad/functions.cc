// The function registry: all group tables merged into one case-insensitive
// lookup, built once on first use.
#include "policy/classad/functions.h"

#include <strings.h>
#include <algorithm>
#include <string>
#include <vector>

namespace kite::classad {
namespace {

struct Registry {
  std::vector<std::pair<std::string, const FunctionEntry*>> sorted;  // lower-case names
};

const Registry& registry() {
  static const Registry* r = [] {
    auto* reg = new Registry();
    FunctionTable (*groups[])() = {functions_core, functions_math,  functions_string,
                                   functions_list, functions_regex, functions_stringlist,
                                   functions_time, functions_env};
    for (auto group : groups) {
      FunctionTable t = group();
      for (size_t i = 0; i < t.count; ++i) {
        std::string key(t.entries[i].name);
        for (char& c : key) {
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        reg->sorted.emplace_back(std::move(key), &t.entries[i]);
      }
    }
    std::stable_sort(reg->sorted.begin(), reg->sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    return reg;
  }();
  return *r;
}

}  // namespace

const FunctionEntry* function_find(std::string_view name) {
  std::string key(name);
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  const auto& v = registry().sorted;
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [](const auto& a, const std::string& k) { return a.first < k; });
  if (it != v.end() && it->first == key) return it->second;
  return nullptr;
}

}  // namespace kite::classad
