// An exclusive lock on a file, held by a process for as long as it lives (one agent per
// LOCAL_DIR): flock(2), so the kernel releases it when the process dies, however it dies.
#pragma once

#include <sys/types.h>

#include <string>

namespace kite::core {

/// Opens (creating) `path`, takes flock(LOCK_EX) without waiting and writes our pid into it.
/// The descriptor (close-on-exec, so children do not keep the lock) or -1 with the reason;
/// when another process holds the lock, *holder is the pid it wrote (0 if unknown).
int lock_file(const std::string& path, pid_t* holder, std::string* err);

}  // namespace kite::core
