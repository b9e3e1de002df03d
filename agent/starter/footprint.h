// Keeping the starter's resident memory small: once the job runs, the start-up code (job.json
// and ClassAd parsing, cgroup set-up) is not needed again, yet its pages stay mapped. The
// read-only parts of the binary are dropped from this process's page tables; what the event
// loop touches later faults back in from the page cache (shared with every other starter).
#pragma once

namespace kite::starter {

/// madvise(MADV_DONTNEED) on the binary's read-only PT_LOAD segments (never on writable or
/// RELRO ones, whose pages may hold relocated data). No-op where that is not possible.
void footprint_trim();

}  // namespace kite::starter
