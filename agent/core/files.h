// Small file helpers the agent and starter share: atomic replace (temp file, fsync, rename,
// fsync of the directory) for state files that must survive a crash, and whole-file reads.
#pragma once

#include <string>

namespace kite::core {

/// How far an atomic write must survive: a crash of any process (rename in the page cache is
/// enough), or also a power cut (fsync of the file and its directory, milliseconds on ext4).
enum class Durability { kProcessCrash, kPowerCut };

/// Writes `data` to `path` so that a reader sees either the old or the new file, never a
/// torn one: through a temporary of its own (path.tmp.<pid>.<n>), then rename; with
/// kPowerCut the file and its directory are synced. A short write, a failed close or sync is
/// an error: false with a message naming the path (the rename may have happened when only
/// the directory sync failed).
bool write_file_atomic(const std::string& path, const std::string& data, int mode, std::string* err,
                       Durability durability = Durability::kPowerCut);
/// Reads a whole file (up to `limit` bytes). False with a message on failure.
bool read_file(const std::string& path, std::string* out, std::string* err,
               size_t limit = 16u << 20);
/// mkdir -p with `mode` for the directories it creates.
bool make_dirs(const std::string& path, int mode, std::string* err);
/// rm -rf that does not follow symlinks; false with a message when something stays.
bool remove_tree(const std::string& path, std::string* err);

}  // namespace kite::core
