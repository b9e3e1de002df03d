// The HAL reads its boolean and integer settings with the configuration's one typed reader
// (policy/config/typed.h): the same words mean the same as in the agent and the startd core,
// and a bad value is an error naming the file and line that set it.
#include <gtest/gtest.h>

#include "hal/cgroup.h"
#include "hal/topology.h"
#include "hal_test_util.h"
#include "policy/config/config.h"

namespace kite::hal {
namespace {

using testing::fixtures;

config::Config conf(const char* text) {
  config::Config cfg;
  EXPECT_TRUE(cfg.load_string(text, "h.conf").ok);
  return cfg;
}

TEST(HalConfigWords, CountHyperthreadCpusReadsEveryWord) {
  Topology t;
  ASSERT_TRUE(topology_load(Root(fixtures("server-4gpu")), &t).ok);
  ASSERT_NE(t.pus, t.cores);  // the fixture has hyperthreads
  for (const char* word : {"no", "F", "0", "false", "1 == 2"}) {
    config::Config cfg = conf((std::string("COUNT_HYPERTHREAD_CPUS = ") + word + "\n").c_str());
    Resources r;
    ASSERT_TRUE(resources_compute(t, cfg, &r).ok) << word;
    EXPECT_EQ(r.detected_cpus, t.cores) << word;
  }
  for (const char* word : {"yes", "T", "1", "TRUE"}) {
    config::Config cfg = conf((std::string("COUNT_HYPERTHREAD_CPUS = ") + word + "\n").c_str());
    Resources r;
    ASSERT_TRUE(resources_compute(t, cfg, &r).ok) << word;
    EXPECT_EQ(r.detected_cpus, t.pus) << word;
  }
  Resources r;
  Status st = resources_compute(t, conf("\nCOUNT_HYPERTHREAD_CPUS = nope\n"), &r);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message.rfind("h.conf, line 2: COUNT_HYPERTHREAD_CPUS = nope: not a boolean", 0), 0u)
      << st.message;
}

TEST(HalConfigWords, DisableSwapForJobReadsEveryWord) {
  CgroupConfig c;
  ASSERT_TRUE(cgroup_config_read(conf("DISABLE_SWAP_FOR_JOB = t\n"), &c).ok);
  EXPECT_TRUE(c.disable_swap);
  ASSERT_TRUE(cgroup_config_read(conf("DISABLE_SWAP_FOR_JOB = No\n"), &c).ok);
  EXPECT_FALSE(c.disable_swap);
  Status st = cgroup_config_read(conf("DISABLE_SWAP_FOR_JOB = sometimes\n"), &c);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message.rfind("h.conf, line 1: DISABLE_SWAP_FOR_JOB = sometimes", 0), 0u)
      << st.message;
}

}  // namespace
}  // namespace kite::hal
