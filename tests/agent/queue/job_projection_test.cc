// Projections of job ads: only the asked attributes and what their expressions read, the
// job's own attribute before its cluster's, whole ads when an expression reads by eval().
#include "agent/queue/job_projection.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {
namespace {

std::vector<uint32_t> ids_of(const std::vector<std::string>& exprs, bool* opaque) {
  std::vector<uint32_t> ids;
  std::string err;
  EXPECT_TRUE(projection_ids(exprs, &ids, opaque, &err)) << err;
  return ids;
}

std::string text(const classad::ClassAd& ad) {
  std::string out;
  classad::unparse_classad(out, ad);
  return out;
}

TEST(JobProjection, KeepsTheAskedAttributesAndWhatTheyRead) {
  classad::AdPtr cluster = classad::parse_classad(
      "[ ClusterId = 4; Owner = \"alice\"; Cmd = \"/bin/true\"; RequestMemory = 64;"
      " MemoryUsage = ((ResidentSetSize + 1023) / 1024); ResidentSetSize = 2048; Iwd = \"/x\" ]");
  classad::AdPtr proc = classad::parse_classad("[ ProcId = 2; JobStatus = 1; Owner = \"bob\" ]");
  ASSERT_TRUE(cluster && proc);
  bool opaque = false;
  std::vector<uint32_t> ids = ids_of({"ProcId", "Owner", "MemoryUsage * 2", "Missing"}, &opaque);
  EXPECT_FALSE(opaque);
  negotiator::RefMemo memo;
  classad::AdPtr p = project_job(*proc, *cluster, ids, memo);
  EXPECT_EQ(p->size(), 4u) << text(*p);
  int64_t v = 0;
  EXPECT_TRUE(p->evaluate_int("ProcId", v));
  EXPECT_EQ(v, 2);
  std::string owner;
  EXPECT_TRUE(p->evaluate_string("Owner", owner));
  EXPECT_EQ(owner, "bob");  // the proc's own value wins
  EXPECT_TRUE(p->evaluate_int("MemoryUsage", v));
  EXPECT_EQ(v, 2);  // ResidentSetSize came along
  EXPECT_FALSE(p->lookup("Cmd"));
  EXPECT_FALSE(p->lookup("RequestMemory"));
}

TEST(JobProjection, AnExpressionReadingByEvalNeedsWholeAds) {
  bool opaque = false;
  ids_of({"ClusterId", "eval(\"Owner\")"}, &opaque);
  EXPECT_TRUE(opaque);
  // An attribute of the job that reads by eval() brings the whole job.
  classad::AdPtr cluster =
      classad::parse_classad("[ ClusterId = 1; Cmd = \"/bin/true\"; Tricky = eval(\"Cmd\") ]");
  classad::AdPtr proc = classad::parse_classad("[ ProcId = 0 ]");
  opaque = false;
  std::vector<uint32_t> ids = ids_of({"Tricky"}, &opaque);
  EXPECT_FALSE(opaque);
  negotiator::RefMemo memo;
  classad::AdPtr p = project_job(*proc, *cluster, ids, memo);
  EXPECT_TRUE(p->lookup("Cmd"));
  EXPECT_TRUE(p->lookup("ProcId"));
}

TEST(JobProjection, AnExpressionThatDoesNotParseIsAnError) {
  std::vector<uint32_t> ids;
  bool opaque = false;
  std::string err;
  EXPECT_FALSE(projection_ids({"1 +"}, &ids, &opaque, &err));
  EXPECT_NE(err.find("'1 +'"), std::string::npos) << err;
}

}  // namespace
}  // namespace kite::queue
