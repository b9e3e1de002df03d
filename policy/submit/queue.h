// Internal to policy/submit: the queue statement (`queue [N] [VARS] [in|from|matching] ...`)
// parsed into its count, variable names and items.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/submit/submit.h"

namespace kite::submit {

struct QueueSpec {
  std::string count;              // the count expression as written ("" = 1)
  std::vector<std::string> vars;  // variable names (default Item when a list is given)
  bool has_items = false;         // in/from/matching
  std::vector<std::vector<std::string>> items;  // one field per variable, per item
  std::vector<int> rows;  // each item's index in the whole list ($(ItemIndex), $(Row))
};

/// Where a queue statement's list comes from: `text` is the statement after `queue` (with the
/// lines of a parenthesised list joined by '\n'); `cwd` resolves `from FILE` and `matching`;
/// `run` runs the command of `from COMMAND |`.
Status parse_queue(std::string_view text, const std::string& cwd,
                   const config::Config::CommandRunner& run, QueueSpec* out);

/// Reads a whole regular file of at most `limit` bytes (submit files, includes, item files).
Status read_text_file(const std::string& path, size_t limit, std::string* out);

/// True when the statement opens a parenthesised list it does not close on this line.
bool queue_list_open(std::string_view text);

}  // namespace kite::submit
