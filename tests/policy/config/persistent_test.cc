// The remote configuration pieces of policy/config/persistent: the -set argument, edits of the
// persistent file, which level may set which name, and the persistent file read last.
#include "policy/config/persistent.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "config_helpers.h"

namespace kite::config {
namespace {

TEST(PersistentConfig, ParsesAssignments) {
  std::string n, v, err;
  ASSERT_TRUE(parse_assignment("  START = (Cpus > 1) && true ", &n, &v, &err)) << err;
  EXPECT_EQ(n, "START");
  EXPECT_EQ(v, "(Cpus > 1) && true");
  ASSERT_TRUE(parse_assignment("STARTD.MY_X=", &n, &v, &err)) << err;
  EXPECT_EQ(n, "STARTD.MY_X");
  EXPECT_EQ(v, "");
  EXPECT_FALSE(parse_assignment("START false", &n, &v, &err));
  EXPECT_EQ(err, "'START false' is not of the form NAME = value");
  EXPECT_FALSE(parse_assignment("BAD NAME = 1", &n, &v, &err));
  EXPECT_EQ(err, "'BAD NAME' is not a configuration name (letters, digits, '_', '.')");
  EXPECT_FALSE(parse_assignment("X = 1\nY = 2", &n, &v, &err));
  EXPECT_EQ(err, "the value of X must be one line");
  EXPECT_FALSE(valid_config_name(""));
  EXPECT_FALSE(valid_config_name("$(X)"));
}

TEST(PersistentConfig, EditsKeepOrderAndReplaceWithoutCase) {
  std::string f = "false", seven = "7";
  std::string text = edit_persistent("", "START", &f);
  EXPECT_EQ(text, "START = false\n");
  text = edit_persistent(text, "RANK", &seven);
  EXPECT_EQ(text, "START = false\nRANK = 7\n");
  text = edit_persistent(text, "start", &seven);
  EXPECT_EQ(text, "start = 7\nRANK = 7\n");
  text = edit_persistent("# kept\n" + text, "START", nullptr);
  EXPECT_EQ(text, "# kept\nRANK = 7\n");
  EXPECT_EQ(edit_persistent(text, "NOT_THERE", nullptr), text);
}

TEST(PersistentConfig, SettableByLevel) {
  Config c = testing::load("SETTABLE_ATTRS_WRITE = RANK, MY_*\n");
  EXPECT_TRUE(settable(c, {"READ", "WRITE"}, "Rank"));
  EXPECT_TRUE(settable(c, {"READ", "WRITE"}, "MY_LABEL"));
  EXPECT_FALSE(settable(c, {"READ", "WRITE"}, "START"));
  EXPECT_FALSE(settable(c, {"READ"}, "RANK"));
  EXPECT_TRUE(settable(c, {"ADMINISTRATOR"}, "START"));  // no list: every name
  Config limited = testing::load("SETTABLE_ATTRS_ADMINISTRATOR = START\n");
  EXPECT_TRUE(settable(limited, {"ADMINISTRATOR"}, "START"));
  EXPECT_FALSE(settable(limited, {"ADMINISTRATOR"}, "SLOT_USER"));
  EXPECT_FALSE(settable(limited, {}, "START"));
}

TEST(PersistentConfig, TheFileIsReadLastWhenEnabled) {
  char tmpl[] = "/tmp/kite-persist-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::ofstream(dir + "/.config.startd") << "START = false\n";
  std::string main = "START = Cpus > 0\nPERSISTENT_CONFIG_DIR = " + dir + "\n";

  Config off = testing::load(main);
  ASSERT_TRUE(load_persistent(&off).ok);
  EXPECT_EQ(testing::raw(off, "START"), "Cpus > 0");

  Config on = testing::load(main + "ENABLE_PERSISTENT_CONFIG = true\n");
  std::string path;
  ASSERT_TRUE(persistent_config_path(on, &path).ok);
  EXPECT_EQ(path, dir + "/.config.startd");
  Status st = load_persistent(&on);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(testing::raw(on, "START"), "false");
  Entry e;
  ASSERT_TRUE(on.lookup("START", &e));
  EXPECT_EQ(e.source, dir + "/.config.startd, line 1");

  ASSERT_TRUE(load_runtime(&on, {{"START", "Cpus > 1"}}).ok);
  EXPECT_EQ(testing::raw(on, "START"), "Cpus > 1");

  Config no_dir = testing::load("ENABLE_PERSISTENT_CONFIG = true\n");
  st = load_persistent(&no_dir);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message, "ENABLE_PERSISTENT_CONFIG is true but PERSISTENT_CONFIG_DIR is not set");
  std::remove((dir + "/.config.startd").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace kite::config
