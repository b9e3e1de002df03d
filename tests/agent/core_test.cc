// Tests of agent/core: frame encoding and the incremental reader's limits and errors, atomic
// state files, rm -rf without following symlinks, log rotation.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "agent/core/files.h"
#include "agent/core/frame.h"
#include "agent/core/log.h"

namespace kite::core {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/kite-core-XXXXXX";
  const char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "/tmp";
}

TEST(Frame, RoundTripSplitAtEveryByte) {
  Json m = Json::message("usage");
  m.set("NumPids", 3).set("slot", "slot1_1").set_real("RemoteUserCpu", 1.5).set_bool("x", true);
  std::string wire = frame_encode(m) + frame_encode(Json::message("exit"));
  // Length prefix is big-endian.
  std::string body = m.dump();
  ASSERT_EQ(static_cast<unsigned char>(wire[3]), body.size() & 0xff);
  ASSERT_EQ(wire[0], 0);
  for (size_t cut = 0; cut <= wire.size(); ++cut) {
    FrameReader r;
    Json got;
    std::string err;
    r.feed(wire.data(), cut);
    int seen = 0;
    while (r.next(&got, &err) == FrameReader::Result::kMessage) ++seen;
    r.feed(wire.data() + cut, wire.size() - cut);
    while (r.next(&got, &err) == FrameReader::Result::kMessage) {
      ++seen;
      if (seen == 1) {
        EXPECT_EQ(got.type(), "usage");
        EXPECT_EQ(got.num("NumPids"), 3);
        EXPECT_EQ(got.str("slot"), "slot1_1");
        EXPECT_DOUBLE_EQ(got.real("RemoteUserCpu"), 1.5);
        EXPECT_TRUE(got.flag("x"));
      }
    }
    EXPECT_EQ(seen, 2) << "cut at " << cut;
    EXPECT_EQ(got.type(), "exit");
  }
}

TEST(Frame, OversizedFrameIsAnErrorAndBreaksTheStream) {
  FrameReader r;
  const char len[4] = {0, 0x10, 0, 1};  // 1 MiB + 1
  r.feed(len, 4);
  Json m;
  std::string err;
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
  EXPECT_NE(err.find("over the 1 MiB limit"), std::string::npos) << err;
  EXPECT_TRUE(r.broken());
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
}

TEST(Frame, BadJsonAndMissingTypeAreErrorsThenTheStreamGoesOn) {
  auto raw = [](const std::string& body) {
    std::string s(4, '\0');
    s[3] = static_cast<char>(body.size());
    return s + body;
  };
  FrameReader r;
  std::string wire = raw("{not json") + raw("[1,2]") + raw("{\"a\":1}") + raw("{\"type\":7}") +
                     frame_encode(Json::message("ok"));
  r.feed(wire.data(), wire.size());
  Json m;
  std::string err;
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
  EXPECT_NE(err.find("bad JSON"), std::string::npos) << err;
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
  EXPECT_NE(err.find("not an object"), std::string::npos) << err;
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
  EXPECT_NE(err.find("type"), std::string::npos) << err;
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kError);
  ASSERT_EQ(r.next(&m, &err), FrameReader::Result::kMessage);
  EXPECT_EQ(m.type(), "ok");
  EXPECT_EQ(r.next(&m, &err), FrameReader::Result::kNeedMore);
}

TEST(Files, AtomicWriteReplacesAndLeavesNoTemp) {
  std::string d = temp_dir();
  std::string p = d + "/state.json", err, got;
  ASSERT_TRUE(write_file_atomic(p, "one", 0600, &err)) << err;
  ASSERT_TRUE(write_file_atomic(p, "two", 0600, &err)) << err;
  ASSERT_TRUE(read_file(p, &got, &err)) << err;
  EXPECT_EQ(got, "two");
  EXPECT_NE(access((p + ".tmp").c_str(), F_OK), 0);
  struct stat st {};
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(write_file_atomic(d + "/missing/x", "y", 0600, &err));
  EXPECT_NE(err.find("missing/x"), std::string::npos) << err;
  EXPECT_FALSE(read_file(d + "/nope", &got, &err));
  EXPECT_NE(err.find("nope"), std::string::npos) << err;
  ASSERT_TRUE(remove_tree(d, &err)) << err;
}

TEST(Files, RemoveTreeDoesNotFollowSymlinks) {
  std::string d = temp_dir(), outside = temp_dir(), err;
  ASSERT_TRUE(make_dirs(d + "/a/b/c", 0700, &err)) << err;
  ASSERT_TRUE(write_file_atomic(outside + "/keep", "k", 0600, &err));
  ASSERT_TRUE(write_file_atomic(d + "/a/b/f", "f", 0600, &err));
  ASSERT_EQ(symlink(outside.c_str(), (d + "/a/link").c_str()), 0);
  ASSERT_TRUE(remove_tree(d, &err)) << err;
  EXPECT_NE(access(d.c_str(), F_OK), 0);
  EXPECT_EQ(access((outside + "/keep").c_str(), F_OK), 0);
  ASSERT_TRUE(remove_tree(outside, &err)) << err;
}

TEST(Log, RotatesBySizeKeepingOneGeneration) {
  std::string d = temp_dir(), err, got, old;
  ASSERT_TRUE(Log::open(d + "/agent.log", 400, &err)) << err;
  for (int i = 0; i < 20; ++i) KLOG_INFO("line %d of the log, padded to be long enough", i);
  Log::close();
  ASSERT_TRUE(read_file(d + "/agent.log", &got, &err)) << err;
  ASSERT_TRUE(read_file(d + "/agent.log.old", &old, &err)) << err;
  EXPECT_LE(got.size(), 400u);
  EXPECT_LE(old.size(), 400u);
  EXPECT_NE(got.find("line 19 of"), std::string::npos);
  EXPECT_NE(got.find(" INFO "), std::string::npos);
  EXPECT_EQ(got.back(), '\n');
  Log::set_level(LogLevel::kWarn);
  ASSERT_TRUE(Log::open(d + "/quiet.log", 0, &err));
  KLOG_INFO("hidden");
  KLOG_WARN("shown");
  Log::close();
  Log::set_level(LogLevel::kInfo);
  ASSERT_TRUE(read_file(d + "/quiet.log", &got, &err));
  EXPECT_EQ(got.find("hidden"), std::string::npos);
  EXPECT_NE(got.find("WARN shown"), std::string::npos);
  ASSERT_TRUE(remove_tree(d, &err)) << err;
}

}  // namespace
}  // namespace kite::core
