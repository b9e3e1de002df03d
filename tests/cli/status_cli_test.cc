// `kite status -ads` on hand-written ads, for the forms that have no recorded HTCondor output
// here (-state, -server, -absent, -sort, NAME) and for bad input. Expected text is written out
// by hand from condor_status's column definitions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "tests/cli/kite_status_run.h"

namespace {

using kite_test::kite_status;
using kite_test::pad;
using kite_test::Result;

const char kOwnerSlot[] =
    "MyType = \"Machine\"\nName = \"slot1@h\"\nMachine = \"h\"\nArch = \"X86_64\"\n"
    "OpSys = \"LINUX\"\nCpus = 1\nMemory = 512\nDisk = 2048\nMips = 100\nKFlops = 2000\n"
    "CondorLoadAvg = 0.25\nLoadAvg = 0.5\nKeyboardIdle = 3661\nState = \"Owner\"\n"
    "EnteredCurrentState = 100\nActivity = \"Idle\"\nEnteredCurrentActivity = 100\n"
    "LastHeardFrom = 190\n";

TEST(KiteStatus, StateTableAndItsTotals) {
  Result r = kite_status(kOwnerSlot, "-state");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string want =
      pad("Name", 34) +
      " Cpu  Mem  LoadAv   KbdIdle    State     StateTime  Activ   ActvtyTime\n\n" +
      // " Mem" has a fixed width and no format: condor_status prints strings only there, so
      // an integer Memory leaves it blank.
      pad("slot1@h", 34) +
      " 1          0.250   0+01:01:01 Owner     0+00:01:30 Idle    0+00:01:30\n" +
      "\n"
      "               Total Owner Unclaimed Claimed Preempting Matched  Drain Backfill BkIdle\n\n"
      "          Idle     0     1         0       0          0       0      0        0      0\n\n"
      "         Total     0     1         0       0          0       0      0        0      0\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatus, ServerTableAndItsTotals) {
  Result r = kite_status(kOwnerSlot, "-server");
  ASSERT_EQ(r.status, 0) << r.out;
  std::string want =
      pad("Name", 34) + " OpSys      Arch     LoadAv Memory   Disk      Mips    KFlops   \n\n" +
      pad("slot1@h", 34) + " LINUX      X86_64    0.250      512      2048     100      2000\n" +
      "\n"
      "                  Slots Avail  Memory        Disk        MIPS      KFLOPS\n\n"
      "  X86_64/LINUX        1     0         512        2048         100        2000\n\n"
      "         Total        1     0         512        2048         100        2000\n";
  EXPECT_EQ(r.out, want);
}

TEST(KiteStatus, AbsentShowsWhenWentAbsentAndWhenForgotten) {
  std::string ads = std::string(kOwnerSlot) + "Absent = true\nClassAdLifetime = 86400\n";
  ads.replace(ads.find("LastHeardFrom = 190"), 19, "LastHeardFrom = 1795306431");
  Result r = kite_status(ads, "-absent");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find("\n\n") + 2),
            pad("Name", 34) + " OpSys      Arch     Went Absent Will Forget\n\n");
  EXPECT_NE(r.out.find(pad("slot1@h", 34) + " LINUX      X86_64   11/22 00:13 11/23 00:13\n"),
            std::string::npos)
      << r.out;
  // Without -absent the ad is still a slot like any other; with -absent, only absent ads show.
  Result none = kite_status(kOwnerSlot, "-absent");
  EXPECT_EQ(none.out, "");
}

TEST(KiteStatus, SortsByMachineThenNameUnlessToldOtherwise) {
  std::string ads;
  const char* rows[][3] = {
      {"slot2@b", "b", "300"}, {"slot1@b", "b", "100"}, {"slot9@a", "a", "200"}};
  for (auto& row : rows) {
    ads += std::string("Name = \"") + row[0] + "\"\nMachine = \"" + row[1] +
           "\"\nMemory = " + row[2] + "\n\n";
  }
  EXPECT_EQ(kite_status(ads, "-af Name").out, "slot9@a\nslot1@b\nslot2@b\n");
  EXPECT_EQ(kite_status(ads, "-sort Memory -af Name Memory").out,
            "slot1@b 100\nslot9@a 200\nslot2@b 300\n");
  // condor_status compares keys as text, digit runs as numbers: "-100" < "-200" < "-300".
  EXPECT_EQ(kite_status(ads, "-sort 'Memory * -1' -af Name").out, "slot1@b\nslot9@a\nslot2@b\n");
  // NAME arguments pick ads by Name or Machine.
  EXPECT_EQ(kite_status(ads, "b -af Name").out, "slot1@b\nslot2@b\n");
  EXPECT_EQ(kite_status(ads, "slot9@a -af Memory").out, "200\n");
  // With -claimed, a name is the RemoteUser, and (as condor_status builds its query) either
  // matching the name or being claimed lets a slot in.
  std::string claimed =
      "Name = \"s1\"\nState = \"Unclaimed\"\nRemoteUser = \"bob@d\"\n\n"
      "Name = \"s2\"\nState = \"Claimed\"\nRemoteUser = \"amy@d\"\n\n"
      "Name = \"s3\"\nState = \"Unclaimed\"\nRemoteUser = \"amy@d\"\n";
  std::string by_user = kite_status(claimed, "-claimed bob@d").out;
  EXPECT_NE(by_user.find("s1 "), std::string::npos);
  EXPECT_NE(by_user.find("s2 "), std::string::npos);
  EXPECT_EQ(by_user.find("s3 "), std::string::npos);
}

TEST(KiteStatus, AutoformatRawPrintsTheExpression) {
  std::string ads = "Name = \"s\"\nCpus = 2\nStart = Cpus > 0\n";
  EXPECT_EQ(kite_status(ads, "-af Start").out, "true\n");
  EXPECT_EQ(kite_status(ads, "-af:r Start Cpus").out, "Cpus > 0 2\n");
  EXPECT_EQ(kite_status(ads, "-af:V Name 'Cpus * 2'").out, "\"s\" 4\n");
}

TEST(KiteStatus, JsonPutsTheSeparatingCommaOnALineOfItsOwn) {
  std::string ads = "Name = \"b\"\nCpus = 2\n\nName = \"a\"\nLoad = 1.0\n";
  EXPECT_EQ(kite_status(ads, "-json").out,
            "[\n{\n  \"Load\": 1.0,\n  \"Name\": \"a\"\n}\n,\n{\n  \"Cpus\": 2,\n  \"Name\": "
            "\"b\"\n}\n]\n");
  EXPECT_EQ(kite_status(ads, "-json -constraint false").out, "");
}

TEST(KiteStatus, CompactFoldsAMachinesStaticSlotsIntoOneRow) {
  std::string ads;
  const char* slots[][4] = {{"slot3", "Unclaimed", "Idle", "2048"},
                            {"slot1", "Claimed", "Busy", "1024"},
                            {"slot4", "Owner", "Idle", "1024"},
                            {"slot2", "Unclaimed", "Idle", "1024"}};
  for (auto& sl : slots) {
    ads += std::string("Name = \"") + sl[0] + "@h\"\nMachine = \"h\"\nSlotType = \"Static\"\n" +
           "SlotTypeId = 1\nState = \"" + sl[1] + "\"\nActivity = \"" + sl[2] + "\"\nCpus = 1\n" +
           "Memory = " + sl[3] +
           "\nTotalSlotCpus = 1\nTotalSlotGpus = 0\nTotalSlotMemory = " + sl[3] +
           "\nTotalLoadAvg = 0.0\nTotalCpus = 4\nRecentJobStarts = " +
           (std::string(sl[0]) == "slot1" ? "2" : "0") +
           "\nArch = \"X86_64\"\nOpSys = \"LINUX\"\nOpSysAndVer = \"Debian12\"\n\n";
  }
  Result r = kite_status(ads, "-compact");
  ASSERT_EQ(r.status, 0) << r.out;
  // The Machine column is at least 12 wide (condor_status's machine width for -compact).
  EXPECT_EQ(
      r.out,
      "Machine      Platform     Slots Cpus Gpus  TotalGb FreCpu  FreeGb  CpuLoad ST Jobs/Min "
      "MaxSlotGb\n\n"
      "h            x64/Debian12    4S    1    0     1.00      3     4.00    0.00 **     0.10      "
      "2.00\n\n"
      "               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n\n"
      "  x64/Debian12     4     1       1         2       0          0      0        0      0\n\n"
      "         Total     4     1       1         2       0          0      0        0      0\n");
}

TEST(KiteStatus, FormatTakesPrintfConversionsAndLongValuesWhole) {
  std::string long_name(3000, 'x');
  std::string ads = "Name = \"" + long_name + "\"\nCpus = 2\nLoad = 0.5\n";
  EXPECT_EQ(kite_status(ads, "-format '%d%%' Cpus -format ' %5.2f|' Load -format '%s\\n' Name").out,
            "2%  0.50|" + long_name + "\n");
  // An attribute the ad lacks prints nothing for its -format.
  EXPECT_EQ(kite_status(ads, "-format '%d' NoSuch -format 'x%dy\\n' Cpus").out, "x2y\n");
}

TEST(KiteStatus, ReadsTheJsonItPrints) {
  std::string ads = "Name = \"b\"\nCpus = 2\n\nName = \"a\"\nLoad = 1.0\n";
  std::string json = kite_status(ads, "-json").out;
  Result r = kite_status(json, "-json");  // the file is read as long form first: an error
  EXPECT_NE(r.status, 0);
  // kite_status passes its own -ads; a second -ads:json FILE wins.
  char path[] = "/tmp/kite-status-json-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, json.data(), json.size()), static_cast<ssize_t>(json.size()));
  close(fd);
  EXPECT_EQ(kite_status(ads, std::string("-ads:json ") + path + " -af Name Cpus").out,
            "a undefined\nb 2\n");
  EXPECT_EQ(kite_status(ads, std::string("-ads:json ") + path + " -json").out, json);
  unlink(path);
}

// -format's other conversions, as HTCondor's print mask renders them (ad_printmask.cpp and
// printf_format.cpp, read): %r/%R the expression unevaluated (old syntax; one that is only an
// attribute reference prints "undefined", as does %s of such an attribute when it is not a
// string); %c the character; %T the value as d+hh:mm:ss and %Y as a date, both without the
// text around the conversion.
TEST(KiteStatus, FormatRawCharAndTimeConversions) {
  const std::string ad = "Name = \"s1\"\nCpus = 65\nE = Cpus * 2\nR = Cpus\nT = 3725\nNeg = -5\n";
  auto fmt = [&](const std::string& f, const std::string& e) {
    return kite_status(ad, "-format '" + f + "' '" + e + "'").out;
  };
  EXPECT_EQ(fmt("[%r]", "E"), "[Cpus * 2]");
  EXPECT_EQ(fmt("[%-10R]", "E"), "[Cpus * 2  ]");
  EXPECT_EQ(fmt("[%r]", "Name"), "[\"s1\"]");
  EXPECT_EQ(fmt("[%r]", "Cpus + 1"), "[Cpus + 1]");
  EXPECT_EQ(fmt("[%r]", "R"), "[undefined]");
  EXPECT_EQ(fmt("[%r]", "Missing"), "[undefined]");
  EXPECT_EQ(fmt("[%s]", "R"), "[undefined]");
  EXPECT_EQ(fmt("[%s]", "E"), "[Cpus * 2]");
  EXPECT_EQ(fmt("[%c]", "Cpus"), "[A]");
  EXPECT_EQ(fmt("[%T]", "T"), "  0+01:02:05");
  EXPECT_EQ(fmt("%T", "Neg"), "[?????]");
  EXPECT_EQ(fmt("[%Y]", "T + 86400"), " 1/2  01:02");  // (the tests run in UTC)
  // -af:r is the same %r.
  EXPECT_EQ(kite_status(ad, "-af:r R E Name").out, "undefined Cpus * 2 \"s1\"\n");
}

// -ads:xml / -ads:new / -ads:auto read the forms -xml and -long:new print (written here by
// hand, as HTCondor lays them out); an unknown form is refused.
TEST(KiteStatus, ReadsXmlAndNewSyntaxAdsFiles) {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n"
      "<c>\n    <a n=\"Cpus\"><i>2</i></a>\n    <a n=\"Name\"><s>b@h</s></a>\n</c>\n\n"
      "<c>\n    <a n=\"Name\"><s>a@h</s></a>\n    <a n=\"Start\"><e>Cpus &gt; 1</e></a>\n"
      "</c>\n\n</classads>\n";
  const std::string new_syntax =
      "{\n[ Cpus = 2; Name = \"b@h\" ]\n,\n[ Name = \"a@h\"; Start = Cpus > 1 ]\n}\n";
  for (const auto& [form, text] :
       {std::pair{"-ads:xml", xml}, std::pair{"-ads:new", new_syntax}, std::pair{"-ads:auto", xml},
        std::pair{"-ads:auto", new_syntax}}) {
    char path[] = "/tmp/kite-status-form-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    Result r = kite_status("", std::string(form) + " " + path + " -af:r Name Cpus Start");
    // :r prints each value unparsed: strings keep their quotes.
    EXPECT_EQ(r.out, "\"a@h\" undefined Cpus > 1\n\"b@h\" 2 undefined\n") << form << "\n" << text;
    unlink(path);
  }
  Result r = kite_status("Name = \"a\"\n", "-ads:yaml /dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("long (the default), json, new, xml and auto"), std::string::npos) << r.out;
}

TEST(KiteStatus, TruncatedColumnsCutLongValues) {
  Result r = kite_status(
      "Name = \"s@h\"\nMachine = \"h\"\nOpSys = \"LINUX\"\nArch = \"X86_64\"\nState = \"Owner\"\n"
      "Activity = \"Idle\"\nCondorLoadAvg = 123.5\nMemory = 1\nEnteredCurrentActivity = 0\n"
      "MyCurrentTime = 86400000\n",
      "");
  ASSERT_EQ(r.status, 0) << r.out;
  // LoadAv is 6 wide (123.500 -> 123.50), ActvtyTime 12 (1000+00:00:00 -> 1000+00:00:0) and,
  // having no separating space of its own, then touches Mem.
  EXPECT_NE(r.out.find("Owner Idle     123.50      11000+00:00:0\n"), std::string::npos) << r.out;
}

TEST(KiteStatus, TotalOnlyPrintsTheFooterOfTheChosenTable) {
  Result r = kite_status(kOwnerSlot, "-server -total");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.substr(0, 2), "\n ");
  EXPECT_EQ(r.out.find("slot1@h"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Slots Avail"), std::string::npos) << r.out;
}

TEST(KiteStatus, BadInputIsNamedWithFileAndLine) {
  Result r = kite_status("Name = \"a\"\n\nName = \"b\"\nCpus = (1 +\n", "");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find(":4: "), std::string::npos) << r.out;
  r = kite_status(kOwnerSlot, "-constraint 'Cpus >'");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("Cpus >"), std::string::npos) << r.out;
  r = kite_status(kOwnerSlot, "-bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("-bogus"), std::string::npos) << r.out;
  Result missing;
  std::string cmd = std::string(KITE_BINARY) + " status -ads /nonexistent/ads 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf, p);
  missing.out.assign(buf, n);
  EXPECT_NE(pclose(p), 0);
  EXPECT_NE(missing.out.find("/nonexistent/ads"), std::string::npos) << missing.out;
}

}  // namespace
