// Tests for slot layouts: every slot-type example of the references (fractions, percentages,
// absolute values, auto, blanket shares, custom resources, the constrained GPU layout of the
// server-4gpu board), the default partitionable slot, and impossible layouts rejected.
#include "policy/startd/slot_layout.h"

#include <gtest/gtest.h>

namespace kite::startd {
namespace {

struct Built {
  bool ok;
  std::string err;
  Layout layout;
};

Built build(const std::string& conf, MachineFacts facts = {}) {
  config::Config cfg;
  auto st = cfg.load_string(conf, "layout.conf");
  EXPECT_TRUE(st.ok) << st.message;
  Built b;
  b.ok = layout_build(cfg, facts, &b.layout, &b.err);
  return b;
}

MachineFacts machine(int cpus, int64_t mem, int64_t disk = 1000000, int64_t swap = 400000) {
  MachineFacts f;
  f.cpus = cpus;
  f.memory_mb = mem;
  f.disk_kb = disk;
  f.swap_kb = swap;
  return f;
}

TEST(SlotLayout, DefaultIsOnePartitionableSlotWithEverything) {
  Built b = build("NUM_CPUS = 8\n", machine(8, 16384));
  ASSERT_TRUE(b.ok) << b.err;
  ASSERT_EQ(b.layout.slots.size(), 1u);
  const SlotSpec& s = b.layout.slots[0];
  EXPECT_TRUE(s.partitionable);
  EXPECT_EQ(s.id, 1);
  EXPECT_EQ(s.type_id, 1);
  EXPECT_EQ(s.res.cpus, 8);
  EXPECT_EQ(s.res.memory_mb, 16384);
  EXPECT_EQ(s.res.disk_kb, 1000000);
}

TEST(SlotLayout, NumSlotsDividesEvenly) {
  Built b = build("NUM_CPUS = 4\nNUM_SLOTS = 4\n", machine(4, 4096));
  ASSERT_TRUE(b.ok) << b.err;
  ASSERT_EQ(b.layout.slots.size(), 4u);
  for (const SlotSpec& s : b.layout.slots) {
    EXPECT_FALSE(s.partitionable);
    EXPECT_EQ(s.res.cpus, 1);
    EXPECT_EQ(s.res.memory_mb, 1024);
    EXPECT_EQ(s.res.disk_kb, 250000);
  }
  EXPECT_EQ(b.layout.slots[3].id, 4);
}

TEST(SlotLayout, NumSlotsAboveCpusIsRejected) {
  // HTCONDOR: ep-policy "NUM_SLOTS may not be used to make HTCondor advertise more slots than
  // there are cores on the machine."
  Built b = build("NUM_CPUS = 2\nNUM_SLOTS = 3\n", machine(2, 4096));
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.err.find("NUM_SLOTS = 3"), std::string::npos) << b.err;
}

// HTCONDOR: ep-policy "a machine with 4 cores and 256 Mbytes of RAM ... Types 1-3 are all
// equivalent to each other, as are types 4-6."
TEST(SlotLayout, ReferenceTypeExamplesAreEquivalent) {
  const char* one_to_three[] = {
      "cpus=2, ram=128, swap=25%, disk=1/2",
      "cpus=1/2, memory=128, virt=25%, disk=50%",
      "c=1/2, m=50%, v=1/4, disk=1/2",
  };
  const char* four_to_six[] = {"c=25%, m=64, v=1/4, d=25%", "25%", "1/4"};
  for (const char* t : one_to_three) {
    Built b = build(std::string("NUM_CPUS = 4\nSLOT_TYPE_1 = ") + t + "\nNUM_SLOTS_TYPE_1 = 1\n",
                    machine(4, 256, 1000000, 400000));
    ASSERT_TRUE(b.ok) << t << ": " << b.err;
    const SlotSpec& s = b.layout.slots[0];
    EXPECT_EQ(s.res.cpus, 2) << t;
    EXPECT_EQ(s.res.memory_mb, 128) << t;
    EXPECT_EQ(s.res.swap_kb, 100000) << t;
    EXPECT_EQ(s.res.disk_kb, 500000) << t;
  }
  for (const char* t : four_to_six) {
    Built b = build(std::string("NUM_CPUS = 4\nSLOT_TYPE_1 = ") + t + "\nNUM_SLOTS_TYPE_1 = 1\n",
                    machine(4, 256, 1000000, 400000));
    ASSERT_TRUE(b.ok) << t << ": " << b.err;
    const SlotSpec& s = b.layout.slots[0];
    EXPECT_EQ(s.res.cpus, 1) << t;
    EXPECT_EQ(s.res.memory_mb, 64) << t;
    EXPECT_EQ(s.res.swap_kb, 100000) << t;
    EXPECT_EQ(s.res.disk_kb, 250000) << t;
  }
}

TEST(SlotLayout, MemoryFormsOnA128MbMachine) {
  // "in a machine with 128 Mbytes of RAM, all the following definitions result in the same".
  for (const char* t : {"mem=64", "mem=1/2", "mem=50%"}) {
    Built b = build(std::string("NUM_CPUS = 2\nSLOT_TYPE_1 = ") + t +
                        "\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = mem=64\nNUM_SLOTS_TYPE_2 = 1\n",
                    machine(2, 128));
    ASSERT_TRUE(b.ok) << t << ": " << b.err;
    EXPECT_EQ(b.layout.slots[0].res.memory_mb, 64) << t;
  }
  // mem=auto takes what the other slots leave.
  Built b = build("NUM_CPUS = 2\nSLOT_TYPE_1 = mem=auto\nNUM_SLOTS_TYPE_1 = 1\n"
                  "SLOT_TYPE_2 = mem=64\nNUM_SLOTS_TYPE_2 = 1\n",
                  machine(2, 128));
  ASSERT_TRUE(b.ok) << b.err;
  EXPECT_EQ(b.layout.slots[0].res.memory_mb, 64);
}

TEST(SlotLayout, AutoSharesWhatRemains) {
  // "if one slot is defined to use 10% of the memory and the rest define it as auto ... the
  // rest of the slots will evenly divide 90% of the memory between themselves."
  Built b = build("NUM_CPUS = 4\nSLOT_TYPE_1 = cpus=1, mem=10%\nNUM_SLOTS_TYPE_1 = 1\n"
                  "SLOT_TYPE_2 = cpus=1\nNUM_SLOTS_TYPE_2 = 3\n",
                  machine(4, 1000));
  ASSERT_TRUE(b.ok) << b.err;
  ASSERT_EQ(b.layout.slots.size(), 4u);
  EXPECT_EQ(b.layout.slots[0].res.memory_mb, 100);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(b.layout.slots[i].res.memory_mb, 300);
}

TEST(SlotLayout, BlanketShareWithDiskAuto) {
  // "the disk share is set to auto, number of cores is 1, and everything else is 50%"
  for (const char* t : {"cpus=1, ram=1/2, swap=50%", "cpus=1, disk=auto, 50%"}) {
    Built b = build(std::string("NUM_CPUS = 4\nSLOT_TYPE_1 = ") + t + "\nNUM_SLOTS_TYPE_1 = 1\n",
                    machine(4, 2048, 1000000, 400000));
    ASSERT_TRUE(b.ok) << t << ": " << b.err;
    const SlotSpec& s = b.layout.slots[0];
    EXPECT_EQ(s.res.cpus, 1) << t;
    EXPECT_EQ(s.res.memory_mb, 1024) << t;
    EXPECT_EQ(s.res.swap_kb, 200000) << t;
    EXPECT_EQ(s.res.disk_kb, 1000000) << t;
  }
}

TEST(SlotLayout, PartitionableTypeAndSlotIds) {
  Built b = build("NUM_CPUS = 8\nSLOT_TYPE_1 = 50%\nSLOT_TYPE_1_PARTITIONABLE = True\n"
                  "NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_2 = 25%\nNUM_SLOTS_TYPE_2 = 2\n",
                  machine(8, 8000));
  ASSERT_TRUE(b.ok) << b.err;
  ASSERT_EQ(b.layout.slots.size(), 3u);
  EXPECT_TRUE(b.layout.slots[0].partitionable);
  EXPECT_EQ(b.layout.slots[0].res.cpus, 4);
  EXPECT_FALSE(b.layout.slots[1].partitionable);
  EXPECT_EQ(b.layout.slots[1].type_id, 2);
  EXPECT_EQ(b.layout.slots[2].id, 3);
  EXPECT_EQ(b.layout.slots[2].res.memory_mb, 2000);
}

TEST(SlotLayout, CustomResources) {
  // HTCONDOR: ep-policy "SLOT_TYPE_1 = cogs=50%,actuator=6,50%" / "cogs=25%,actuator=1,25%"
  Built b = build("NUM_CPUS = 8\nMACHINE_RESOURCE_Cogs = 16\nMACHINE_RESOURCE_actuator = 8\n"
                  "SLOT_TYPE_1 = cogs=50%,actuator=6,50%\nSLOT_TYPE_1_PARTITIONABLE = True\n"
                  "NUM_SLOTS_TYPE_1 = 1\n"
                  "SLOT_TYPE_2 = cogs=25%,actuator=1,25%\nNUM_SLOTS_TYPE_2 = 2\n",
                  machine(8, 8000));
  ASSERT_TRUE(b.ok) << b.err;
  int cogs = -1, act = -1;
  for (size_t i = 0; i < b.layout.resources.size(); ++i) {
    if (b.layout.resources[i].name == "Cogs") cogs = static_cast<int>(i);
    if (b.layout.resources[i].name == "actuator") act = static_cast<int>(i);
  }
  ASSERT_GE(cogs, 0);
  ASSERT_GE(act, 0);
  EXPECT_EQ(b.layout.slots[0].res.custom[cogs], 8);
  EXPECT_EQ(b.layout.slots[0].res.custom[act], 6);
  EXPECT_EQ(b.layout.slots[0].res.cpus, 4);
  EXPECT_EQ(b.layout.slots[1].res.custom[cogs], 4);
  EXPECT_EQ(b.layout.slots[2].res.custom[act], 1);
  EXPECT_EQ(b.layout.slots[2].res.cpus, 2);
}

TEST(SlotLayout, MachineResourceNamesFilters) {
  Built b = build("MACHINE_RESOURCE_NAMES = cogs\nMACHINE_RESOURCE_cogs = 2\nMACHINE_RESOURCE_widgets = 5\n",
                  machine(2, 2000));
  ASSERT_TRUE(b.ok) << b.err;
  bool cogs = false, widgets = false;
  for (const CustomResource& r : b.layout.resources) {
    cogs |= r.name == "cogs";
    widgets |= r.name == "widgets";
  }
  EXPECT_TRUE(cogs);
  EXPECT_FALSE(widgets);
}

TEST(SlotLayout, ImpossibleLayoutsAreRejected) {
  struct Case {
    const char* conf;
    const char* want;
  } cases[] = {
      {"NUM_CPUS = 4\nSLOT_TYPE_1 = cpus=3\nNUM_SLOTS_TYPE_1 = 2\n", "cpus"},
      {"NUM_CPUS = 4\nSLOT_TYPE_1 = mem=60%\nNUM_SLOTS_TYPE_1 = 2\n", "memory"},
      {"NUM_CPUS = 4\nSLOT_TYPE_1 = disk=3/4\nNUM_SLOTS_TYPE_1 = 2\n", "disk"},
      {"NUM_CPUS = 2\nSLOT_TYPE_1 = cpus=2\nNUM_SLOTS_TYPE_1 = 1\nNUM_SLOTS_TYPE_2 = 1\n",
       "not enough"},
      {"NUM_CPUS = 2\nSLOT_TYPE_1 = cpus=lots\nNUM_SLOTS_TYPE_1 = 1\n", "SLOT_TYPE_1: cpus: bad amount"},
      {"NUM_CPUS = 2\nSLOT_TYPE_1 = frobs=1\nNUM_SLOTS_TYPE_1 = 1\n", "unknown resource 'frobs'"},
      {"NUM_CPUS = 2\nSLOT_TYPE_1 = 150%\nNUM_SLOTS_TYPE_1 = 1\n", "bad percentage"},
      {"NUM_CPUS = 2\nMACHINE_RESOURCE_cogs = 2\nSLOT_TYPE_1 = cogs=3\nNUM_SLOTS_TYPE_1 = 1\n", "cogs"},
  };
  for (const Case& c : cases) {
    Built b = build(c.conf, machine(4, 1024));
    EXPECT_FALSE(b.ok) << c.conf;
    EXPECT_NE(b.err.find(c.want), std::string::npos) << c.conf << " -> " << b.err;
  }
}

// The reference's constrained-GPU example as the server-4gpu board configures it: 2 A100
// (Capability 8.0) and 2 T4 (7.5), ids as condor_gpu_discovery names them.
MachineFacts server_4gpu() {
  MachineFacts f = machine(64, 515400, 100000000, 0);
  f.gpus = {
      {"GPU-6a96bd13", "Capability = 7.5\nDeviceName = \"Tesla T4\""},
      {"GPU-9b0e77c2", "Capability = 7.5\nDeviceName = \"Tesla T4\""},
      {"GPU-2fd1e5b4", "Capability = 8.0\nDeviceName = \"NVIDIA A100-PCIE-40GB\""},
      {"GPU-c4a646d7", "Capability = 8.0\nDeviceName = \"NVIDIA A100-PCIE-40GB\""},
  };
  return f;
}

TEST(SlotLayout, ConstrainedGpusOnServer4gpuBoard) {
  config::Config cfg;
  cfg.set_detected("DETECTED_CPUS", "64");
  auto st = cfg.load_file(std::string(KITE_SOURCE_DIR) + "/board/server-4gpu/board.conf");
  if (!st.ok) GTEST_SKIP() << "board fixture not available: " << st.message;
  Layout L;
  std::string err;
  ASSERT_TRUE(layout_build(cfg, server_4gpu(), &L, &err)) << err;
  ASSERT_EQ(L.slots.size(), 4u);
  int g = -1;
  for (size_t i = 0; i < L.resources.size(); ++i)
    if (L.resources[i].name == "GPUs") g = static_cast<int>(i);
  ASSERT_GE(g, 0);
  EXPECT_EQ(L.resources[g].total, 4);
  // slot1: partitionable, the two Capability >= 8.0 GPUs and 90% of the rest.
  EXPECT_TRUE(L.slots[0].partitionable);
  EXPECT_EQ(L.slots[0].res.ids[g], (std::vector<std::string>{"GPU-2fd1e5b4", "GPU-c4a646d7"}));
  EXPECT_EQ(L.slots[0].res.cpus, 57);
  // slot2: static, GPU-6a96bd13 by id, 1 CPU, 10 MB.
  EXPECT_FALSE(L.slots[1].partitionable);
  EXPECT_EQ(L.slots[1].res.ids[g], (std::vector<std::string>{"GPU-6a96bd13"}));
  EXPECT_EQ(L.slots[1].res.cpus, 1);
  EXPECT_EQ(L.slots[1].res.memory_mb, 10);
  // slots 3 and 4 split what is left (6 CPUs; one GPU for two slots: none each).
  EXPECT_EQ(L.slots[2].res.cpus, 3);
  EXPECT_EQ(L.slots[3].res.cpus, 3);
  EXPECT_EQ(L.slots[2].res.custom[g], 0);
}

TEST(SlotLayout, GpuConstraintThatCannotBeMet) {
  Built b = build("SLOT_TYPE_1 @=slot\n  GPUs = 3 : Capability >= 8.0\n@slot\nNUM_SLOTS_TYPE_1 = 1\n",
                  server_4gpu());
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.err.find("GPUs = 3 : Capability >= 8.0: only 2 matching device(s) left"),
            std::string::npos)
      << b.err;
}

}  // namespace
}  // namespace kite::startd
