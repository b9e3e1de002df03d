// Reading job ads from a file as condor_q -jobads and condor_history -file do: old line
// syntax, one `Name = expr` per line, ads separated by blank lines, `...`/`***` lines (history
// banners) or `-- ` lines (condor_q headers); `#` lines are comments. A JSON array of ads
// (what -json prints) is read too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::queue {

// Parses every ad of `text` (read from `path`, named in errors). False with `err` naming the
// file, the line and what is wrong.
bool parse_job_ads(std::string_view text, const std::string& path, std::vector<classad::AdPtr>* out,
                   std::string* err);
// Reads and parses the file at `path` ("-" is stdin).
bool read_job_ads_file(const std::string& path, std::vector<classad::AdPtr>* out, std::string* err);

}  // namespace kite::queue
