// Appends job events to the event log a job's submit file named (`log` -> UserLog, relative
// to Iwd), as the schedd does on submit, hold, release and removal.
#pragma once

#include <string>

#include "policy/classad/classad.h"

namespace kite::queue {

// The job's event log path, or "" when the job has none.
std::string job_log_path(const classad::ClassAd& job);
// Appends `text` (one or more formatted events) to `path` in one write. False with `err`.
bool append_job_log(const std::string& path, const std::string& text, std::string* err);

}  // namespace kite::queue
