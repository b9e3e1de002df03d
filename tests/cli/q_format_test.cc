// `kite q -jobads FILE -format FMT EXPR`: condor_q's -format over job ads from a file, in job id
// order, with no title and no totals. Expected text written by hand from the printf rules.
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/kite_status_run.h"

namespace {

using kite_test::kite_with_ads;
using kite_test::Result;

const char kJobs[] =
    "ClusterId = 4\nProcId = 0\nOwner = \"bob\"\nJobStatus = 1\nRequestCpus = 1\n\n"
    "ClusterId = 3\nProcId = 1\nOwner = \"amy\"\nJobStatus = 2\nRequestCpus = 2\n\n"
    "ClusterId = 3\nProcId = 0\nOwner = \"amy\"\nJobStatus = 5\n";

TEST(KiteQFormat, PrintsEachJobThroughTheConversionsInJobIdOrder) {
#if KITE_NODE_ONLY
  GTEST_SKIP() << "kite q is not in the node-only build";
#endif
  Result r = kite_with_ads("q -jobads", kJobs,
                           "-format '%d.' ClusterId -format '%d ' ProcId -format '%-4s|' Owner "
                           "-format '%d\\n' RequestCpus");
  ASSERT_EQ(r.status, 0) << r.out;
  // 3.0 has no RequestCpus: that conversion prints nothing, newline included.
  EXPECT_EQ(r.out, "3.0 amy |3.1 amy |2\n4.0 bob |1\n");
  // Job ids and -constraint select as for the tables.
  EXPECT_EQ(kite_with_ads("q -jobads", kJobs,
                          "3 -constraint 'JobStatus == 2' -format '%d\\n' "
                          "ProcId")
                .out,
            "1\n");
  EXPECT_EQ(kite_with_ads("q -jobads", kJobs, "-format '%d'").status, 1);
}

// condor_q -submitter NAME selects the jobs charged to NAME: `(AccountingGroup ?: Owner) ==
// NAME` (string == ignores case), whoever owns them; a nice-user. prefix is dropped.
TEST(KiteQFormat, SubmitterSelectsByAccountingGroupElseOwner) {
#if KITE_NODE_ONLY
  GTEST_SKIP() << "kite q is not in the node-only build";
#endif
  const char jobs[] =
      "ClusterId = 1\nProcId = 0\nOwner = \"amy\"\nJobStatus = 1\n\n"
      "ClusterId = 2\nProcId = 0\nOwner = \"amy\"\nAccountingGroup = \"bob\"\nJobStatus = 1\n\n"
      "ClusterId = 3\nProcId = 0\nOwner = \"bob\"\nAccountingGroup = \"group_a.bob\"\n"
      "JobStatus = 1\n";
  EXPECT_EQ(kite_with_ads("q -jobads", jobs, "-submitter bob -af ClusterId").out, "2\n");
  EXPECT_EQ(kite_with_ads("q -jobads", jobs, "-submitter AMY -af ClusterId").out, "1\n");
  EXPECT_EQ(kite_with_ads("q -jobads", jobs, "-submitter group_a.bob -af ClusterId").out, "3\n");
  EXPECT_EQ(kite_with_ads("q -jobads", jobs, "-submitter nice-user.bob -af ClusterId").out, "2\n");
  Result r = kite_with_ads("q -jobads", jobs, "-submitter");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "Error: -submitter requires the name of a user.\n");
}

}  // namespace
