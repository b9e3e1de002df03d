// File transfer commands: what condor_submit's SetTransferFiles and SetRequirements write for
// should_transfer_files, when_to_transfer_output, the transfer lists and remaps, and the
// contradictions it refuses (HTCondor submit_utils.cpp; messages as print_wrapped_text
// prints them).
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

constexpr const char* kBase =
    "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && "
    "(versionGE(split(TARGET.CondorVersion)[1],\"25.12.0\") || (TARGET.Disk >= RequestDisk)) && "
    "(TARGET.Memory >= RequestMemory)";

// should_transfer_files = YES: "(TARGET.HasFileTransfer)" alone, no FileSystemDomain
// attribute; NO: "(TARGET.FileSystemDomain == MY.FileSystemDomain)" and no
// WhenToTransferOutput (it becomes NEVER when not given).
TEST_F(SubmitTest, ShouldTransferFilesSetsTheClauseAndTheAttributes) {
  Result yes = run("executable = job.sh\nshould_transfer_files = yes\nqueue\n");
  expect_attrs(yes, 0,
               {{"Requirements", std::string(kBase) + " && (TARGET.HasFileTransfer)"},
                {"ShouldTransferFiles", "\"YES\""},
                {"WhenToTransferOutput", "\"ON_EXIT\""},
                {"FileSystemDomain", "<absent>"}});
  Result no = run("executable = job.sh\nshould_transfer_files = NEVER\nqueue\n");
  expect_attrs(no, 0,
               {{"Requirements",
                 std::string(kBase) + " && (TARGET.FileSystemDomain == MY.FileSystemDomain)"},
                {"ShouldTransferFiles", "\"NO\""},
                {"WhenToTransferOutput", "<absent>"},
                {"FileSystemDomain", "\"example.org\""}});
  Result evict =
      run("executable = job.sh\nShouldTransferFiles = ALWAYS\nwhen_to_transfer_output = always\n"
          "queue\n");
  expect_attrs(
      evict, 0,
      {{"ShouldTransferFiles", "\"YES\""}, {"WhenToTransferOutput", "\"ON_EXIT_OR_EVICT\""}});
}

TEST_F(SubmitTest, TransferListsAreTrimmedAndJoinedWithCommas) {
  Result r =
      run("executable = job.sh\ntransfer_input_files = in.txt , work/params.txt,\n"
          "transfer_output_files = a, b\ntransfer_output_remaps = \"a = x/a; b=y/b\"\nqueue\n");
  expect_attrs(r, 0,
               {{"TransferInput", "\"in.txt,work/params.txt\""},
                {"TransferOutput", "\"a,b\""},
                {"TransferOutputRemaps", "\"a = x/a; b=y/b\""},
                {"ShouldTransferFiles", "\"IF_NEEDED\""}});
  Result none = run("executable = job.sh\nqueue\n");
  expect_attrs(none, 0, {{"TransferInput", "<absent>"}, {"TransferOutputRemaps", "<absent>"}});
}

// A Requirements that names HasFileTransfer gets no transfer clause; one that names
// FileSystemDomain keeps only "(TARGET.HasFileTransfer)".
TEST_F(SubmitTest, UserReferencesToTransferAttributesDropTheirClause) {
  Result r = run("executable = job.sh\nrequirements = HasFileTransfer\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Requirements"), "(HasFileTransfer) && " + std::string(kBase));
  Result f =
      run("executable = job.sh\nrequirements = FileSystemDomain == \"x\"\nshould_transfer_files = "
          "NO\nqueue\n");
  EXPECT_EQ(attr(f, 0, "Requirements"), "(FileSystemDomain == \"x\") && " + std::string(kBase));
}

TEST_F(SubmitTest, TransferContradictionsAreErrors) {
  EXPECT_EQ(error("executable = job.sh\nshould_transfer_files = maybe\nqueue\n"),
            "invalid value (maybe) for ShouldTransferFiles. Please either specify \n"
            "YES, NO, or IF_NEEDED and try again.");
  expect_error(
      "executable = job.sh\nshould_transfer_files = NO\ntransfer_input_files = in.txt\n"
      "queue\n",
      "but you disabled should_transfer_files.");
  expect_error("executable = job.sh\nwhen_to_transfer_output = ON_EXIT_OR_EVICT\nqueue\n",
               "are incompatible.");
  expect_error(
      "executable = job.sh\nshould_transfer_files = NO\nwhen_to_transfer_output = "
      "ON_EXIT\nqueue\n",
      "WhenToTransferOutput specified as ON_EXIT yet ShouldTransferFiles");
  expect_error("executable = job.sh\nwhen_to_transfer_output = later\nqueue\n",
               "invalid value (later) for WhenToTransferOutput.");
}

}  // namespace
}  // namespace kite::submit::testing
