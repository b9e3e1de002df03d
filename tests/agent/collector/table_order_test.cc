// The store's table order (agent/collector/table_order.h): scans asking for it walk the ads by
// Machine, then Name, numbers by value, across adds, removals and Machine changes between chunks.
#include "agent/collector/table_order.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "agent/collector/ad_store.h"
#include "tests/agent/collector/old_ad.h"

namespace kite::collector {
namespace {

using testing_ads::ad;

classad::AdPtr slot(const std::string& name, const std::string& machine) {
  return ad("Name = \"" + name + "\"\nMachine = \"" + machine + "\"\nState = \"Owner\"\n");
}

StoreConfig config() {
  StoreConfig c;
  c.classad_lifetime = 900;
  return c;
}

// The names a table-order scan of Machine ads returns, `chunk` ads at a time, with `between`
// run after the first chunk.
std::vector<std::string> scan(AdStore& s, size_t chunk,
                              const std::function<void()>& between = nullptr) {
  QuerySpec spec;
  spec.type = "Machine";
  spec.table_order = true;
  auto q = s.start_query(spec);
  std::vector<classad::AdPtr> out;
  bool more = q->next(s, chunk, &out);
  if (between) between();
  while (more) more = q->next(s, chunk, &out);
  std::vector<std::string> names;
  for (const auto& a : out) {
    std::string n;
    a->evaluate_string("Name", n);
    names.push_back(n);
  }
  return names;
}

TEST(TableOrder, ScansGoByMachineThenNameWithNumbersByValue) {
  AdStore s(config());
  std::string err;
  for (auto [name, machine] :
       std::vector<std::pair<const char*, const char*>>{{"slot10@b", "node-b"},
                                                        {"slot2@b", "node-b"},
                                                        {"slot1@a10", "node-10"},
                                                        {"slot1@a9", "node-9"},
                                                        {"slot1@b", "node-b"},
                                                        {"slot01@b", "node-b"}}) {
    ASSERT_TRUE(s.update("Machine", slot(name, machine), 0, false, &err)) << err;
  }
  // Another type's ads are interleaved in the order, never returned.
  ASSERT_TRUE(s.update("Negotiator", slot("slot3@b", "node-b"), 0, false, &err));
  EXPECT_EQ(scan(s, 100), (std::vector<std::string>{"slot1@a9", "slot1@a10", "slot1@b", "slot01@b",
                                                    "slot2@b", "slot10@b"}));
  EXPECT_EQ(scan(s, 1), scan(s, 100));
}

TEST(TableOrder, FollowsAddsRemovalsAndMachineChangesBetweenChunks) {
  AdStore s(config());
  std::string err;
  for (int m = 0; m < 4; ++m)
    for (int k = 1; k <= 3; ++k)
      ASSERT_TRUE(s.update(
          "Machine",
          slot("slot" + std::to_string(k) + "@m" + std::to_string(m), "m" + std::to_string(m)), 0,
          false, &err));
  ASSERT_EQ(scan(s, 100).size(), 12u);  // the order now exists and is kept up to date
  auto names = scan(s, 4, [&] {
    // Behind the cursor (never returned), ahead of it (returned in place), one gone, one moved
    // from behind the cursor to ahead of it.
    ASSERT_TRUE(s.update("Machine", slot("slot0@m0", "m0"), 1, false, &err));
    ASSERT_TRUE(s.update("Machine", slot("slot4@m2", "m2"), 1, false, &err));
    ASSERT_TRUE(s.invalidate("Machine", "slot2@m3", 1));
    ASSERT_TRUE(s.update("Machine", slot("slot1@m0", "m9"), 1, false, &err));
  });
  // The moved ad comes again at its new place (its Machine is another now), as an ad updated
  // between chunks comes with its new values.
  EXPECT_EQ(names,
            (std::vector<std::string>{"slot1@m0", "slot2@m0", "slot3@m0", "slot1@m1", "slot2@m1",
                                      "slot3@m1", "slot1@m2", "slot2@m2", "slot3@m2", "slot4@m2",
                                      "slot1@m3", "slot3@m3", "slot1@m0"}));
  // After the changes, a new scan sees them all in place.
  EXPECT_EQ(scan(s, 3),
            (std::vector<std::string>{"slot0@m0", "slot2@m0", "slot3@m0", "slot1@m1", "slot2@m1",
                                      "slot3@m1", "slot1@m2", "slot2@m2", "slot3@m2", "slot4@m2",
                                      "slot1@m3", "slot3@m3", "slot1@m0"}));
}

}  // namespace
}  // namespace kite::collector
