// Data-driven check of every `use` template against what HTCondor 25 sets (templates.tsv, copied
// from the observed reference): same macro names, same raw values, same reported source.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "policy/config/config.h"

namespace {

struct Row {
  std::string name, raw, source;
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == '\t') {
      out.push_back(line.substr(b, i - b));
      b = i + 1;
    }
  }
  return out;
}

// template column -> rows, in file order of first appearance.
std::vector<std::pair<std::string, std::vector<Row>>> read_tsv() {
  std::ifstream in(KITE_SOURCE_DIR "/tests/data/config/templates.tsv");
  std::vector<std::pair<std::string, std::vector<Row>>> groups;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f = split_tabs(line);
    if (f.size() != 4) {
      ADD_FAILURE() << "bad tsv line: " << line;
      continue;
    }
    // The recorder annotated default-valued rows: "<Default> (template sets the default value)".
    std::string src = f[3];
    if (src.rfind("<Default>", 0) == 0) src = "<Default>";
    if (groups.empty() || groups.back().first != f[0]) groups.push_back({f[0], {}});
    groups.back().second.push_back({f[1], f[2], src});
  }
  return groups;
}

TEST(ConfigTemplates, TsvHasAllTemplates) {
  auto groups = read_tsv();
  EXPECT_EQ(groups.size(), 17u);
  size_t rows = 0;
  for (auto& g : groups) rows += g.second.size();
  EXPECT_EQ(rows, 153u);
}

TEST(ConfigTemplates, EveryRowMatchesHTCondor25) {
  int checked = 0;
  for (auto& [tmpl, rows] : read_tsv()) {
    SCOPED_TRACE("use " + tmpl);
    kite::config::Config cfg;
    kite::config::Status st = cfg.load_string("use " + tmpl + "\n", "<config>");
    ASSERT_TRUE(st.ok) << st.message;
    std::set<std::string> expected_set;
    for (const Row& r : rows) {
      SCOPED_TRACE(r.name);
      kite::config::Entry e;
      ASSERT_TRUE(cfg.lookup(r.name, &e));
      EXPECT_EQ(e.value, r.raw);
      EXPECT_EQ(e.source, r.source);
      if (r.source != "<Default>") {
        std::string up;
        for (char c : r.name) up += static_cast<char>(toupper(static_cast<unsigned char>(c)));
        expected_set.insert(up);
      }
      ++checked;
    }
    // ... and the template sets nothing else.
    std::set<std::string> actual_set;
    for (const kite::config::Entry& e : cfg.entries()) {
      if (e.source.find(", use ") == std::string::npos) continue;
      std::string up;
      for (char c : e.name) up += static_cast<char>(toupper(static_cast<unsigned char>(c)));
      actual_set.insert(up);
    }
    EXPECT_EQ(actual_set, expected_set);
  }
  EXPECT_EQ(checked, 153);
}

TEST(ConfigTemplates, TemplatesAreCaseInsensitiveAndRepeatable) {
  kite::config::Config cfg;
  ASSERT_TRUE(cfg.load_string("use policy:desktop\nUSE Policy : DESKTOP\n", "f").ok);
  kite::config::Entry e;
  ASSERT_TRUE(cfg.lookup("STARTD_LATCH_EXPRS", &e));
  EXPECT_EQ(e.value, " CpuBusy CpuBusy");  // second use appends to the first
  EXPECT_EQ(e.source, "f, line 2, use POLICY:DESKTOP+3");
}

TEST(ConfigTemplates, SeveralTemplatesOnOneLine) {
  kite::config::Config cfg;
  ASSERT_TRUE(cfg.load_string("use POLICY : Always_Run_Jobs Limit_Job_Runtimes(60)\n", "f").ok);
  kite::config::Entry e;
  ASSERT_TRUE(cfg.lookup("MAX_JOB_RUNTIME", &e));
  EXPECT_EQ(e.value, "60");
  ASSERT_TRUE(cfg.lookup("MaxJobRetirementTime", &e));
  EXPECT_EQ(e.value, "$(MAX_JOB_RUNTIME)+120");
  EXPECT_EQ(e.source, "f, line 1, use POLICY:LIMIT_JOB_RUNTIMES+1");
}

TEST(ConfigTemplates, OtherTemplatesLoad) {
  const char* uses[] = {
      "POLICY : Preempt_If_Disk_Exceeded",
      "POLICY : Hold_If_Disk_Exceeded",
      "POLICY : Preempt_If_Runtime_Exceeds(60)",
      "POLICY : Hold_If_Runtime_Exceeds",
      "FEATURE : UWCS_Desktop_Policy_Values",
      "FEATURE : StartdCronPeriodic(DYN, 900, /bin/x)",
      "FEATURE : StartdCronOneShot(ONE, /bin/x)",
      "FEATURE : Remote_Config(A B)",
      "FEATURE : ChildCollector(2)",
      "ROLE : Execute",
      "ROLE : Personal",
      "SECURITY : User_Based",
      "SECURITY : Host_Based",
      "SECURITY : FIPS",
      "FEATURE : CommonCloudAttributesAWS",
      "FEATURE : ScheddUsermapFile(m, /etc/map)",
  };
  for (const char* u : uses) {
    kite::config::Config cfg;
    kite::config::Status st = cfg.load_string(std::string("use ") + u + "\n", "f");
    EXPECT_TRUE(st.ok) << u << ": " << st.message;
  }
  kite::config::Config cfg;
  ASSERT_TRUE(cfg.load_string("use FEATURE : StartdCronPeriodic(DYN, 15*60, /bin/x, -a)\n").ok);
  std::string v;
  EXPECT_TRUE(cfg.get("STARTD_CRON_DYN_PERIOD", &v));
  EXPECT_EQ(v, "15*60");
  EXPECT_TRUE(cfg.get("STARTD_CRON_DYN_ARGS", &v));
  EXPECT_EQ(v, "-a");
  EXPECT_TRUE(cfg.get("STARTD_CRON_JOBLIST", &v));
  EXPECT_EQ(v, " DYN");
}

TEST(ConfigTemplates, TemplateArgumentErrors) {
  kite::config::Config cfg;
  kite::config::Status st = cfg.load_string("\nuse POLICY : PREEMPT_IF\n", "p.conf");
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("p.conf, line 2, use POLICY:PREEMPT_IF+1: ERROR: "), std::string::npos)
      << st.message;
  kite::config::Config c2;
  st = c2.load_string("use POLICY : WANT_HOLD_IF(X, 3)\n", "p.conf");
  ASSERT_FALSE(st.ok);
  EXPECT_NE(st.message.find("use POLICY:WANT_HOLD_IF+2"), std::string::npos) << st.message;
  kite::config::Config c3;
  st = c3.load_string("use FEATURE : Monitor(a, b)\n", "p.conf");
  EXPECT_FALSE(st.ok);
}

}  // namespace
