// The last bytes of the job's stdout/stderr files for the exit frame (return_output), made
// valid UTF-8 so that they travel as JSON strings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kite::starter {

/// Up to `max` bytes from the end of `path` if it is a regular file; "" otherwise.
std::string output_tail(const std::string& path, size_t max);
/// Replaces bytes that are not part of a well-formed UTF-8 sequence with '?'.
std::string utf8_clean(std::string_view s);

}  // namespace kite::starter
