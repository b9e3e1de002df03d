// Tests for the rooster's pure choice: ROOSTER_UNHIBERNATE over offline ads (the default
// "Offline && Unhibernate" with the startd's default UNHIBERNATE), idle jobs standing in for
// MachineLastMatchTime, one wake per machine, rank order and ROOSTER_MAX_UNHIBERNATE, the
// settings' errors, and the magic packet's bytes.
#include "policy/negotiator/rooster.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"

namespace kite::negotiator {
namespace {

classad::AdPtr ad(const std::string& text) {
  classad::ParseError pe;
  classad::AdPtr a = classad::parse_classad(text, &pe);
  EXPECT_TRUE(a) << pe.to_string() << " in " << text;
  return a;
}

// An offline slot ad as the agent sends it before sleeping.
classad::AdPtr offline(const std::string& machine, const std::string& slot, const std::string& mac,
                       const std::string& extra = "") {
  return ad("[Name = \"" + slot + "@" + machine + "\"; Machine = \"" + machine +
            "\"; Offline = true; HardwareAddress = \"" + mac +
            "\"; Unhibernate = MachineLastMatchTime =!= undefined; Cpus = 2; Mips = 1000;"
            " Arch = \"X86_64\"; Requirements = true; " +
            extra + "]");
}

RoosterConfig config(const std::string& text) {
  config::Config c("ROOSTER");
  EXPECT_TRUE(c.load_string(text).ok);
  RoosterConfig rc;
  std::string err;
  EXPECT_TRUE(rooster_config(c, &rc, &err)) << err;
  return rc;
}

std::vector<std::string> machines(const std::vector<WakeTarget>& w) {
  std::vector<std::string> out;
  for (const WakeTarget& t : w) out.push_back(t.machine + "=" + t.mac);
  return out;
}

TEST(Rooster, DefaultsWakeNothingWithoutAMatch) {
  RoosterConfig rc = config("");
  EXPECT_EQ(rc.interval, 300);
  EXPECT_EQ(rc.wol_port, 9);
  EXPECT_EQ(rc.max_wake, 0);
  std::vector<classad::AdPtr> ads;
  ads.push_back(offline("n1", "slot1", "aa:bb:cc:dd:ee:01"));
  EXPECT_TRUE(rooster_pick(rc, ads, nullptr, 1000, nullptr).empty());
  // A match time (set by the negotiator on the offline ad) wakes it.
  ads.push_back(offline("n2", "slot1", "aa:bb:cc:dd:ee:02", "MachineLastMatchTime = 900"));
  EXPECT_EQ(machines(rooster_pick(rc, ads, nullptr, 1000, nullptr)),
            std::vector<std::string>{"n2=aa:bb:cc:dd:ee:02"});
}

TEST(Rooster, AnIdleJobThatMatchesWakesItsMachine) {
  RoosterConfig rc = config("");
  std::vector<classad::AdPtr> ads;
  ads.push_back(offline("n1", "slot1", "aa:bb:cc:dd:ee:01"));
  ads.push_back(offline("n2", "slot1", "aa:bb:cc:dd:ee:02", "Arch = \"AARCH64\""));
  std::vector<classad::AdPtr> jobs;
  jobs.push_back(ad("[Owner = \"alice\"; Requirements = TARGET.Arch == \"AARCH64\"]"));
  std::vector<WakeTarget> w = rooster_pick(rc, ads, &jobs, 1234, nullptr);
  ASSERT_EQ(machines(w), std::vector<std::string>{"n2=aa:bb:cc:dd:ee:02"});
  int64_t t = 0;
  ASSERT_TRUE(w[0].ad->evaluate_int("MachineLastMatchTime", t));
  EXPECT_EQ(t, 1234);
  // No idle job matches: nothing wakes.
  jobs.clear();
  jobs.push_back(ad("[Owner = \"bob\"; Requirements = TARGET.Arch == \"PPC\"]"));
  EXPECT_TRUE(rooster_pick(rc, ads, &jobs, 1234, nullptr).empty());
}

TEST(Rooster, OneWakePerMachineBestRankFirstAtMostMax) {
  RoosterConfig rc = config("ROOSTER_UNHIBERNATE = Offline\nROOSTER_MAX_UNHIBERNATE = 2\n");
  std::vector<classad::AdPtr> ads;
  ads.push_back(offline("slow", "slot1", "aa:bb:cc:dd:ee:01", "Mips = 10"));
  ads.push_back(offline("fast", "slot1", "aa:bb:cc:dd:ee:02", "Mips = 5000"));
  ads.push_back(offline("fast", "slot2", "aa:bb:cc:dd:ee:02", "Mips = 5000"));
  ads.push_back(offline("mid", "slot1", "aa:bb:cc:dd:ee:03", "Mips = 500"));
  ads.push_back(offline("nomac", "slot1", "00:00:00:00:00:00", "Mips = 99999"));
  std::vector<std::string> skipped;
  EXPECT_EQ(machines(rooster_pick(rc, ads, nullptr, 0, &skipped)),
            (std::vector<std::string>{"fast=aa:bb:cc:dd:ee:02", "mid=aa:bb:cc:dd:ee:03"}));
  EXPECT_EQ(skipped, std::vector<std::string>{"nomac"});
}

TEST(Rooster, BadSettingsAreNamed) {
  config::Config c("ROOSTER");
  ASSERT_TRUE(c.load_string("ROOSTER_UNHIBERNATE = Offline &&\n").ok);
  RoosterConfig rc;
  std::string err;
  EXPECT_FALSE(rooster_config(c, &rc, &err));
  EXPECT_NE(err.find("ROOSTER_UNHIBERNATE"), std::string::npos) << err;
  config::Config p("ROOSTER");
  ASSERT_TRUE(p.load_string("ROOSTER_WOL_PORT = 70000\n").ok);
  err.clear();
  EXPECT_FALSE(rooster_config(p, &rc, &err));
  EXPECT_NE(err.find("ROOSTER_WOL_PORT"), std::string::npos) << err;
}

TEST(Rooster, MagicPacket) {
  std::vector<uint8_t> p;
  std::string err;
  ASSERT_TRUE(wol_magic_packet("01:23:45:67:89:aB", &p, &err)) << err;
  ASSERT_EQ(p.size(), 102u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 0xFF);
  const uint8_t mac[6] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB};
  for (int r = 0; r < 16; ++r)
    for (int i = 0; i < 6; ++i) EXPECT_EQ(p[6 + r * 6 + i], mac[i]) << r << "," << i;
  ASSERT_TRUE(wol_magic_packet("01-23-45-67-89-ab", &p, &err));
  for (const char* bad :
       {"", "01:23:45:67:89", "01:23:45:67:89:ab:cd", "zz:23:45:67:89:ab", "0123456789ab0"}) {
    EXPECT_FALSE(wol_magic_packet(bad, &p, &err)) << bad;
    EXPECT_NE(err.find("MAC"), std::string::npos);
  }
}

}  // namespace
}  // namespace kite::negotiator
