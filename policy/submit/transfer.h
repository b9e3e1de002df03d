// Internal to policy/submit: file transfer as condor_submit settles it (should_transfer_files,
// when_to_transfer_output, transfer_input_files, transfer_output_files, transfer_output_remaps):
// the attributes it writes, the Requirements clause it asks for, and its errors.
#pragma once

#include <string>

#include "policy/submit/submit.h"

namespace kite::submit {

enum class ShouldTransfer { kNo, kYes, kIfNeeded };

/// The transfer commands as the submit file gives them; null when not given.
struct TransferCommands {
  const std::string* should = nullptr;  // should_transfer_files
  const std::string* when = nullptr;    // when_to_transfer_output
  const std::string* input = nullptr;   // transfer_input_files
  const std::string* output = nullptr;  // transfer_output_files
  const std::string* remaps = nullptr;  // transfer_output_remaps
};

/// What the job ad gets.
struct TransferPlan {
  ShouldTransfer should = ShouldTransfer::kIfNeeded;
  std::string should_text = "IF_NEEDED";  // ShouldTransferFiles
  std::string when_text;                  // WhenToTransferOutput; empty: not written
  bool has_input = false;                 // TransferInput: files given
  std::string input;                      // ... joined by ','
  bool has_output = false;                // TransferOutput: the command given
  std::string output;
  std::string remaps;  // TransferOutputRemaps (quotes stripped); empty: not written
};

/// condor_submit's SetTransferFiles rules; an error (message without "ERROR: ") for a bad
/// value or a contradiction.
Status plan_transfer(const TransferCommands& in, TransferPlan* out);

}  // namespace kite::submit
