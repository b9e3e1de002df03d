// Merges (the changed attributes an agent sends after its full ad) against a real `kite cm`:
// they change the stored ad and its indexes, make a new ad when none is stored, and an agent
// may merge only into its own machine's ads, whether the merge names another machine or
// leaves Machine out and names another machine's ad.
#include <string>
#include <vector>

#include "cm_update_agent.h"
#include "net_test_util.h"
#include "pool_harness.h"

namespace kite::test {
namespace {

std::string full_ad(const std::string& slot, const std::string& machine) {
  return "{\"MyType\":\"Machine\",\"Name\":\"" + slot + "@" + machine + "\",\"Machine\":\"" +
         machine + "\",\"State\":\"Unclaimed\",\"Memory\":100}";
}

TEST(CmMerge, MergesChangeOnlyTheirOwnMachinesAds) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    MergeAgent a(&loop, pool, "node-a"), b(&loop, pool, "node-b");
    ASSERT_TRUE(run_until(&loop, [&] { return a.up && b.up; }));
    a.update(full_ad("slot1", "node-a"), false);
    b.update(full_ad("slot1", "node-b"), false);
    a.barrier(&loop);
    b.barrier(&loop);

    // A merge changes the attributes it names; the State index follows.
    a.update("{\"Name\":\"slot1@node-a\",\"Memory\":200,\"State\":\"Claimed\"}", true);
    // A merge for an ad not stored yet makes it.
    a.update("{\"Name\":\"slot2@node-a\",\"Machine\":\"node-a\",\"Memory\":7}", true);
    // A Name that is an expression takes the whole-ad path, with the same effect.
    a.update("{\"Name\":\"\\/Expr(strcat(\\\"slot1@\\\", \\\"node-a\\\"))\\/\",\"Cpus\":4}", true);
    a.barrier(&loop);
    EXPECT_TRUE(a.errors.empty()) << a.errors.front();
    CmdResult r = pool.status({"-af", "Name", "Memory", "State", "Cpus"}, "alice");
    EXPECT_EQ(r.out,
              "slot1@node-a 200 Claimed 4\nslot2@node-a 7 undefined undefined\n"
              "slot1@node-b 100 Unclaimed undefined\n")
        << r.err;
    r = pool.status({"-constraint", "State == \"Claimed\"", "-af", "Name"}, "alice");
    EXPECT_EQ(r.out, "slot1@node-a\n") << r.err;
    r = pool.status({"-constraint", "State == \"Unclaimed\"", "-af", "Name"}, "alice");
    EXPECT_EQ(r.out, "slot1@node-b\n") << r.err;

    // node-a may not merge into node-b's ad (Machine left out), nor move its own ad to
    // node-b, nor make an ad of node-b's.
    a.update("{\"Name\":\"slot1@node-b\",\"Memory\":1}", true);
    a.update("{\"Name\":\"slot1@node-a\",\"Machine\":\"node-b\",\"Memory\":2}", true);
    a.update("{\"Name\":\"slot9@node-b\",\"Machine\":\"node-b\"}", true);
    // A merge that is not JSON is refused with where it failed.
    a.update("{\"Name\":\"slot1@node-a\",\"Memory\":", true);
    a.barrier(&loop);
    ASSERT_EQ(a.errors.size(), 4u);
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(a.errors[static_cast<size_t>(i)],
                "update: agent node-a may not advertise for machine 'node-b'");
    EXPECT_NE(a.errors[3].find("update: \"ad\": "), std::string::npos) << a.errors[3];
    EXPECT_NE(a.errors[3].find("expected a value"), std::string::npos) << a.errors[3];
    r = pool.status({"-af", "Name", "Memory", "Machine"}, "alice");
    EXPECT_EQ(r.out, "slot1@node-a 200 node-a\nslot2@node-a 7 node-a\nslot1@node-b 100 node-b\n")
        << r.err;
    a.client->stop();
    b.client->stop();
    uv_run(&loop, UV_RUN_NOWAIT);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
}

}  // namespace
}  // namespace kite::test
