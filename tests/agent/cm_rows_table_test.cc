// The default table drawn straight from the CM's rows (agent/cli/status_rows_table.h) against a
// real `kite cm`: ads with odd values (missing, undefined, of other types, long names, digits
// that sort naturally, attribute-free expressions) print what the same ads print through
// `kite status -ads`, again when served from the CM's kept rows, and after a merge changes one;
// whether the rows came in the table's order (drawn as they come) or not (sorted by the client).
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "cm_update_agent.h"
#include "net_test_util.h"
#include "pool_harness.h"

namespace kite::test {
namespace {

std::string slot_ad(const std::string& name, const std::string& machine, const std::string& more) {
  std::string ad = "{\"MyType\":\"Machine\",\"Name\":\"" + name + "\"";
  if (!machine.empty()) ad += ",\"Machine\":\"" + machine + "\"";
  return ad + (more.empty() ? "" : ",") + more + "}";
}

const char* const kUsual =
    "\"OpSys\":\"LINUX\",\"Arch\":\"X86_64\",\"State\":\"Claimed\",\"Activity\":\"Busy\","
    "\"CondorLoadAvg\":0.25,\"Memory\":2048,\"EnteredCurrentActivity\":1764000000,"
    "\"MyCurrentTime\":1764003723";

// `text` left-aligned in `width` columns.
std::string pad(const std::string& text, size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

// The forms the rows path draws, each compared with the whole ads through -ads.
void expect_forms_match(Pool& pool, const std::string& file) {
  CmdResult whole = pool.status({"-l"}, "alice");
  ASSERT_EQ(whole.status, 0) << whole.err;
  std::string err;
  ASSERT_TRUE(core::write_file_atomic(file, whole.out, 0644, &err)) << err;
  for (const std::vector<std::string>& form : std::vector<std::vector<std::string>>{
           {}, {"-avail"}, {"-natural:off"}, {"-claimed"}, {"-server"}}) {
    CmdResult got = pool.status(form, "alice");
    std::vector<std::string> argv = kite_command();
    argv.insert(argv.end(), {"status", "-ads", file});
    argv.insert(argv.end(), form.begin(), form.end());
    CmdResult want = run_cmd(argv, 30000);
    EXPECT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << testing::PrintToString(form);
  }
}

TEST(CmRowsTable, TheDefaultTableFromRowsPrintsWhatTheWholeAdsPrint) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string file = pool.pki().dir + "/whole.ads";
  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    MergeAgent cm(&loop, pool, "cm1");  // role cm: may advertise any machine
    ASSERT_TRUE(run_until(&loop, [&] { return cm.up; }));
    const std::string usual = kUsual;
    for (const char* n : {"slot1", "slot2", "slot10", "slot9", "slot010"})
      cm.update(slot_ad(std::string(n) + "@node-a", "node-a", usual), false);
    cm.update(slot_ad("slot1@a-machine-with-a-name-longer-than-the-column", "long", usual), false);
    // Odd values, each where the table reads it.
    cm.update(slot_ad("odd1@node-b", "node-b",
                      "\"OpSys\":7,\"Arch\":true,\"State\":null,\"Activity\":\"Idle\",\"OCU\":1,"
                      "\"CondorLoadAvg\":123456.789,\"Memory\":1234.9,"
                      "\"EnteredCurrentActivity\":1764009999,\"MyCurrentTime\":1764003723"),
              false);
    cm.update(slot_ad("odd2@node-b", "node-b",
                      "\"OpSys\":\"LINUX\",\"Arch\":\"X86_64\",\"State\":5,"
                      "\"CondorLoadAvg\":true,\"Memory\":\"big\",\"EnteredCurrentActivity\":\"x\","
                      "\"MyCurrentTime\":1764003723.9"),
              false);
    cm.update(slot_ad("odd3@node-b", "", "\"State\":\"Unclaimed\",\"Cpus\":1,\"Memory\":-5"),
              false);
    cm.update(slot_ad("odd4@node-b", "node-b",
                      "\"State\":\"Owner\",\"Activity\":\"Idle\",\"OCU\":false,"
                      "\"CondorLoadAvg\":-0.0005,\"Memory\":0,\"MyCurrentTime\":true"),
              false);
    // Loads whose %.3f is printed without printf, and ones near a half that printf decides; a
    // quote, which the rows frame escapes.
    int n = 0;
    for (const char* load : {"0.0005", "2.0005", "1.2345", "0.9999", "999.9996", "7.25",
                             "100000000.123", "0.0", "3", "1e300", "0.0015"}) {
      cm.update(slot_ad("load" + std::to_string(++n) + "@node-d", "node-d",
                        "\"OpSys\":\"LINUX\",\"Arch\":\"X86_64\",\"State\":\"Claimed\","
                        "\"Activity\":\"Busy\",\"Memory\":1,\"CondorLoadAvg\":" +
                            std::string(load)),
                false);
    }
    cm.update(slot_ad("quote@node-e", "node-e",
                      "\"OpSys\":\"LI\\\"NUX\",\"Arch\":\"X86_64\",\"State\":\"Claimed\""),
              false);
    cm.barrier(&loop);
    ASSERT_TRUE(cm.errors.empty()) << cm.errors.front();
    expect_forms_match(pool, file);
    // What the rows path printed, by hand where the values are odd: the Name column as wide as
    // the longest name (50), State as "Unclaimed" and "undefined" (9); OpSys and Arch print
    // strings only; a load of 123456.789 is cut to 6; a negative activity time is 0; a real
    // clock is truncated; an entry time that is no number counts as 0, and the 14 characters
    // of 20416+17:02:03 are cut to 12.
    CmdResult t = pool.status({}, "alice");
    EXPECT_NE(t.out.find("slot1@a-machine-with-a-name-longer-than-the-column LINUX      X86_64   "
                         "Claimed   Busy      0.250   2048  0+01:02:03\n"),
              std::string::npos)
        << t.out;
    EXPECT_NE(t.out.find(pad("odd1@node-b", 50) + " " + pad("", 10) + " " + pad("", 8) +
                         " undefined OCU      123456   1234  0+00:00:00\n"),
              std::string::npos)
        << t.out;
    EXPECT_NE(t.out.find(pad("odd2@node-b", 50) +
                         " LINUX      X86_64   5         ??        1.000 [????]20416+17:02:\n"),
              std::string::npos)
        << t.out;
    // Without a clock (MyCurrentTime, LastHeardFrom) the activity time is "-".
    EXPECT_NE(t.out.find(pad("odd3@node-b", 50) + " " + pad("", 10) + " " + pad("", 8) +
                         " Unclaimed ??       [????]     -5           -\n"),
              std::string::npos)
        << t.out;
    // The same table again comes from the CM's kept rows; a merge changes one ad's row.
    expect_forms_match(pool, file);
    cm.update("{\"Name\":\"slot2@node-a\",\"Memory\":4096,\"State\":\"Unclaimed\"}", true);
    cm.barrier(&loop);
    t = pool.status({}, "alice");
    EXPECT_NE(t.out.find(pad("slot2@node-a", 50) + " LINUX      X86_64   Unclaimed Busy      0.250 "
                                                   "  4096"),
              std::string::npos)
        << t.out;
    expect_forms_match(pool, file);
    // Expressions that read no attribute travel in the rows; one that reads others takes the
    // ads path. Both print what the whole ads print.
    cm.update(slot_ad("expr1@node-c", "node-c",
                      usual + ",\"Memory\":\"\\/Expr(1000 + 24)\\/\","
                              "\"EnteredCurrentActivity\":\"\\/Expr(1764000000 - 60)\\/\""),
              false);
    cm.barrier(&loop);
    expect_forms_match(pool, file);
    cm.update(slot_ad("expr2@node-c", "node-c",
                      "\"OpSys\":\"LINUX\",\"Cpus\":2,\"Memory\":\"\\/Expr(Cpus * 512)\\/\""),
              false);
    cm.barrier(&loop);
    expect_forms_match(pool, file);
    t = pool.status({}, "alice");
    EXPECT_NE(t.out.find(pad("expr2@node-c", 50) + " LINUX      " + pad("", 8) +
                         " undefined ??       [????]   1024           -\n"),
              std::string::npos)
        << t.out;
    // A Machine in capitals: the CM's table order (lower case) is not the client's (capitals
    // first), which then sorts the rows itself.
    cm.update(slot_ad("slot1@Node-F", "Node-F", usual), false);
    cm.barrier(&loop);
    expect_forms_match(pool, file);
    // A backslash and a tab, escaped in the rows frame, print as themselves (by hand: the ads
    // that `-l` prints do not read back the same through -ads).
    cm.update("{\"Name\":\"quote@node-e\",\"OpSys\":\"LI\\\"N\\\\UX\",\"Arch\":\"X8\\t6\"}", true);
    cm.barrier(&loop);
    t = pool.status({}, "alice");
    EXPECT_NE(t.out.find(pad("quote@node-e", 50) +
                         " LI\"N\\UX    X8\t6     Claimed   ??       [????] [????]           -\n"),
              std::string::npos)
        << t.out;
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
}

}  // namespace
}  // namespace kite::test
