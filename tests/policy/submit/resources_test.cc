// Resource requests (units, defaults, custom tags) and the default Requirements' clause rules.
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

TEST_F(SubmitTest, ResourceDefaults) {
  Result r = run("executable = job.sh\nqueue\n");
  expect_attrs(r, 0,
               {{"RequestCpus", "1"},
                {"RequestMemory", "128"},
                {"RequestDisk", "MAX({ 1024,(TransferInputSizeMB + 1) * 1.25 }) * 1024"},
                {"RequestGPUs", "<absent>"}});
}

TEST_F(SubmitTest, MemoryUnitsAreMiBRoundedUp) {
  auto mem = [this](const char* v) {
    return one(std::string("executable = job.sh\nrequest_memory = ") + v + "\nqueue\n",
               "RequestMemory");
  };
  EXPECT_EQ(mem("300"), "300");
  EXPECT_EQ(mem("2.2"), "3");
  EXPECT_EQ(mem("3G"), "3072");
  EXPECT_EQ(mem("3gb"), "3072");
  EXPECT_EQ(mem("0.25G"), "256");
  EXPECT_EQ(mem("64 MB"), "64");
  EXPECT_EQ(mem("100K"), "1");
  EXPECT_EQ(mem("3000KB"), "3");
  EXPECT_EQ(mem("2T"), "2097152");
  EXPECT_EQ(mem("2 * 1024"), "2 * 1024");  // an expression stays one
}

TEST_F(SubmitTest, DiskUnitsAreKiBRoundedUp) {
  auto disk = [this](const char* v) {
    return one(std::string("executable = job.sh\nrequest_disk = ") + v + "\nqueue\n",
               "RequestDisk");
  };
  EXPECT_EQ(disk("5000"), "5000");
  EXPECT_EQ(disk("3M"), "3072");
  EXPECT_EQ(disk("2GB"), "2097152");
  EXPECT_EQ(disk("1.5K"), "2");
  EXPECT_EQ(disk("2T"), "2147483648");
}

TEST_F(SubmitTest, UnknownUnitIsAParseError) {
  std::string msg = error("executable = job.sh\nrequest_memory = 5Q\nqueue\n");
  EXPECT_EQ(msg.rfind("Parse error in expression:", 0), 0u) << msg;
  EXPECT_NE(msg.find("5Q"), std::string::npos);
  EXPECT_NE(msg.find("test.sub, line 2: request_memory"), std::string::npos) << msg;
}

TEST_F(SubmitTest, DefaultRequirementsClauses) {
  std::string want =
      std::string(kArch) + " && " + kOpSys + " && " + kDisk + " && " + kMemory + " && " + kFsDomain;
  EXPECT_EQ(one("executable = job.sh\nqueue\n", "Requirements"), want);
}

TEST_F(SubmitTest, UserExpressionComesFirstInParentheses) {
  std::string want = std::string("(Foo==3 || TARGET.Bar)") + " && " + kArch;
  std::string got =
      one("executable = job.sh\nrequirements = Foo==3||TARGET.Bar\nqueue\n", "Requirements");
  EXPECT_EQ(got.rfind("(Foo == 3 || TARGET.Bar) && " + std::string(kArch), 0), 0u) << got;
}

TEST_F(SubmitTest, ClausesForAttributesTheUserNamesAreLeftOutOrChanged) {
  auto req = [this](const char* user) {
    return one(std::string("executable = job.sh\nrequirements = ") + user + "\nqueue\n",
               "Requirements");
  };
  std::string a = req("TARGET.Arch == \"ARM\"");
  EXPECT_EQ(a.find(kArch), std::string::npos) << a;
  EXPECT_NE(a.find(kOpSys), std::string::npos);
  std::string o = req("OpSysAndVer == \"x\"");
  EXPECT_EQ(o.find(kOpSys), std::string::npos) << o;
  std::string major = req("OpSysMajorVer == 9");
  EXPECT_NE(major.find(kOpSys), std::string::npos) << major;
  std::string d = req("Disk > 5");
  EXPECT_EQ(d.find("versionGE"), std::string::npos) << d;
  EXPECT_NE(d.find("&& (TARGET.Disk >= RequestDisk) &&"), std::string::npos) << d;
  std::string f = req("FileSystemDomain != \"x\"");
  EXPECT_NE(f.find("&& (TARGET.HasFileTransfer)"), std::string::npos) << f;
  EXPECT_EQ(f.find("MY.FileSystemDomain"), std::string::npos) << f;
  std::string m = req("Memory > 5");
  EXPECT_NE(m.find(kMemory), std::string::npos) << m;
}

TEST_F(SubmitTest, MemoryAndCpusClausesDependOnLiteralSize) {
  std::string small = one("executable = job.sh\nrequest_memory = 1\nqueue\n", "Requirements");
  EXPECT_EQ(small.find(kMemory), std::string::npos) << small;
  std::string expr = one("executable = job.sh\nrequest_memory = 1 * 1\nqueue\n", "Requirements");
  EXPECT_NE(expr.find(kMemory), std::string::npos) << expr;
  std::string one_cpu = one("executable = job.sh\nrequest_cpus = 1\nqueue\n", "Requirements");
  EXPECT_EQ(one_cpu.find("TARGET.Cpus"), std::string::npos) << one_cpu;
  std::string cpus = one("executable = job.sh\nrequest_cpus = 4\nqueue\n", "Requirements");
  EXPECT_NE(cpus.find(std::string(kMemory) + " && (TARGET.Cpus >= RequestCpus) && " + kFsDomain),
            std::string::npos)
      << cpus;
}

TEST_F(SubmitTest, CustomResourcesAddSortedClausesSpeltAsWritten) {
  Result r =
      run("executable = job.sh\nrequest_scratch = 10\nrequest_GPUs = 2\nrequest_Apples = 1\n"
          "request_zero = 0\nqueue\n");
  expect_attrs(r, 0,
               {{"Requestscratch", "10"},
                {"RequestGPUs", "2"},
                {"RequestApples", "1"},
                {"Requestzero", "0"}});
  std::string req = attr(r, 0, "Requirements");
  EXPECT_NE(req.find(std::string(kMemory) +
                     " && (TARGET.Apples >= RequestApples) && (TARGET.GPUs >= RequestGPUs) && "
                     "(TARGET.scratch >= Requestscratch) && " +
                     kFsDomain),
            std::string::npos)
      << req;
  EXPECT_EQ(req.find("zero"), std::string::npos);
  std::string named = one("executable = job.sh\nrequest_gpus = 1\nrequirements = GPUs > 0\nqueue\n",
                          "Requirements");
  EXPECT_EQ(named.find("(TARGET.GPUs >= RequestGPUs)"), std::string::npos) << named;
}

}  // namespace
}  // namespace kite::submit::testing

namespace kite::submit::testing {
namespace {

// HTCondor submit_utils.cpp SetRequestResources / SetResourceRequirements / SetRequirements:
// with request_gpus, require_gpus becomes RequireGPUs, the GPU property limits are written
// (gpus_minimum_memory in MB, gpus_minimum_runtime x.y as x * 1000 + y * 10) and and-ed into
// RequireGPUs, and the GPU clause becomes
// "(countMatches(MY.RequireGPUs,TARGET.AvailableGPUs) >= RequestGPUs)".
// A custom resource requested as a string adds " && regexp(Request<tag>, TARGET.<tag>)"; an
// empty string or a number <= 0 adds nothing (submit_utils.cpp SetRequirements, gt6938).
TEST_F(SubmitTest, StringCustomResourcesMatchByRegexp) {
  Result r =
      run("executable = job.sh\nrequest_Flavor = \"big\"\nrequest_empty = \"\"\nrequest_zero = 0\n"
          "queue\n");
  const std::string req = attr(r, 0, "Requirements");
  EXPECT_NE(req.find("(TARGET.Memory >= RequestMemory) && regexp(RequestFlavor,TARGET.Flavor) && "
                     "((TARGET.FileSystemDomain"),
            std::string::npos)
      << req;
  EXPECT_EQ(req.find("empty"), std::string::npos) << req;
}

TEST_F(SubmitTest, GpuRequirementsAndPropertyLimits) {
  Result r =
      run("executable = job.sh\nrequest_gpus = 1\ngpus_minimum_capability = 7.5\n"
          "gpus_minimum_memory = 4G\ngpus_minimum_runtime = 12.1\nqueue\n");
  expect_attrs(r, 0,
               {{"GPUsMinCapability", "7.5"},
                {"GPUsMinMemory", "4096"},
                {"GPUsMinRuntime", "12010"},
                {"RequireGPUs",
                 "Capability >= GPUsMinCapability && GlobalMemoryMb >= GPUsMinMemory && "
                 "MaxSupportedVersion >= GPUsMinRuntime"}});
  EXPECT_NE(attr(r, 0, "Requirements")
                .find("&& (countMatches(MY.RequireGPUs,TARGET.AvailableGPUs) >= RequestGPUs) &&"),
            std::string::npos);
  Result u =
      run("executable = job.sh\nrequest_gpus = 1\nrequire_gpus = Capability > 8 || DeviceName == "
          "\"x\"\ngpus_minimum_memory = 2000\ngpus_minimum_capability = 7\nqueue\n");
  EXPECT_EQ(attr(u, 0, "RequireGPUs"),
            "(Capability > 8 || DeviceName == \"x\") && GlobalMemoryMb >= GPUsMinMemory");
  Result none = run("executable = job.sh\nrequire_gpus = Capability > 8\nqueue\n");
  EXPECT_EQ(attr(none, 0, "RequireGPUs"), "<absent>");
}

}  // namespace
}  // namespace kite::submit::testing
