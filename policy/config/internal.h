// Internal tables of the configuration language: built-in defaults and `use` templates,
// compiled into the binary (defaults.cc, templates.cc). Not part of the public API.
#pragma once

#include <cstddef>
#include <string_view>

namespace kite::config::internal {

/// One built-in default. `matchable` defaults are HTCondor 25's param table: setting a macro that
/// is not yet set to exactly its default leaves it at <Default> (as condor_config_val reports).
/// Non-matchable ones are Kite fallbacks for knobs HTCondor leaves undefined.
struct Default {
  const char* name;
  const char* value;
  bool matchable;
};

/// A `use CATEGORY : NAME` template; `body` lines are numbered from 0 in sources.
struct Template {
  const char* category;  // upper case: POLICY, FEATURE, ROLE, SECURITY
  const char* name;      // spelled as HTCondor reports it ("DESKTOP", "StaticSlots")
  const char* body;
};

/// A compiled-in table of templates.
struct TemplateTable {
  const Template* first;
  size_t count;
};
TemplateTable policy_templates();
TemplateTable feature_templates();
TemplateTable security_templates();

/// `s` without leading and trailing blanks (space, tab, CR, FF, VT).
std::string_view trim(std::string_view s);

const Default* default_find(std::string_view name);
/// Whether `value` spells default `dflt`: the same text, or true/false in another case.
bool same_as_default(std::string_view dflt, std::string_view value);
const Default* defaults_all(int* count);
const Template* template_find(std::string_view category, std::string_view name);
bool template_category_known(std::string_view category);

}  // namespace kite::config::internal
