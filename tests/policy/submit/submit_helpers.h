// Test helpers for the submit language: a temporary submit directory with executables, and
// one-call submit/lookup helpers.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include "policy/submit/submit.h"

namespace kite::submit::testing {

class SubmitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kite-submit-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    write("job.sh", "#!/bin/sh\nexit 0\n", 0755);
    mkdir((dir_ + "/bin").c_str(), 0755);
    mkdir((dir_ + "/sub").c_str(), 0755);
    mkdir((dir_ + "/sub/deep").c_str(), 0755);
    write("bin/tool", "#!/bin/sh\n", 0755);
    opts_.cwd = dir_;
    opts_.user = "alice";
    opts_.filesystem_domain = "example.org";
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }

  void write(const std::string& name, const std::string& text, int mode = 0644) {
    std::string path = dir_ + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    std::fputs(text.c_str(), f);
    std::fclose(f);
    chmod(path.c_str(), mode);
  }

  /// Submits `text` (as file "test.sub"); a failure is a test failure.
  Result run(const std::string& text) {
    Result r;
    Status st = submit_text(text, "test.sub", opts_, &r);
    EXPECT_TRUE(st.ok) << st.message;
    return r;
  }
  /// Submits `text` expecting an error; returns its message.
  std::string error(const std::string& text) {
    Result r;
    Status st = submit_text(text, "test.sub", opts_, &r);
    EXPECT_FALSE(st.ok) << "no error for:\n" << text;
    EXPECT_TRUE(r.procs.empty());
    return st.message;
  }
  /// Submits `text` expecting an error whose message contains `needle`.
  void expect_error(const std::string& text, const std::string& needle) {
    std::string msg = error(text);
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }
  /// The value of `name` in proc `proc`'s merged ad, or "<absent>".
  static std::string attr(const Result& r, size_t proc, const std::string& name) {
    if (proc >= r.procs.size()) return "<no proc>";
    for (const Attr& a : r.merged(proc)) {
      if (a.name == name) return a.value;
    }
    return "<absent>";
  }
  /// Checks several attributes of one proc: {name, value in canonical unparse or "<absent>"}.
  static void expect_attrs(const Result& r, size_t proc,
                           std::initializer_list<std::pair<const char*, std::string>> want) {
    for (const auto& [name, value] : want) EXPECT_EQ(attr(r, proc, name), value) << name;
  }
  /// The value in the only (first) proc.
  std::string one(const std::string& text, const std::string& name) {
    return attr(run(text), 0, name);
  }

  std::string dir_;
  Options opts_;
};

/// The default Requirements clauses after the user's expression, as the rules list them.
inline constexpr const char* kArch = "(TARGET.Arch == \"X86_64\")";
inline constexpr const char* kOpSys = "(TARGET.OpSys == \"LINUX\")";
inline constexpr const char* kDisk =
    "(versionGE(split(TARGET.CondorVersion)[1],\"25.12.0\") || (TARGET.Disk >= RequestDisk))";
inline constexpr const char* kMemory = "(TARGET.Memory >= RequestMemory)";
inline constexpr const char* kFsDomain =
    "((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))";

}  // namespace kite::submit::testing
