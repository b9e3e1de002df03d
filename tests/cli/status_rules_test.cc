// `kite status -ads` against condor_status's print rules for ads the recorded outputs do not
// cover: several machines in natural order, missing and odd values, long names, days-long
// activity times, abbreviated options, -sort, -wide, -limit, -attributes and the -af letters.
// Every expected text is written out by hand from the rules (condor_status.V6/prettyPrint.cpp
// and status.cpp, condor_utils/ad_printmask.cpp, as cited in agent/cli/status_*.cc).
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/kite_status_run.h"

namespace {

using kite_test::kite_status;
using kite_test::pad;
using kite_test::Result;

// One slot ad; an empty value leaves the attribute out.
std::string slot(const std::string& name, const std::string& machine, const std::string& state,
                 const std::string& activity, const std::string& load, const std::string& memory,
                 const std::string& entered, const std::string& now) {
  std::string ad = "MyType = \"Machine\"\nName = \"" + name + "\"\nMachine = \"" + machine +
                   "\"\nOpSys = \"LINUX\"\nArch = \"X86_64\"\nState = \"" + state +
                   "\"\nActivity = \"" + activity + "\"\nCpus = 1\n";
  if (!load.empty()) ad += "CondorLoadAvg = " + load + "\n";
  if (!memory.empty()) ad += "Memory = " + memory + "\n";
  if (!entered.empty()) ad += "EnteredCurrentActivity = " + entered + "\n";
  if (!now.empty()) ad += "MyCurrentTime = " + now + "\n";
  return ad + "\n";
}

const char kHeader[] =
    "Name                               OpSys      Arch     State     Activity LoadAv Mem     "
    "ActvtyTime\n\n";
const char kTotalsHead[] =
    "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\n";

// Four machines' slots, out of order: N1 (capital first), n2 (slot2 before slot10), n10.
std::string pool_ads() {
  return slot("slot10@n2", "n2", "Claimed", "Busy", "1.0", "512", "0", "273725") +
         slot("slot2@n2", "n2", "Unclaimed", "Idle", "0.0", "1024", "100", "160") +
         slot("slot1@N1", "N1", "Owner", "Idle", "", "", "0", "86400000") +
         slot("slot1@n10", "n10", "Matched", "Idle", "0.0", "512", "5", "");
}

TEST(KiteStatusRules, DefaultTableInNaturalOrderWithMissingValues) {
  Result r = kite_status(pool_ads(), "");
  ASSERT_EQ(r.status, 0) << r.out;
  // A missing load or memory is a field of question marks as wide as the column; 1000 days of
  // activity are cut to the column's 12; no clock (MyCurrentTime, LastHeardFrom) prints "-".
  std::string want =
      std::string(kHeader) + pad("slot1@N1", 34) +
      " LINUX      X86_64   Owner     Idle     [????] [????]1000+00:00:0\n" + pad("slot2@n2", 34) +
      " LINUX      X86_64   Unclaimed Idle      0.000   1024  0+00:01:00\n" + pad("slot10@n2", 34) +
      " LINUX      X86_64   Claimed   Busy      1.000    512  3+04:02:05\n" + pad("slot1@n10", 34) +
      " LINUX      X86_64   Matched   Idle      0.000    512           -\n" + kTotalsHead +
      "  X86_64/LINUX     4     1       1         1       1          0      0  "
      "      0      0\n\n"
      "         Total     4     1       1         1       1          0      0  "
      "      0      0\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatusRules, MissingNameStateAndPlatform) {
  // No Name: "[????]" across its 34; no OpSys/Arch: blank (a fixed width without a format
  // shows strings only); no State: "undefined", which widens State only from that row on; no
  // Activity: "??"; no entry time counts from 0. Without Arch and OpSys the ad is left out of
  // the totals as malformed.
  Result r = kite_status("Machine = \"m\"\nMyCurrentTime = 5\n", "");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string want = pad("Name", 34) + " " + pad("OpSys", 10) + " " + pad("Arch", 8) +
                     " State Activity LoadAv Mem     ActvtyTime\n\n" + "[" + std::string(32, '?') +
                     "] " + std::string(10, ' ') + " " + std::string(8, ' ') +
                     " undefined ??       [????] [????]  0+00:00:05\n" +
                     "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain "
                     "Backfill BkIdle\n\n"
                     "         Total     0     0       0         0       0          0      0  "
                     "      0      0\n\n"
                     "              (Omitted 1 malformed ads in computed attribute totals)\n\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatusRules, LongNamesWidenTheNameColumnForEveryRow) {
  std::string name = "slot1@averyveryverylongmachinename.example.org";  // 46 letters
  std::string ads = slot(name, "b", "Unclaimed", "Idle", "0.0", "1", "0", "0") +
                    slot("slot1@a", "a", "Unclaimed", "Suspended", "0.0", "1", "0", "0");
  Result r = kite_status(ads, "");
  ASSERT_EQ(r.status, 0) << r.out;
  // Activity is 8 wide and not cut: "Suspended" pushes the rest of its row right.
  std::string want =
      pad("Name", 46) + " OpSys      Arch     State     Activity LoadAv Mem     ActvtyTime\n\n" +
      pad("slot1@a", 46) + " LINUX      X86_64   Unclaimed Suspended  0.000      1  0+00:00:00\n" +
      name + " LINUX      X86_64   Unclaimed Idle      0.000      1  0+00:00:00\n";
  EXPECT_EQ(r.out.substr(0, want.size()), want);
}

TEST(KiteStatusRules, AbbreviatedOptionsAndTotalsKeyWidth) {
  // -tot is -totals, -wid -wide (the totals' key column then fits its keys).
  Result r = kite_status(pool_ads(), "-tot -wid");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(
      r.out,
      "\n             Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill "
      "BkIdle\n\n"
      "X86_64/LINUX     4     1       1         1       1          0      0        0      0\n\n"
      "       Total     4     1       1         1       1          0      0        0      0\n");
  // Without -wide a key longer than 14 is cut.
  std::string solaris =
      "Name = \"s@h\"\nArch = \"X86_64\"\nOpSys = \"SOLARIS11\"\nState = "
      "\"Owner\"\n";
  EXPECT_EQ(
      kite_status(solaris, "-total").out,
      "\n               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill "
      "BkIdle\n\n"
      "X86_64/SOLARIS     1     1       0         0       0          0      0        0      0\n\n"
      "         Total     1     1       0         0       0          0      0        0      "
      "0\n");
  EXPECT_EQ(kite_status(pool_ads(), "-cons 'Memory > 600' -af Name").out, "slot2@n2\n");
  EXPECT_EQ(kite_status(pool_ads(), "-tota").status, 0);
  EXPECT_EQ(kite_status(pool_ads(), "-s").status, 2);  // -s names no option alone
}

TEST(KiteStatusRules, WideShowsTheFullActivityTimeHeader) {
  Result r = kite_status(slot("slot1@a", "a", "Owner", "Idle", "0.0", "1", "0", "61"), "-wide");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string want =
      pad("Name", 34) + " OpSys      Arch     State Activity LoadAv Mem    ActivityTime\n\n" +
      pad("slot1@a", 34) + " LINUX      X86_64   Owner Idle      0.000      1   0+00:01:01\n";
  EXPECT_EQ(r.out.substr(0, want.size()), want);
}

TEST(KiteStatusRules, SortKeysDropUndefinedAndCompareAsText) {
  std::string ads = pool_ads();
  // -sort Memory leaves out slot1@N1 (no Memory); equal keys keep the order they came in.
  EXPECT_EQ(kite_status(ads, "-sort Memory -af Name").out, "slot10@n2\nslot1@n10\nslot2@n2\n");
  // Two keys: State, then Name.
  EXPECT_EQ(kite_status(ads, "-sort State -sort Name -af Name State").out,
            "slot10@n2 Claimed\nslot1@n10 Matched\nslot1@N1 Owner\nslot2@n2 Unclaimed\n");
  // -sort none keeps the file's order.
  EXPECT_EQ(kite_status(ads, "-sort none -af Name").out,
            "slot10@n2\nslot2@n2\nslot1@N1\nslot1@n10\n");
  // -natural:off compares the keys as plain text: n10 before n2, slot10 before slot2.
  EXPECT_EQ(kite_status(ads, "-natural:off -af Name").out,
            "slot1@N1\nslot1@n10\nslot10@n2\nslot2@n2\n");
}

TEST(KiteStatusRules, NamesAndAvailAreEitherOr) {
  // condor_status ANDs the constraints but ORs -avail with the NAME arguments. (A NAME with
  // an '@' is taken as it is; one without is a host name condor_status resolves first.)
  EXPECT_EQ(kite_status(pool_ads(), "-avail slot1@n10 -af Name").out, "slot2@n2\nslot1@n10\n");
  EXPECT_EQ(kite_status(pool_ads(), "slot1@N1 slot1@n10 -af Name").out, "slot1@N1\nslot1@n10\n");
}

TEST(KiteStatusRules, LimitAttributesAndAllAdTypesFromAFile) {
  std::string ads = pool_ads() + "MyType = \"Scheduler\"\nName = \"sched\"\nMachine = \"a\"\n";
  // A file's ads are not picked by type; -limit takes the first N that match.
  EXPECT_EQ(kite_status(ads, "-af Name").out, "slot1@N1\nsched\nslot2@n2\nslot10@n2\nslot1@n10\n");
  EXPECT_EQ(kite_status(ads, "-limit 2 -af Name").out, "slot2@n2\nslot10@n2\n");
  EXPECT_EQ(kite_status(ads, "-l -attributes name,Memory -limit 1").out,
            "Memory = 512\nName = \"slot10@n2\"\n\n");
  // Private attributes (claim ids, _condor_priv*) are never printed whole.
  EXPECT_EQ(kite_status("Name = \"a\"\nClaimId = \"x\"\n_condor_privKey = 1\nCpus = 1\n", "-l").out,
            "Cpus = 1\nName = \"a\"\n\n");
}

TEST(KiteStatusRules, AutoformatSeparatorsAndRawExpressions) {
  std::string ads = "Name = \"s\"\nCpus = 2\nLoad = 1.5\nStart = Cpus > 0\n";
  // 'n' ends each value but the last with a newline; the blank before each value stays.
  EXPECT_EQ(kite_status(ads, "-af:n Name Cpus").out, "s\n 2\n");
  // 'g' drops the blank and starts each ad with a newline; with 'l' and 'n': the -long look.
  EXPECT_EQ(kite_status(ads, "-af:lng Name Cpus").out, "\nName = s\nCpus = 2\n");
  // 'r' prints expressions as written, a missing attribute as undefined.
  EXPECT_EQ(kite_status(ads, "-af:r Start 'Cpus * 2' Nope").out, "Cpus > 0 Cpus * 2 undefined\n");
  // Reals print as old ClassAds do; 'T' as a time span.
  EXPECT_EQ(kite_status(ads, "-af Load 'Cpus * 1.0'").out, "1.5 2.0\n");
  EXPECT_EQ(kite_status(ads, "-af:T 'Cpus * 3700'").out, "  0+02:03:20\n");
  // 'j' leads with the job id: ClusterId.ProcId, else JobId, else nothing (not even a label).
  std::string slots =
      "Name = \"a\"\nJobId = \"3.0\"\n\nName = \"b\"\n\nName = \"c\"\nClusterId = 7\n";
  EXPECT_EQ(kite_status(slots, "-af:j Name").out, "3.0 a\n b\n7.-1 c\n");
  EXPECT_EQ(kite_status(slots, "-af:jl Name").out,
            "ID = 3.0 Name = a\n Name = b\nID = 7.-1 Name = c\n");
  // A heading sized before an undefined value widens its column from that row on.
  EXPECT_EQ(kite_status(ads, "-af:h Nope Name").out, "Nope Name\nundefined s   \n");
}

TEST(KiteStatusRules, FormatPercentSTakesStringsOrTheAttributeAsWritten) {
  std::string ads = "Name = \"s\"\nCpus = 2\nStart = Cpus > 0\n";
  EXPECT_EQ(kite_status(ads,
                        "-format '%s|' Start -format '%s|' Cpus -format '%s|' 'Cpus*2' "
                        "-format '%d|' Start -format '%5.2f\\n' Cpus")
                .out,
            "Cpus > 0|2|1| 2.00\n");
}

}  // namespace

namespace {

// condor_status -long:new (prettyPrint.cpp printNewClassad): "{", each ad in new ClassAd syntax
// on one line (attributes sorted as -long sorts them, reals as %1.15E), "," lines between, "}";
// nothing at all when no ad matches.
TEST(KiteStatusRules, LongNewPrintsNewClassAdSyntax) {
  std::string ads =
      "Name = \"a\"\nCpus = 2\nLoad = 0.25\nStart = Cpus > 0\nL = {1, \"s\"}\nClaimId = \"x\"\n\n"
      "Name = \"b\"\nCpus = 1\n";
  EXPECT_EQ(kite_status(ads, "-long:new").out,
            "{\n"
            "[ Cpus = 2; L = { 1,\"s\" }; Load = 2.500000000000000E-01; Name = \"a\"; Start = Cpus "
            "> 0 ]\n"
            ",\n"
            "[ Cpus = 1; Name = \"b\" ]\n"
            "}\n");
  EXPECT_EQ(kite_status(ads, "-long:new -attributes Name").out,
            "{\n[ Name = \"a\" ]\n,\n[ Name = \"b\" ]\n}\n");
  EXPECT_EQ(kite_status(ads, "-long:new -constraint false").out, "");
}

TEST(KiteStatusRules, XmlIsHtcondorsClassAdDocument) {
  std::string ads =
      "Name = \"a<b\"\nCpus = 2\nLoad = 0.25\nStart = Cpus > 0 && Name == \"x\"\n"
      "L = {1, \"s\"}\nB = true\nU = undefined\n";
  const char head[] =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";
  EXPECT_EQ(kite_status(ads, "-xml").out,
            std::string(head) +
                "<c>\n"
                "    <a n=\"B\"><b v=\"t\"/></a>\n"
                "    <a n=\"Cpus\"><i>2</i></a>\n"
                "    <a n=\"L\"><l><i>1</i><s>s</s></l></a>\n"
                "    <a n=\"Load\"><r>2.500000000000000E-01</r></a>\n"
                "    <a n=\"Name\"><s>a&lt;b</s></a>\n"
                "    <a n=\"Start\"><e>Cpus &gt; 0 &amp;&amp; Name == \"x\"</e></a>\n"
                "    <a n=\"U\"><un/></a>\n"
                "</c>\n\n"
                "</classads>\n");
  // No ad: the document still opens and closes.
  EXPECT_EQ(kite_status(ads, "-long:xml -constraint false").out,
            std::string(head) + "</classads>\n");
}

}  // namespace

namespace {

TEST(KiteStatusRules, CompactTotalCountsWhatCompactShowsWithoutRollingUp) {
  // A partitionable slot with one claimed dynamic slot, and a static slot: -compact -total
  // leaves the dynamic slot out (-compact's constraint) and does not roll ChildState up.
  std::string ads =
      "Name = \"slot1@p\"\nMachine = \"p\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\n"
      "PartitionableSlot = true\nState = \"Unclaimed\"\nChildState = {\"Claimed\"}\n\n"
      "Name = \"slot1_1@p\"\nMachine = \"p\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\n"
      "DynamicSlot = true\nState = \"Claimed\"\n\n"
      "Name = \"slot1@s\"\nMachine = \"s\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\n"
      "State = \"Owner\"\n";
  // (condor_status warns on stderr, which the helper folds in first.)
  Result r = kite_status(ads, "-compact -total");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out,
            "Warning: ignoring -compact option because -total option is also set\n" +
                std::string(kTotalsHead) +
                "  X86_64/LINUX     2     1       0         1       0          0      0        0"
                "      0\n\n"
                "         Total     2     1       0         1       0          0      0        0"
                "      0\n");
}

TEST(KiteStatusRules, NumbersAreReadAsHtcondorLooksThemUp) {
  // Reals count as integers (truncated) and booleans as 0/1 in the -server totals.
  std::string ads =
      "Name = \"s@h\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\nState = \"Claimed\"\n"
      "Memory = 1024.9\nDisk = true\nMips = 3\nKFlops = 4\nCondorLoadAvg = 0.5\n";
  Result r = kite_status(ads, "-server -total");
  EXPECT_EQ(r.out,
            "\n                  Slots Avail  Memory        Disk        MIPS      KFLOPS\n\n"
            "  X86_64/LINUX        1     1        1024           1           3           4\n\n"
            "         Total        1     1        1024           1           3           4\n");
  // -af:h prints its heading even when no ad matches.
  EXPECT_EQ(kite_status(ads, "-af:h Name Cpus -constraint false").out, "Name Cpus\n");
}

}  // namespace

namespace {

TEST(KiteStatusRules, MasterShowsVersionCoresMemoryAndUptime) {
  std::string ads =
      "MyType = \"DaemonMaster\"\nName = \"node.example.org\"\nMachine = \"node.example.org\"\n"
      "CondorVersion = \"$CondorVersion: 25.4.0 2025-10-01 BuildID: 812345 PackageID: 25.4.0-1 "
      "$\"\nDetectedCpus = 2\nDetectedMemory = 24105\nDaemonStartTime = 1000\n"
      "LastHeardFrom = 94661\n\n"
      "MyType = \"DaemonMaster\"\nName = \"m2\"\n"
      "CondorVersion = \"$CondorVersion: 25.0.1 Jan 02 2025 PRE-RELEASE-UWCS $\"\n";
  // Version: X.Y.Z.BuildID (the first word after an old-style date when there is no BuildID);
  // Memory: MB as metric units; Uptime: LastHeardFrom - DaemonStartTime; no totals.
  EXPECT_EQ(kite_status(ads, "-master").out,
            "Name             Version        Cpus   Memory      Uptime    \n\n"
            "node.example.org 25.4.0.812345     2    23.5 GB    1+02:01:01\n"
            "m2               25.0.1.PRE     [??]                         \n");
}

}  // namespace

namespace {

TEST(KiteStatusRules, CompactWithoutPlatformOrJobStarts) {
  // No OpSysAndVer: Platform is blank and the totals key on OpSys; no RecentJobStarts keeps
  // Jobs/Min at its "_"; missing totals print blank in their printf widths.
  std::string ads =
      "Name = \"slot1@h\"\nMachine = \"h\"\nArch = \"X86_64\"\nOpSys = \"LINUX\"\n"
      "State = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 1\nMemory = 1024\n"
      "SlotType = \"Static\"\nSlotTypeId = 1\n";
  std::string row = pad("h", 12) + " " + pad("", 8) + " " + "   1S" + " " + pad("", 4) + " " +
                    pad("", 4) + " " + pad("", 8) + " " + "     1" + " " + "    1.00" + " " +
                    pad("", 7) + " " + "Ui" + " " + pad("_", 8) + " " + "     1.00";
  EXPECT_EQ(kite_status(ads, "-compact").out,
            "Machine      Platform Slots Cpus Gpus  TotalGb FreCpu  FreeGb  CpuLoad ST Jobs/Min "
            "MaxSlotGb\n\n" +
                row + "\n" + kTotalsHead +
                "         LINUX     1     0       0         1       0          0      0        0"
                "      0\n\n"
                "         Total     1     0       0         1       0          0      0        0"
                "      0\n");
}

}  // namespace

namespace {

TEST(KiteStatusRules, ServerAndStateDrawTheSlotsAModeSelects) {
  // -avail picks the slots, -server draws them (the style may move from normal to server).
  Result r = kite_status(pool_ads(), "-avail -server");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find("\n\n") + 2 + 34),
            pad("Name", 34) +
                " OpSys      Arch     LoadAv Memory   Disk      Mips    KFlops   \n\n" +
                pad("slot2@n2", 34));
  EXPECT_EQ(r.out.find("slot10@n2"), std::string::npos) << r.out;
  // Two modes contradict each other: an error, nothing printed. (Arguments count as
  // condor_status's do: -ads is 1, its file 2.)
  Result both = kite_status(pool_ads(), "-avail -claimed");
  EXPECT_EQ(both.status, 1);
  EXPECT_EQ(both.out, "Error:  Arg 4 (-claimed) contradicts arg 3 (-avail)\n");
  // A style that would move back is refused with a message; the first one stays.
  Result back = kite_status(pool_ads(), "-state -server -af Name");
  EXPECT_EQ(back.status, 0);
  EXPECT_EQ(back.out.substr(0, back.out.find('\n') + 1),
            "Error:  arg 4 (-server) contradicts arg 3 (-state)\n");
}

}  // namespace

namespace {

// A partitionable slot with a core left and two dynamic slots (one of them listed), and a
// machine with two static slots of one type, for the compact forms of -server, -state and
// -claimed (condor_status.V6/prettyPrint.cpp: serverCompact, stateCompact, claimedCompact).
std::string compact_pool_ads() {
  std::string common = "Arch = \"X86_64\"\nOpSys = \"LINUX\"\nOpSysAndVer = \"Debian12\"\n";
  std::string pslot =
      "Name = \"slot1@node.example.org\"\nMachine = \"node.example.org\"\n" + common +
      "PartitionableSlot = true\nSlotType = \"Partitionable\"\nSlotTypeId = 1\n"
      "State = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 1\nMemory = 23849\nDisk = 1000000\n"
      "TotalSlotCpus = 2\nTotalSlotGpus = 0\nTotalSlotMemory = 24105\nTotalLoadAvg = 0.02\n"
      "TotalCpus = 2\nLoadAvg = 0.02\nRecentJobStarts = 8\nNumDynamicSlots = 2\n"
      "ChildState = {\"Claimed\", \"Claimed\"}\nChildActivity = {\"Busy\", \"Busy\"}\n"
      "ChildRemoteUser = {\"htcuser@node.example.org\", \"bob@node.example.org\", "
      "\"htcuser@node.example.org\"}\n\n";
  std::string dslot = "Name = \"slot1_1@node.example.org\"\nMachine = \"node.example.org\"\n" +
                      common +
                      "DynamicSlot = true\nSlotType = \"Dynamic\"\nSlotTypeId = -1\n"
                      "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"x@y\"\nCpus = 1\n"
                      "Memory = 128\nMips = 5\nKFlops = 6\nDisk = 7\nLoadAvg = 0.5\n\n";
  auto stat = [&](const char* name, const char* state, const char* activity, const char* load,
                  const char* starts) {
    return std::string("Name = \"") + name + "@s2.example.org\"\nMachine = \"s2.example.org\"\n" +
           common + "SlotType = \"Static\"\nSlotTypeId = 1\nState = \"" + state +
           "\"\nActivity = \"" + activity +
           "\"\nCpus = 1\nMemory = 1024\nDisk = 2000\nMips = 1000\nKFlops = 3000\n"
           "TotalSlotCpus = 1\nTotalSlotGpus = 0\nTotalSlotMemory = 1024\nTotalLoadAvg = 1.0\n"
           "TotalCpus = 2\nLoadAvg = " +
           load + "\nRecentJobStarts = " + starts + "\n\n";
  };
  return pslot + dslot + stat("slot1", "Claimed", "Busy", "1.0", "2") +
         stat("slot2", "Unclaimed", "Idle", "0.0", "0");
}

TEST(KiteStatusRules, ServerCompactFoldsSlotsAndCountsAPartitionableSlotTwice) {
  Result r = kite_status(compact_pool_ads(), "-server -compact");
  ASSERT_EQ(r.status, 0) << r.out;
  // Machine grows from its header (no 12 minimum here); Mips/KFlops missing print "-"; the
  // static slots fold (Slots 2, Jobs/Min summed, ST "**" for Cb+Ui); the partitionable slot's
  // ST rolls its children (Cb) into its own Ui: "**". The totals count the partitionable slot
  // twice (it has a core left), without Mips: two malformed.
  std::string want =
      "Machine          Platform     Slots Cpus Gpus  TotalGb  Mips    KFlops   CpuLoad ST "
      "Jobs/Min\n\n"
      "node.example.org x64/Debian12    2     2    0    23.54 -       -            0.01 **     "
      "0.40\n"
      "s2.example.org   x64/Debian12    2S    1    0     1.00    1000      3000    0.50 **     "
      "0.10\n\n"
      "                  Slots Avail  Memory        Disk        MIPS      KFLOPS\n\n"
      "  x64/Debian12        4     4       49746     2004000        2000        6000\n\n"
      "         Total        4     4       49746     2004000        2000        6000\n\n"
      "              (Omitted 2 malformed ads in computed attribute totals)\n\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatusRules, StateCompactTotalsByActivityWithChildStates) {
  Result r = kite_status(compact_pool_ads(), "-state -compact");
  ASSERT_EQ(r.status, 0) << r.out;
  // -state's totals keep their own key (the Activity): the partitionable slot (Idle) counts
  // its children's states (2 Claimed) and itself (Unclaimed); -state never fills Total.
  std::string want =
      "Machine          Platform     Slots Cpus Gpus  TotalGb CpuLoad ST Jobs/Min\n\n"
      "node.example.org x64/Debian12    2     2    0    23.54    0.01 **     0.40\n"
      "s2.example.org   x64/Debian12    2S    1    0     1.00    0.50 **     0.10\n\n"
      "               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle\n\n"
      "          Busy     0     0         0       1          0       0      0        0      0\n"
      "          Idle     0     0         2       2          0       0      0        0      0\n\n"
      "         Total     0     0         2       3          0       0      0        0      0\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatusRules, ClaimedCompactListsTheDynamicSlotsUsers) {
  Result r = kite_status(compact_pool_ads(), "-claimed -compact");
  ASSERT_EQ(r.status, 0) << r.out;
  // Only claimed static slots and partitionable slots with dynamic ones; Users: the distinct
  // ChildRemoteUser values, sorted (a static slot has none: blank). Totals: LoadAvg 0.02
  // twice and 1.0 over 3 machines; no Mips anywhere but the static slot: two malformed.
  std::string want =
      "Machine          Platform     Slots Users                                         \n\n"
      "node.example.org x64/Debian12    2  bob@node.example.org, htcuser@node.example.org\n"
      "s2.example.org   x64/Debian12    1S                                               \n\n"
      "               Machines         MIPS       KFLOPS   AvgLoadAvg\n\n"
      "  x64/Debian12        3         1000         3000   0.347\n\n"
      "         Total        3         1000         3000   0.347\n\n"
      "              (Omitted 2 malformed ads in computed attribute totals)\n\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatusRules, AvailServerCompactShowsTheAvailableSlotsOnly) {
  Result r = kite_status(compact_pool_ads(), "-avail -server -compact");
  ASSERT_EQ(r.status, 0) << r.out;
  // -avail's compact constraint (Unclaimed with cores and memory): the partitionable slot
  // and slot2; -af takes the same slots.
  EXPECT_EQ(kite_status(compact_pool_ads(), "-avail -compact -af Name").out,
            "slot1@node.example.org\nslot2@s2.example.org\n");
  EXPECT_NE(r.out.find("\nnode.example.org x64/Debian12    2     2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ns2.example.org   x64/Debian12    1S    1"), std::string::npos) << r.out;
}

}  // namespace
