// The job's Out/Err as carried back in its exit frame (the last LOCAL_RUN_OUTPUT_BYTES, at most
// 64 KiB each), written where the submit file asked (relative to Iwd), as the job's Owner.
#pragma once

#include <string>

#include "agent/core/frame.h"
#include "policy/classad/classad.h"

namespace kite::negotiator {

/// Writes exit.stdout to the job's Out and exit.stderr to its Err. False with `err` (naming the
/// file) when one could not be written; the other is still attempted.
bool write_job_output(const classad::ClassAd& job, const core::Json& exit, std::string* err);

}  // namespace kite::negotiator
