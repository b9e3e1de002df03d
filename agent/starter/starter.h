// `kite starter --dir DIR`: the per-job supervisor the agent spawns (see protocol.h).
#pragma once

namespace kite::starter {

/// argv[0] = "starter". Exit status 0 after a release (or a lease-expired cleanup), non-zero
/// when it could not start (bad arguments, bad job.json, DIR already used by a starter).
int starter_main(int argc, char** argv);

}  // namespace kite::starter
