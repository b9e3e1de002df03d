// File transfer as condor_submit settles it (see transfer.h).
// HTCONDOR: submit_utils.cpp SetTransferFiles; condor_utils' ShouldTransferFilesTranslation and
// FileTransferOutputTranslation name tables.
#include "policy/submit/transfer.h"

#include <strings.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "policy/config/internal.h"

namespace kite::submit {
namespace {

using config::internal::trim;

struct Name {
  const char* text;
  int value;
};
enum When { kOnExitOrEvict, kOnExit, kNone, kOnSuccess };
// The first name listed for a value is the one written.
const Name kShouldNames[] = {{"YES", 1},   {"TRUE", 1},  {"ALWAYS", 1},    {"NO", 0},
                             {"FALSE", 0}, {"NEVER", 0}, {"IF_NEEDED", 2}, {"AUTO", 2}};
const Name kWhenNames[] = {{"ON_EXIT_OR_EVICT", kOnExitOrEvict},
                           {"ALWAYS", kOnExitOrEvict},
                           {"ON_EXIT", kOnExit},
                           {"ONEXIT", kOnExit},
                           {"NONE", kNone},
                           {"NULL", kNone},
                           {"ON_SUCCESS", kOnSuccess},
                           {"ONSUCCESS", kOnSuccess}};

template <size_t N>
int lookup(const Name (&names)[N], std::string_view text) {
  for (const Name& n : names) {
    if (text.size() == std::strlen(n.text) && strncasecmp(text.data(), n.text, text.size()) == 0) {
      return n.value;
    }
  }
  return -1;
}

template <size_t N>
const char* name_of(const Name (&names)[N], int value) {
  for (const Name& n : names) {
    if (n.value == value) return n.text;
  }
  return "";
}

// A list command's value: surrounding quotes stripped, split at commas, each file trimmed,
// empty ones dropped (HTCondor's split()).
std::vector<std::string> files(const std::string& value) {
  std::string_view s = trim(value);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = trim(s.substr(1, s.size() - 2));
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && s[i] != ',') continue;
    std::string_view f = trim(s.substr(begin, i - begin));
    if (!f.empty()) out.emplace_back(f);
    begin = i + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// condor_submit prints these errors with print_wrapped_text: words re-joined by single blanks,
// a line break before a word that would reach column 78. Returned without the "ERROR: " the
// caller prints.
Status wrapped_error(const std::string& text) {
  std::string all = "\nERROR: " + text;
  std::string out;
  int count = 0;
  size_t i = 0;
  while (i < all.size()) {
    size_t j = all.find_first_of(" \t", i);
    if (j == std::string::npos) j = all.size();
    if (j > i) {
      int len = static_cast<int>(j - i);
      if (len < 78 - count) {
        out.append(all, i, j - i);
        count += len;
      } else {
        out += '\n';
        out.append(all, i, j - i);
        count = len;
      }
      if (count < 78) {
        out += ' ';
        ++count;
      } else {
        out += '\n';
        count = 0;
      }
    }
    i = j + 1;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return Status::Error(out.substr(std::strlen("\nERROR: ")));
}

}  // namespace

Status plan_transfer(const TransferCommands& in, TransferPlan* out) {
  *out = TransferPlan{};
  bool default_should = in.should == nullptr;
  int should = 2;
  if (in.should) {
    should = lookup(kShouldNames, trim(*in.should));
    if (should < 0) {
      return wrapped_error("invalid value (" + *in.should +
                           ") for ShouldTransferFiles.  Please either specify YES, NO, or "
                           "IF_NEEDED and try again.");
    }
  }
  std::vector<std::string> input, output;
  if (in.input) input = files(*in.input);
  if (in.output) output = files(*in.output);
  bool in_given = !input.empty();
  bool out_given = in.output != nullptr;
  if (should == 0 && (in_given || out_given)) {
    std::string which = in_given
                            ? (out_given ? "transfer_input_files\" and \"transfer_output_files\","
                                         : "transfer_input_files\",")
                            : "transfer_output_files\",";
    return wrapped_error("you specified files you want Condor to transfer via \"" + which +
                         " but you disabled should_transfer_files.");
  }
  bool default_when = in.when == nullptr;
  int when = kOnExit;
  if (in.when) {
    when = lookup(kWhenNames, trim(*in.when));
    if (when < 0) {
      return wrapped_error("invalid value (" + *in.when +
                           ") for WhenToTransferOutput.  Please either specify ON_EXIT, or "
                           "ON_EXIT_OR_EVICT and try again.");
    }
  }
  std::string when_word = in.when ? std::string(trim(*in.when)) : "ON_EXIT";
  if (!default_should && default_when && should == 0) {
    when = kNone;
    when_word = "NEVER";
  }
  if ((should == 0 && when != kNone) || (should != 0 && when == kNone)) {
    return wrapped_error("WhenToTransferOutput specified as " + when_word +
                         " yet ShouldTransferFiles defined as " +
                         (in.should ? std::string(trim(*in.should)) : "IF_NEEDED") +
                         ".  Please remove this contradiction from your submit file and try "
                         "again.");
  }
  if (when == kOnExitOrEvict && should == 2) {
    return wrapped_error(
        "\"when_to_transfer_output = ON_EXIT_OR_EVICT\" and \"should_transfer_files = "
        "IF_NEEDED\" are incompatible.  The behavior of these two settings together would "
        "produce incorrect file access in some cases.  Please decide which one of those two "
        "settings you're more interested in. If you really want \"IF_NEEDED\", set "
        "\"when_to_transfer_output = ON_EXIT\".  If you really want \"ON_EXIT_OR_EVICT\", "
        "please set \"should_transfer_files = YES\".  After you have corrected this "
        "incompatibility, please try running condor_submit again.");
  }
  out->should = should == 0   ? ShouldTransfer::kNo
                : should == 1 ? ShouldTransfer::kYes
                              : ShouldTransfer::kIfNeeded;
  out->should_text = name_of(kShouldNames, should);
  if (should != 0) {
    out->when_text = name_of(kWhenNames, when);
    out->has_input = in_given;
    out->input = join(input);
    out->has_output = out_given;
    out->output = join(output);
  }
  if (in.remaps) {
    std::string_view r = trim(*in.remaps);
    if (r.size() >= 2 && r.front() == '"' && r.back() == '"') r = r.substr(1, r.size() - 2);
    out->remaps = std::string(r);
  }
  return Status::Ok();
}

}  // namespace kite::submit
