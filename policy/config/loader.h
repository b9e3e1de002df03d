// The configuration loader's internals: where parsed text comes from (a file, or a template
// used from a file line) and the Loader that turns statements into the macro table.
// Internal to policy/config.
#pragma once

#include <string>
#include <string_view>

#include "policy/config/config.h"
#include "policy/config/line_reader.h"

namespace kite::config {

constexpr int kMaxIncludeDepth = 16;
constexpr int kMaxTemplateDepth = 16;
constexpr size_t kMaxValueBytes = 1 << 20;  // a value (after self-reference expansion)
constexpr size_t kMaxFileBytes = 16 << 20;

/// Where the text being parsed comes from: a file, or a template used from a file line.
struct Origin {
  std::string file;
  int outer_line = 0;  // templates: the line of the file's `use`
  std::string meta;    // templates: "use POLICY:DESKTOP"
  std::string_view text;

  std::string where(int index) const {  // index: 0-based physical line
    char buf[64];
    if (meta.empty()) {
      std::snprintf(buf, sizeof buf, ", line %d", index + 1);
      return file + buf;
    }
    std::snprintf(buf, sizeof buf, ", line %d, ", outer_line);
    return file + buf + meta + "+" + std::to_string(index);
  }
};

struct Config::Loader {
  Config& cfg;
  int include_depth = 0;
  int template_depth = 0;

  explicit Loader(Config& c) : cfg(c) {}

  struct IfStack;

  Status parse(const Origin& o);
  Status assign_block(const Origin& o, int start, std::string_view name, std::string_view tag,
                      internal::LineReader& reader, bool on);
  Status keyword(const Origin& o, int start, std::string_view kw, std::string_view after,
                 IfStack* ifs);
  Status assign(const Origin& o, int line, std::string_view name, std::string value);
  Status do_use(const Origin& o, int line, std::string_view rest);
  Status do_include(const Origin& o, int line, std::string_view rest);
  Status eval_if(const Origin& o, int line, std::string_view cond, bool* result);
  bool lookup_parse_time(std::string_view name, std::string* raw);
  Status load_path(const std::string& path, bool missing_ok);
};

}  // namespace kite::config
