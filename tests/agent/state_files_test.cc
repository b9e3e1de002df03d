// State files (write_file_atomic): each write goes through a temporary of its own, nothing
// is left behind, and a short write is an error that leaves the old file intact.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "agent/core/files.h"

namespace kite::core {
namespace {

std::string make_temp_dir() {
  char tmpl[] = "/tmp/kite-state-files-XXXXXX";
  return mkdtemp(tmpl) ? std::string(tmpl) : std::string();
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (struct dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  return out;
}

TEST(StateFiles, EachWriterHasItsOwnTemporary) {
  std::string d = make_temp_dir(), err, got;
  ASSERT_FALSE(d.empty());
  std::string p = d + "/state.json";
  // Another writer's temporary under a shared name must neither block nor be clobbered.
  ASSERT_EQ(mkdir((p + ".tmp").c_str(), 0700), 0);
  ASSERT_TRUE(write_file_atomic(p, "one", 0600, &err)) << err;
  ASSERT_TRUE(write_file_atomic(p, "two", 0600, &err, Durability::kProcessCrash)) << err;
  ASSERT_TRUE(read_file(p, &got, &err)) << err;
  EXPECT_EQ(got, "two");
  struct stat st {};
  EXPECT_EQ(stat((p + ".tmp").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  std::vector<std::string> names = names_in(d);
  EXPECT_EQ(names.size(), 2u);  // state.json and the other writer's directory, no temporary
  ASSERT_TRUE(remove_tree(d, &err)) << err;
}

TEST(StateFiles, AShortWriteIsAnErrorAndKeepsTheOldFile) {
  std::string d = make_temp_dir(), err, got;
  ASSERT_FALSE(d.empty());
  std::string p = d + "/state.json";
  ASSERT_TRUE(write_file_atomic(p, "old", 0600, &err)) << err;
  // In a child: a file-size limit of 16 bytes makes the kernel accept only part of the write.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {16, 16};
    setrlimit(RLIMIT_FSIZE, &rl);
    std::string e;
    bool ok = write_file_atomic(p, std::string(4096, 'x'), 0600, &e);
    _exit(ok                                                                              ? 1
          : e.find("cannot write") != std::string::npos && e.find(d) != std::string::npos ? 0
                                                                                          : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the short write succeeded, 2: the error did not name it";
  ASSERT_TRUE(read_file(p, &got, &err)) << err;
  EXPECT_EQ(got, "old");
  EXPECT_EQ(names_in(d), std::vector<std::string>{"state.json"});  // no temporary left
  ASSERT_TRUE(remove_tree(d, &err)) << err;
}

}  // namespace
}  // namespace kite::core
