// Tests of reading the fetch-work hook settings of a slot and the backfill client's command.
#include <gtest/gtest.h>

#include "policy/config/config.h"
#include "policy/startd/job_hooks.h"

namespace kite::startd {
namespace {

config::Config load(const std::string& text) {
  config::Config c;
  config::Status st = c.load_string(text, "t.conf");
  EXPECT_TRUE(st.ok) << st.message;
  return c;
}

std::string backfill_err(const std::string& text) {
  config::Config c = load(text);
  BackfillClient b;
  std::string err;
  return backfill_client_read(c, &b, &err) ? "" : err;
}

TEST(JobHooks, NoKeywordMeansNoHooks) {
  config::Config c = load("DATABASE_HOOK_FETCH_WORK = /bin/fetch\n");
  EXPECT_FALSE(job_hooks_for_slot(c, 1).active());
}

TEST(JobHooks, TheSlotKeywordWinsOverTheStartdKeyword) {
  // The reference's example: most slots use DATABASE, slot 4 uses WEB.
  config::Config c = load(
      "STARTD_JOB_HOOK_KEYWORD = DATABASE\n"
      "SLOT4_JOB_HOOK_KEYWORD = WEB\n"
      "DATABASE_HOOK_DIR = /usr/local/condor/fetch/database\n"
      "DATABASE_HOOK_FETCH_WORK = $(DATABASE_HOOK_DIR)/fetch_work.php\n"
      "DATABASE_HOOK_REPLY_FETCH = $(DATABASE_HOOK_DIR)/reply_fetch.php\n"
      "WEB_HOOK_FETCH_WORK = /web/fetch_work.php\n");
  JobHooks one = job_hooks_for_slot(c, 1);
  EXPECT_TRUE(one.active());
  EXPECT_EQ(one.keyword, "DATABASE");
  EXPECT_EQ(one.fetch_work, "/usr/local/condor/fetch/database/fetch_work.php");
  EXPECT_EQ(one.reply_fetch, "/usr/local/condor/fetch/database/reply_fetch.php");
  EXPECT_EQ(one.evict_claim, "");
  JobHooks four = job_hooks_for_slot(c, 4);
  EXPECT_EQ(four.keyword, "WEB");
  EXPECT_EQ(four.fetch_work, "/web/fetch_work.php");
  EXPECT_EQ(four.reply_fetch, "");
}

TEST(JobHooks, AKeywordWithoutAFetchHookIsNotActive) {
  // HTCONDOR: "_HOOK_FETCH_WORK ... is the only hook that must be defined for any of the other
  // condor_startd hooks to operate."
  config::Config c = load(
      "STARTD_JOB_HOOK_KEYWORD = K\n"
      "K_HOOK_REPLY_FETCH = /bin/reply\n");
  EXPECT_FALSE(job_hooks_for_slot(c, 1).active());
}

TEST(BackfillClient, DisabledMeansNoClient) {
  config::Config c = load("BACKFILL_SYSTEM = KITE\nKITE_BACKFILL_COMMAND = /bin/bf\n");
  BackfillClient b;
  std::string err;
  ASSERT_TRUE(backfill_client_read(c, &b, &err)) << err;
  EXPECT_TRUE(b.argv.empty());
  EXPECT_EQ(b.system, "");
}

TEST(BackfillClient, KiteCommandIsSplitAsV2Arguments) {
  config::Config c = load(
      "ENABLE_BACKFILL = True\n"
      "BACKFILL_SYSTEM = kite\n"
      "KITE_BACKFILL_COMMAND = /opt/bf/run --name 'two words' -v\n"
      "KITE_BACKFILL_CWD = /var/lib/bf\n"
      "KITE_BACKFILL_USER = bfuser\n");
  BackfillClient b;
  std::string err;
  ASSERT_TRUE(backfill_client_read(c, &b, &err)) << err;
  EXPECT_EQ(b.system, "KITE");
  ASSERT_EQ(b.argv.size(), 4u);
  EXPECT_EQ(b.argv[0], "/opt/bf/run");
  EXPECT_EQ(b.argv[2], "two words");
  EXPECT_EQ(b.cwd, "/var/lib/bf");
  EXPECT_EQ(b.user, "bfuser");
}

TEST(BackfillClient, BoincSettingsMapToTheClient) {
  config::Config c = load(
      "ENABLE_BACKFILL = True\n"
      "BACKFILL_SYSTEM = BOINC\n"
      "BOINC_Executable = /usr/bin/boinc_client\n"
      "BOINC_Arguments = --dir /var/lib/boinc --attach_project http://example.org k\n"
      "BOINC_InitialDir = /var/lib/boinc\n"
      "BOINC_Owner = boinc\n");
  BackfillClient b;
  std::string err;
  ASSERT_TRUE(backfill_client_read(c, &b, &err)) << err;
  EXPECT_EQ(b.system, "BOINC");
  ASSERT_EQ(b.argv.size(), 6u);
  EXPECT_EQ(b.argv[0], "/usr/bin/boinc_client");
  EXPECT_EQ(b.argv[1], "--dir");
  EXPECT_EQ(b.cwd, "/var/lib/boinc");
  EXPECT_EQ(b.user, "boinc");
}

TEST(BackfillClient, BadSettingsNameTheVariable) {
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = True\n").find("BACKFILL_SYSTEM is not set"),
            std::string::npos);
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = True\nBACKFILL_SYSTEM = folding\n")
                .find("BACKFILL_SYSTEM = folding: not one of KITE, BOINC"),
            std::string::npos);
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = True\nBACKFILL_SYSTEM = KITE\n")
                .find("KITE_BACKFILL_COMMAND is not set"),
            std::string::npos);
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = True\nBACKFILL_SYSTEM = BOINC\n")
                .find("BOINC_Executable is not set"),
            std::string::npos);
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = True\nBACKFILL_SYSTEM = KITE\n"
                         "KITE_BACKFILL_COMMAND = /bin/bf 'unclosed\n")
                .find("KITE_BACKFILL_COMMAND = /bin/bf 'unclosed: "),
            std::string::npos);
  EXPECT_NE(backfill_err("ENABLE_BACKFILL = maybe\n").find("ENABLE_BACKFILL"), std::string::npos);
}

}  // namespace
}  // namespace kite::startd
