// The `use CATEGORY : NAME` templates (meta-knobs) Kite ships, compiled into the binary: the
// lookup over the tables of templates_policy.cc, templates_feature.cc and templates_security.cc.
#include <strings.h>

#include <cstring>

#include "policy/config/internal.h"

namespace kite::config::internal {

const Template* template_find(std::string_view category, std::string_view name) {
  for (TemplateTable table : {policy_templates(), feature_templates(), security_templates()}) {
    for (size_t i = 0; i < table.count; ++i) {
      const Template& t = table.first[i];
      if (category.size() == strlen(t.category) && name.size() == strlen(t.name) &&
          strncasecmp(t.category, category.data(), category.size()) == 0 &&
          strncasecmp(t.name, name.data(), name.size()) == 0) {
        return &t;
      }
    }
  }
  return nullptr;
}

bool template_category_known(std::string_view category) {
  static const char* const kCategories[] = {"POLICY", "FEATURE", "ROLE", "SECURITY"};
  for (const char* c : kCategories) {
    if (category.size() == strlen(c) && strncasecmp(c, category.data(), category.size()) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace kite::config::internal
