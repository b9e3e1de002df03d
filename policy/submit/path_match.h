// `queue matching` patterns expanded against the file system with fnmatch(3), component by
// component: glibc's glob(3) links the NSS user lookups (for `~user`), which the static image
// must not carry.
#pragma once

#include <string>
#include <vector>

namespace kite::submit {

/// The paths matching the absolute `pattern` (`*`, `?`, `[...]` in any component; a leading
/// dot matched only by a dot), sorted as glob(3) sorts them, directories with a trailing '/'.
/// At most `limit` results.
std::vector<std::string> match_paths(const std::string& pattern, size_t limit);

}  // namespace kite::submit
