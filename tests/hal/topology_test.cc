// Topology tests: every board's recorded hwloc export, config overrides, CPU-set selection.
// Expected values come from the fixtures (hwloc.xml, /proc/meminfo) and the boards' specs.
#include "hal/topology.h"

#include <gtest/gtest.h>
#include <sched.h>

#include "hal_test_util.h"
#include "policy/config/config.h"

namespace kite::hal {
namespace {

// CPUs this process may run on (what hwloc's topology keeps by default).
int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

using testing::fixtures;

Topology load(const std::string& board) {
  Topology t;
  Status st = topology_load(Root(fixtures(board)), &t);
  EXPECT_TRUE(st.ok) << st.message;
  return t;
}

const CacheInfo* cache(const Topology& t, int level, char kind) {
  for (const CacheInfo& c : t.caches) {
    if (c.level == level && c.kind == kind) return &c;
  }
  return nullptr;
}

TEST(Topology, GenericX86RecordedFromThisMachine) {
  Topology t = load("generic-x86_64");
  EXPECT_NE(t.source.find("xml"), std::string::npos);
  EXPECT_EQ(t.packages, 1);
  EXPECT_EQ(t.cores, 2);
  EXPECT_EQ(t.pus, 2);
  ASSERT_EQ(t.numa.size(), 1u);
  EXPECT_EQ(t.numa[0].pus, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.numa[0].memory, 6939697152u);  // local_memory in the export
  const CacheInfo* l2 = cache(t, 2, 'u');
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size, 512u * 1024);
  EXPECT_EQ(l2->count, 2);
  const CacheInfo* l3 = cache(t, 3, 'u');
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->size, 32u << 20);
  EXPECT_EQ(t.cpu_model, "AMD EPYC");
}

TEST(Topology, RaspberryPi4) {
  Topology t = load("raspberrypi-4");
  EXPECT_EQ(t.packages, 1);
  EXPECT_EQ(t.cores, 4);
  EXPECT_EQ(t.pus, 4);
  EXPECT_EQ(t.memory, 3977383936u);
  EXPECT_EQ(t.cpu_model, "Cortex-A72");
  const CacheInfo* l2 = cache(t, 2, 'u');
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->size, 1u << 20);  // BCM2711: one shared 1 MiB L2
  EXPECT_EQ(l2->count, 1);
  const CacheInfo* l1 = cache(t, 1, 'd');
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(l1->size, 32u << 10);
  EXPECT_EQ(l1->count, 4);
}

TEST(Topology, JetsonOrinThreeClusters) {
  Topology t = load("jetson-orin");
  EXPECT_EQ(t.cores, 12);
  EXPECT_EQ(t.pus, 12);
  const CacheInfo* l3 = cache(t, 3, 'u');
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->count, 3);  // one 2 MiB L3 per 4-core cluster
  EXPECT_EQ(l3->size, 2u << 20);
  const CacheInfo* l2 = cache(t, 2, 'u');
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l2->count, 12);
  EXPECT_EQ(l2->size, 256u << 10);
}

TEST(Topology, Server4GpuTwoSocketsTwoNumaNodesHyperthreads) {
  Topology t = load("server-4gpu");
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 32);
  EXPECT_EQ(t.pus, 64);
  ASSERT_EQ(t.numa.size(), 2u);
  EXPECT_EQ(t.numa[0].memory, 256ull << 30);
  EXPECT_EQ(t.numa[1].memory, 256ull << 30);
  EXPECT_EQ(t.numa[0].pus.size(), 32u);
  EXPECT_EQ(t.numa[1].pus.front(), 32);
  ASSERT_EQ(t.core_list.size(), 32u);
  EXPECT_EQ(t.core_list[0].pus, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.core_list[16].package, 1);
  EXPECT_EQ(t.core_list[16].numa, 1);
}

TEST(Topology, LiveMachineLoads) {
  Topology t;
  Status st = topology_load(Root("/"), &t);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(t.source, "live");
  EXPECT_EQ(t.pus, static_cast<int>(allowed_cpus()));
}

TEST(Topology, MissingRootIsAnErrorNamingIt) {
  Topology t;
  Status st = topology_load(Root("/nonexistent/kite-root"), &t);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/nonexistent/kite-root"), std::string::npos) << st.message;
}

Resources resources(const std::string& board, const std::string& conf) {
  Topology t = load(board);
  config::Config cfg;
  EXPECT_TRUE(cfg.load_string(conf).ok);
  topology_set_detected(t, &cfg);
  Resources r;
  Status st = resources_compute(t, cfg, &r);
  EXPECT_TRUE(st.ok) << st.message;
  return r;
}

TEST(Resources, DefaultsCountHyperthreads) {
  Resources r = resources("server-4gpu", "");
  EXPECT_EQ(r.detected_cpus, 64);
  EXPECT_EQ(r.total_cpus, 64);
  EXPECT_EQ(r.detected_memory_mib, 512 * 1024);
  EXPECT_EQ(r.total_memory_mib, 512 * 1024);
}

TEST(Resources, Overrides) {
  Resources r = resources("server-4gpu", "NUM_CPUS = 8\nRESERVED_MEMORY = 512\n");
  EXPECT_EQ(r.total_cpus, 8);
  EXPECT_EQ(r.reserved_memory_mib, 512);
  EXPECT_EQ(r.total_memory_mib, 512 * 1024 - 512);
  r = resources("server-4gpu", "MEMORY = 1024\nRESERVED_MEMORY = 512\n");
  EXPECT_EQ(r.total_memory_mib, 1024);  // MEMORY wins over detected - reserved
  r = resources("server-4gpu", "COUNT_HYPERTHREAD_CPUS = False\n");
  EXPECT_EQ(r.detected_cpus, 32);
  r = resources("raspberrypi-4", "MEMORY = $(DETECTED_MEMORY) / 2\nNUM_CPUS = $(DETECTED_CPUS) - 1\n");
  EXPECT_EQ(r.total_memory_mib, 3977383936 / (1 << 20) / 2);
  EXPECT_EQ(r.total_cpus, 3);
}

TEST(Resources, BadValueNamesTheVariable) {
  Topology t = load("raspberrypi-4");
  config::Config cfg;
  ASSERT_TRUE(cfg.load_string("NUM_CPUS = \"four\"\n").ok);
  Resources r;
  Status st = resources_compute(t, cfg, &r);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("NUM_CPUS"), std::string::npos) << st.message;
}

TEST(Cpuset, WholeCoresFirstSameNumaNode) {
  Topology t = load("server-4gpu");
  std::vector<int> pus;
  ASSERT_TRUE(cpuset_select(t, 4, {}, &pus).ok);
  EXPECT_EQ(pus, (std::vector<int>{0, 1, 2, 3}));
  // Core 0 half busy: take the next whole core rather than its free sibling.
  ASSERT_TRUE(cpuset_select(t, 2, {1}, &pus).ok);
  EXPECT_EQ(pus, (std::vector<int>{2, 3}));
  // Node 0 has one whole free core left: the job goes to node 1 whole.
  std::vector<int> busy;
  for (int i = 0; i < 30; ++i) busy.push_back(i);
  ASSERT_TRUE(cpuset_select(t, 4, busy, &pus).ok);
  EXPECT_EQ(pus, (std::vector<int>{32, 33, 34, 35}));
  // The fullest node that still fits keeps the other node whole.
  ASSERT_TRUE(cpuset_select(t, 2, busy, &pus).ok);
  EXPECT_EQ(pus, (std::vector<int>{30, 31}));
}

TEST(Cpuset, SpillsAndFailsWhenFull) {
  Topology t = load("raspberrypi-4");
  std::vector<int> pus;
  ASSERT_TRUE(cpuset_select(t, 3, {1}, &pus).ok);
  EXPECT_EQ(pus, (std::vector<int>{0, 2, 3}));
  Status st = cpuset_select(t, 4, {1}, &pus);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("3 free"), std::string::npos) << st.message;
}

TEST(Cpuset, FormatAndParse) {
  EXPECT_EQ(cpuset_format({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpuset_format({}), "");
  std::vector<int> v;
  ASSERT_TRUE(cpuset_parse("0-3,8,10-11\n", &v));
  EXPECT_EQ(v, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_FALSE(cpuset_parse("3-1", &v));
  EXPECT_FALSE(cpuset_parse("a", &v));
}

}  // namespace
}  // namespace kite::hal
