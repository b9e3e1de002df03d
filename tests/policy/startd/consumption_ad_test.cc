// A partitionable slot with a consumption policy advertises Consumption<resource> for every
// resource (what the negotiator sizes its matches by); without one it advertises none.
#include <gtest/gtest.h>

#include <string>

#include "policy/classad/unparse.h"
#include "policy/startd/startd.h"
#include "startd_rig.h"

namespace kite::startd {
namespace {

std::string attr_text(StartdRig& r, const char* slot, const char* name) {
  SlotView v;
  if (!r.sd->slot(slot, &v)) return "no slot";
  const classad::Expr* e = v.ad->lookup(name);
  if (!e) return "missing";
  std::string out;
  classad::unparse_expr(out, e);
  return out;
}

const char* const kLayout =
    "MACHINE_RESOURCE_NAMES = gpus\nMACHINE_RESOURCE_gpus = 4\n"
    "SLOT_TYPE_1 = cpus=8, gpus=4\nSLOT_TYPE_1_PARTITIONABLE = True\nNUM_SLOTS_TYPE_1 = 1\n";

TEST(ConsumptionAd, EveryResourceHasItsExpressionWithThePolicyOn) {
  StartdRig r((std::string(kLayout) + "SLOT_TYPE_1_CONSUMPTION_POLICY = True\n"
                                      "SLOT_TYPE_1_CONSUMPTION_CPUS = TARGET.RequestCpus\n")
                  .c_str(),
              8, 8192);
  EXPECT_EQ(attr_text(r, "slot1", "ConsumptionCpus"), "TARGET.RequestCpus");
  // The documented defaults for memory and disk.
  EXPECT_EQ(attr_text(r, "slot1", "ConsumptionMemory"), "quantize(target.RequestMemory,{ 128 })");
  EXPECT_EQ(attr_text(r, "slot1", "ConsumptionDisk"), "quantize(target.RequestDisk,{ 1024 })");
  // A custom resource without CONSUMPTION_<name> takes what the job requests.
  EXPECT_EQ(attr_text(r, "slot1", "ConsumptionGPUs"),
            "ifThenElse(target.RequestGPUs is undefined,0,target.RequestGPUs)");
}

TEST(ConsumptionAd, NoneWithoutThePolicy) {
  StartdRig r(kLayout, 8, 8192);
  EXPECT_EQ(attr_text(r, "slot1", "ConsumptionCpus"), "missing");
  EXPECT_EQ(attr_text(r, "slot1", "Consumptiongpus"), "missing");
}

}  // namespace
}  // namespace kite::startd
