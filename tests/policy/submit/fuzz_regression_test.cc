// Replays inputs the submit fuzzer (tests/fuzz/submit_fuzz.cc) once crashed on; each must now
// fail with a message naming file and line, or succeed with values that read back as
// expressions. Inputs live in tests/data/submit/fuzz/.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "policy/classad/parser.h"
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

TEST_F(SubmitTest, FuzzRegressionReplayKeptInputs) {
  std::vector<std::string> files;
  for (const auto& e :
       std::filesystem::directory_iterator(KITE_SOURCE_DIR "/tests/data/submit/fuzz")) {
    files.push_back(e.path().string());
  }
  ASSERT_FALSE(files.empty());
  opts_.max_procs = 200;
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    Result r;
    Status st = submit_text(ss.str(), "fuzz.sub", opts_, &r);
    if (!st.ok) {
      EXPECT_NE(st.message.find("fuzz.sub"), std::string::npos) << st.message;
      continue;
    }
    for (size_t i = 0; i < r.procs.size(); ++i) {
      for (const Attr& a : r.merged(i)) {
        EXPECT_TRUE(classad::parse_expr(a.value)) << a.name << " = " << a.value;
      }
    }
  }
}

TEST_F(SubmitTest, NulBytesAreRejectedWithTheLine) {
  std::string text = std::string("executable = job.sh\n+A = \"x") + '\0' + "y\"\nqueue\n";
  Result r;
  Status st = submit_text(text, "test.sub", opts_, &r);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("on Line 2 of test.sub"), std::string::npos) << st.message;
}

TEST_F(SubmitTest, OnlyRegularFilesAreRead) {
  std::string msg = error("executable = job.sh\nqueue x from /dev/null\n");
  EXPECT_EQ(msg.find("/dev/null is not a regular file") != std::string::npos, true) << msg;
}

TEST_F(SubmitTest, ProcLimit) {
  opts_.max_procs = 10;
  EXPECT_NE(error("executable = job.sh\nqueue 11\n").find("more than 10 procs"), std::string::npos);
}

}  // namespace
}  // namespace kite::submit::testing
