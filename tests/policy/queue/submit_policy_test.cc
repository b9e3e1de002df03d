// Job transforms and submit requirements as the schedd applies them at submit time.
#include "policy/queue/submit_policy.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue_policy {
namespace {

config::Config load(const std::string& text) {
  config::Config cfg("SCHEDD");
  config::Status st = cfg.load_string(text);
  EXPECT_TRUE(st.ok) << st.message;
  cfg.finish();
  return cfg;
}

classad::AdPtr job(const std::string& text) {
  classad::AdPtr ad = classad::parse_classad_old(text);
  EXPECT_TRUE(ad) << text;
  return ad;
}

std::string attr(const classad::ClassAd& ad, const std::string& name) {
  const classad::Expr* e = ad.lookup(name);
  if (!e) return "<none>";
  std::string out;
  classad::unparse_expr(out, e);
  return out;
}

TEST(JobTransform, TheReferenceExampleSetsDockerFieldsOnMatchingJobsOnly) {
  config::Config cfg = load(
      "JOB_TRANSFORM_NAMES = SL6ToDocker\n"
      "JOB_TRANSFORM_SL6ToDocker @=end\n"
      "   # match only vanilla jobs that have WantSL6 and no DockerImage\n"
      "   REQUIREMENTS JobUniverse==5 && WantSL6 && DockerImage =?= undefined\n"
      "   SET  WantDocker = true\n"
      "   SET  DockerImage = \"SL6\"\n"
      "   SET  Requirements = TARGET.HasDocker && $(MY.Requirements)\n"
      "@end\n");
  SubmitPolicy p;
  config::Status st = load_submit_policy(cfg, &p);
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_EQ(p.transforms.size(), 1u);

  classad::AdPtr yes = job("JobUniverse = 5\nWantSL6 = true\nRequirements = TARGET.Memory > 5\n");
  std::string err;
  ASSERT_TRUE(apply_transforms(p, yes.get(), &err)) << err;
  EXPECT_EQ(attr(*yes, "WantDocker"), "true");
  EXPECT_EQ(attr(*yes, "DockerImage"), "\"SL6\"");
  EXPECT_EQ(attr(*yes, "Requirements"), "TARGET.HasDocker && TARGET.Memory > 5");

  classad::AdPtr no = job("JobUniverse = 5\nWantSL6 = false\n");
  ASSERT_TRUE(apply_transforms(p, no.get(), &err)) << err;
  EXPECT_EQ(attr(*no, "DockerImage"), "<none>");
}

TEST(JobTransform, EvalSetDefaultDeleteRenameCopyAndMacros) {
  JobTransform t;
  config::Status st = parse_transform("T",
                                      "factor = 2\n"
                                      "EVALSET DoubleMem = RequestMemory * $(factor)\n"
                                      "DEFAULT Project = \"none\"\n"
                                      "DEFAULT Group = \"g\"\n"
                                      "DELETE Junk\n"
                                      "RENAME OldName NewName\n"
                                      "COPY Cmd = CmdCopy\n",
                                      &t);
  ASSERT_TRUE(st.ok) << st.message;
  SubmitPolicy p;
  p.transforms.push_back(std::move(t));
  classad::AdPtr ad = job(
      "RequestMemory = 100\nGroup = \"mine\"\nJunk = 1\nOldName = \"x\"\nCmd = \"/bin/true\"\n");
  std::string err;
  ASSERT_TRUE(apply_transforms(p, ad.get(), &err)) << err;
  EXPECT_EQ(attr(*ad, "DoubleMem"), "200");  // evaluated, not the expression
  EXPECT_EQ(attr(*ad, "Project"), "\"none\"");
  EXPECT_EQ(attr(*ad, "Group"), "\"mine\"");  // DEFAULT keeps what the job has
  EXPECT_EQ(attr(*ad, "Junk"), "<none>");
  EXPECT_EQ(attr(*ad, "OldName"), "<none>");
  EXPECT_EQ(attr(*ad, "NewName"), "\"x\"");
  EXPECT_EQ(attr(*ad, "CmdCopy"), "\"/bin/true\"");
  EXPECT_EQ(attr(*ad, "Cmd"), "\"/bin/true\"");
}

TEST(JobTransform, EveryMatchingTransformAppliesInOrder) {
  config::Config cfg = load(
      "JOB_TRANSFORM_NAMES = A, B\n"
      "JOB_TRANSFORM_A = SET X = 1\n"
      "JOB_TRANSFORM_B = EVALSET X = X + 10\n");
  SubmitPolicy p;
  ASSERT_TRUE(load_submit_policy(cfg, &p).ok);
  classad::AdPtr ad = job("Y = 1\n");
  std::string err;
  ASSERT_TRUE(apply_transforms(p, ad.get(), &err)) << err;
  EXPECT_EQ(attr(*ad, "X"), "11");
}

TEST(JobTransform, BadTransformsAreNamedWithTheirLine) {
  JobTransform t;
  config::Status st = parse_transform("Bad", "SET A = 1\nFROB A B\n", &t);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("JOB_TRANSFORM_Bad line 2"), std::string::npos) << st.message;
  st = parse_transform("Bad", "SET A = (1 +\n", &t);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("line 1"), std::string::npos) << st.message;
  st = parse_transform("Bad", "SET A = $(nope)\n", &t);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("$(nope)"), std::string::npos) << st.message;

  config::Config cfg = load("JOB_TRANSFORM_NAMES = Missing\n");
  SubmitPolicy p;
  st = load_submit_policy(cfg, &p);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("JOB_TRANSFORM_Missing is not defined"), std::string::npos)
      << st.message;
}

TEST(SubmitRequirement, TheFirstFailingRequirementRefusesWithItsReason) {
  config::Config cfg = load(
      "SUBMIT_REQUIREMENT_NAMES = NotStandardUniverse, MinimalRequestMemory, NotChris\n"
      "SUBMIT_REQUIREMENT_NotStandardUniverse = JobUniverse != 1\n"
      "SUBMIT_REQUIREMENT_NotStandardUniverse_REASON = \"no standard universe\"\n"
      "SUBMIT_REQUIREMENT_MinimalRequestMemory = RequestMemory > 512\n"
      "SUBMIT_REQUIREMENT_MinimalRequestMemory_REASON = strcat(\"The job only requested \", "
      "RequestMemory, \" Megabytes.\")\n"
      "SUBMIT_REQUIREMENT_NotChris = Owner != \"chris\"\n");
  SubmitPolicy p;
  config::Status st = load_submit_policy(cfg, &p);
  ASSERT_TRUE(st.ok) << st.message;
  classad::AdPtr schedd = job("MyType = \"Scheduler\"\n");

  classad::AdPtr ok = job("JobUniverse = 5\nRequestMemory = 1024\nOwner = \"alice\"\n");
  RequirementOutcome o = check_submit_requirements(p, *schedd, *ok);
  EXPECT_FALSE(o.refused) << o.error;

  classad::AdPtr small = job("JobUniverse = 5\nRequestMemory = 100\nOwner = \"chris\"\n");
  o = check_submit_requirements(p, *schedd, *small);
  EXPECT_TRUE(o.refused);
  EXPECT_EQ(o.error, "The job only requested 100 Megabytes.");

  classad::AdPtr chris = job("JobUniverse = 5\nRequestMemory = 1024\nOwner = \"chris\"\n");
  o = check_submit_requirements(p, *schedd, *chris);
  EXPECT_TRUE(o.refused);
  EXPECT_EQ(o.error, "Submit requirement NotChris not met");  // no _REASON: named
}

TEST(SubmitRequirement, WarningsDoNotRefuseAndTheLastOneIsReported) {
  config::Config cfg = load(
      "SUBMIT_REQUIREMENT_NAMES = OneGig, TwoGig\n"
      "SUBMIT_REQUIREMENT_OneGig = RequestMemory > 1024\n"
      "SUBMIT_REQUIREMENT_OneGig_REASON = \"soon 1024\"\n"
      "SUBMIT_REQUIREMENT_OneGig_IS_WARNING = true\n"
      "SUBMIT_REQUIREMENT_TwoGig = RequestMemory > 2048\n"
      "SUBMIT_REQUIREMENT_TwoGig_REASON = \"later 2048\"\n"
      "SUBMIT_REQUIREMENT_TwoGig_IS_WARNING = true\n");
  SubmitPolicy p;
  ASSERT_TRUE(load_submit_policy(cfg, &p).ok);
  classad::AdPtr schedd = job("MyType = \"Scheduler\"\n");
  classad::AdPtr ad = job("RequestMemory = 600\n");
  RequirementOutcome o = check_submit_requirements(p, *schedd, *ad);
  EXPECT_FALSE(o.refused);
  EXPECT_EQ(o.warning, "later 2048");
  classad::AdPtr big = job("RequestMemory = 1500\n");
  o = check_submit_requirements(p, *schedd, *big);
  EXPECT_EQ(o.warning, "later 2048");
  classad::AdPtr huge = job("RequestMemory = 4096\n");
  o = check_submit_requirements(p, *schedd, *huge);
  EXPECT_EQ(o.warning, "");
}

TEST(SubmitRequirement, TargetNamesTheJobAndMyTheSchedd) {
  config::Config cfg = load(
      "SUBMIT_REQUIREMENT_NAMES = Scoped\n"
      "SUBMIT_REQUIREMENT_Scoped = MY.MyType == \"Scheduler\" && TARGET.Cpus <= 4\n");
  SubmitPolicy p;
  ASSERT_TRUE(load_submit_policy(cfg, &p).ok);
  classad::AdPtr schedd = job("MyType = \"Scheduler\"\n");
  classad::AdPtr few = job("Cpus = 2\n");
  classad::AdPtr many = job("Cpus = 8\n");
  EXPECT_FALSE(check_submit_requirements(p, *schedd, *few).refused);
  EXPECT_TRUE(check_submit_requirements(p, *schedd, *many).refused);
}

}  // namespace
}  // namespace kite::queue_policy
