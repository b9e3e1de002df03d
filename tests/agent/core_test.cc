// Tests of agent/core: frame encoding and the incremental reader's limits and errors, atomic
// state files, rm -rf without following symlinks, log rotation, the pid-file lock, the
// kernel's record of a socket peer's groups.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent/core/frame.h"
#include "agent/core/lock_file.h"
#include "agent/core/log.h"
#include "agent/core/sock.h"

namespace kite::core {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/kite-core-XXXXXX";
  const char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "/tmp";
}

TEST(Json, NumbersFromOutsideAreClampedOrDefaultNeverCastBlindly) {
  core::Json j = core::Json::object();
  cJSON_AddNumberToObject(j.get(), "nan", std::nan(""));
  cJSON_AddNumberToObject(j.get(), "inf", HUGE_VAL);
  cJSON_AddNumberToObject(j.get(), "huge", 1e300);
  cJSON_AddNumberToObject(j.get(), "tiny", -1e300);
  cJSON_AddNumberToObject(j.get(), "frac", -2.75);
  EXPECT_EQ(j.num("nan", 7), 7);
  EXPECT_EQ(j.num("inf", 7), 7);
  EXPECT_EQ(j.num("huge", 7), INT64_MAX);
  EXPECT_EQ(j.num("tiny", 7), INT64_MIN);
  EXPECT_EQ(j.num("frac", 7), -2);
  EXPECT_EQ(j.num("absent", 7), 7);
}

TEST(Json, StringsAreEscapedWhereverTheByteFallsInAWord) {
  // Bytes that need escaping at each place of an 8-byte word, next to UTF-8 and to bytes just
  // above the control range; the rest passes in words.
  std::string out;
  core::append_json_string(&out, "abcdefgh\"ijklmno\\pq\x1frstuvw\x7f\xc3\xa9 !#xyz12345678\n");
  EXPECT_EQ(out, "\"abcdefgh\\\"ijklmno\\\\pq\\u001frstuvw\x7f\xc3\xa9 !#xyz12345678\\u000a\"");
  for (size_t at = 0; at < 17; ++at) {
    std::string text(17, 'x');
    text[at] = '\t';
    out.clear();
    core::append_json_string(&out, text);
    EXPECT_EQ(out, "\"" + std::string(at, 'x') + "\\u0009" + std::string(16 - at, 'x') + "\"")
        << at;
  }
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

TEST(Frame, AReaderMayTakeLessThanTheMaximum) {
  std::string body = "{\"type\":\"" + std::string(1100, 'x') + "\"}";
  std::string wire = std::string(2, '\0') + static_cast<char>(body.size() >> 8) +
                     static_cast<char>(body.size() & 0xff) + body;
  FrameReader small(1024);
  small.feed(wire.data(), wire.size());
  Json m;
  std::string err;
  EXPECT_EQ(small.next(&m, &err), FrameReader::Result::kError);
  EXPECT_EQ(err, "frame of " + std::to_string(body.size()) + " bytes is over the 1 KiB limit");
  EXPECT_TRUE(small.broken());
  FrameReader big(8u << 20);  // asks for more than any Kite socket takes: kMaxFrame
  const char len[4] = {0, 0x10, 0, 1};
  big.feed(len, 4);
  EXPECT_EQ(big.next(&m, &err), FrameReader::Result::kError);
  EXPECT_NE(err.find("over the 1 MiB limit"), std::string::npos) << err;
  FrameReader fits(2048);
  fits.feed(wire.data(), wire.size());
  ASSERT_EQ(fits.next(&m, &err), FrameReader::Result::kMessage) << err;
  EXPECT_EQ(m.type().size(), 1100u);
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

TEST(Log, UtcTimeFields) {
  struct Case {
    int64_t t;
    int64_t year;
    int month, day, hour, minute, second;
  };
  // Written out by hand: the epoch, the second before it, a leap day of a 400-year leap year,
  // the first day after a non-leap century's February, and the last second of year 9999.
  const Case cases[] = {{0, 1970, 1, 1, 0, 0, 0},
                        {-1, 1969, 12, 31, 23, 59, 59},
                        {951782400, 2000, 2, 29, 0, 0, 0},
                        {4107542400, 2100, 3, 1, 0, 0, 0},
                        {1795306376, 2026, 11, 22, 0, 12, 56},
                        {253402300799, 9999, 12, 31, 23, 59, 59}};
  for (const Case& c : cases) {
    UtcTime u = utc_time(c.t);
    EXPECT_EQ(u.year, c.year) << c.t;
    EXPECT_EQ(u.month, c.month) << c.t;
    EXPECT_EQ(u.day, c.day) << c.t;
    EXPECT_EQ(u.hour, c.hour) << c.t;
    EXPECT_EQ(u.minute, c.minute) << c.t;
    EXPECT_EQ(u.second, c.second) << c.t;
  }
  // And glibc's gmtime_r agrees every 9973 seconds (odd hours and days) over 1900-2200.
  for (int64_t t = -2208988800; t < 7258118400; t += 9973 * 97) {
    time_t tt = static_cast<time_t>(t);
    struct tm tm {};
    ASSERT_NE(gmtime_r(&tt, &tm), nullptr);
    UtcTime u = utc_time(t);
    ASSERT_EQ(u.year, tm.tm_year + 1900) << t;
    ASSERT_EQ(u.month, tm.tm_mon + 1) << t;
    ASSERT_EQ(u.day, tm.tm_mday) << t;
    ASSERT_EQ(u.hour * 3600 + u.minute * 60 + u.second,
              tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec)
        << t;
  }
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

TEST(LockFile, ASecondLockIsRefusedNamingTheHolder) {
  std::string d = temp_dir(), err;
  std::string path = d + "/agent.lock";
  pid_t holder = -1;
  int fd = lock_file(path, &holder, &err);
  ASSERT_GE(fd, 0) << err;
  EXPECT_EQ(holder, 0);
  std::string text;
  ASSERT_TRUE(read_file(path, &text, &err)) << err;
  EXPECT_EQ(text, std::to_string(getpid()) + "\n");
  // flock belongs to the open file: a second open, even in this process, is refused.
  EXPECT_EQ(lock_file(path, &holder, &err), -1);
  EXPECT_EQ(holder, getpid());
  EXPECT_NE(err.find(path + " is locked by another process"), std::string::npos) << err;
  close(fd);
  fd = lock_file(path, &holder, &err);
  EXPECT_GE(fd, 0) << err;
  close(fd);
  EXPECT_EQ(lock_file(d + "/missing/agent.lock", &holder, &err), -1);
  EXPECT_NE(err.find("missing/agent.lock"), std::string::npos) << err;
  ASSERT_TRUE(remove_tree(d, &err)) << err;
}

TEST(Sock, PeerGroupsAreTheConnectingProcesssGroups) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::vector<gid_t> got;
  std::string err;
  if (!peer_groups(sv[0], &got, &err)) {
    close(sv[0]);
    close(sv[1]);
    GTEST_SKIP() << "this kernel has no SO_PEERGROUPS: " << err;
  }
  std::vector<gid_t> mine(static_cast<size_t>(getgroups(0, nullptr)));
  ASSERT_EQ(getgroups(static_cast<int>(mine.size()), mine.data()), static_cast<int>(mine.size()));
  std::sort(got.begin(), got.end());
  std::sort(mine.begin(), mine.end());
  EXPECT_EQ(got, mine);
  uid_t uid = 1;
  gid_t gid = 1;
  pid_t pid = 0;
  ASSERT_TRUE(peer_credentials(sv[0], &uid, &gid, &pid));
  EXPECT_EQ(uid, geteuid());
  EXPECT_EQ(gid, getegid());
  EXPECT_EQ(pid, getpid());
  close(sv[0]);
  close(sv[1]);
}

}  // namespace
}  // namespace kite::core
