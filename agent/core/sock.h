// Blocking Unix-socket helpers for short-lived clients (the CLI, tests): connect, send one
// frame, wait for frames with a timeout; plus the peer-credential check servers use.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "agent/core/frame.h"

namespace kite::core {

/// Connects to a Unix stream socket. -1 with a message naming the path on failure.
int unix_connect(const std::string& path, std::string* err);
/// Binds and listens on a Unix stream socket (removing a stale socket file first).
int unix_listen(const std::string& path, int mode, std::string* err);
bool send_frame(int fd, const Json& msg, std::string* err);
/// Waits up to `timeout_ms` (< 0: forever) for the next frame. kNeedMore means timeout;
/// kError covers bad frames and a closed connection ("connection closed").
FrameReader::Result recv_frame(int fd, FrameReader* reader, Json* msg, int timeout_ms,
                               std::string* err);
/// The connected peer's uid/gid/pid (SO_PEERCRED), as the kernel recorded them at connect().
bool peer_credentials(int fd, uid_t* uid, gid_t* gid, pid_t* pid);
/// The connected peer's supplementary groups (SO_PEERGROUPS, Linux 4.13+), recorded by the
/// kernel at connect(): unlike /proc/<pid>, no race with the pid being reused. False (with
/// the reason) when the kernel cannot tell.
bool peer_groups(int fd, std::vector<gid_t>* out, std::string* err);

}  // namespace kite::core
