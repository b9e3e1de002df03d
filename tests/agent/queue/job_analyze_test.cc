// condor_q -better-analyze against what HTCondor 25 printed (tests/data/queue/observed/
// condor_q.better-analyze.txt) for job 7.0 and the pool's one slot, reconstructed in
// tests/data/queue/analyze-job7.ads and analyze-slot.ads. The observed title names the schedd;
// for files of ads it names the job ads file, the one edit made before comparing byte for byte.
#include "agent/queue/job_analyze.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

#include "agent/queue/job_ads_file.h"

namespace {

const std::string kData = std::string(KITE_SOURCE_DIR) + "/tests/data/queue/";

std::string observed_analysis() {
  std::ifstream f(kData + "observed/condor_q.better-analyze.txt", std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  EXPECT_FALSE(text.empty());
  return text.substr(text.find('\n') + 1);  // without "$ command"
}

std::vector<kite::classad::AdPtr> ads(const std::string& file) {
  std::vector<kite::classad::AdPtr> out;
  std::string err;
  EXPECT_TRUE(kite::queue::read_job_ads_file(kData + file, &out, &err)) << err;
  return out;
}

TEST(BetterAnalyze, MatchesCondorQForTheObservedJob) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::vector<kite::classad::AdPtr> jobs = ads("analyze-job7.ads"), slots = ads("analyze-slot.ads");
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(slots.size(), 1u);
  std::string want = observed_analysis();
  size_t body = want.find("The Requirements expression");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(kite::queue::format_better_analyze(*jobs[0], slots), want.substr(body));
}

TEST(BetterAnalyze, KiteQPrintsItWithTheJobadsTitle) {
  std::string cmd = "cd " + kData + " && TZ=UTC " + KITE_BINARY +
                    " q -jobads analyze-job7.ads -slotads analyze-slot.ads -better-analyze 7.0";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string got;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) got.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  std::string want = observed_analysis();
  size_t title = want.find("-- Schedd: ");
  ASSERT_NE(title, std::string::npos);
  want.replace(title, want.find('\n', title) - title, "-- Jobads: analyze-job7.ads");
  EXPECT_EQ(got, want);
}

}  // namespace
