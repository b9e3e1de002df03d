// Every configuration template HTCondor 25 ships loads in Kite and sets what HTCondor's sets:
// each row of templates-all.tsv (copied from the observed reference: template, macro, raw value
// after the `use`, `<undefined>` for a macro the template must leave unset, `\n` for the line
// breaks of a multi-line value).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "policy/config/config.h"

namespace {

struct Row {
  std::string use, name, raw;
};

std::vector<Row> read_rows() {
  std::ifstream in(KITE_SOURCE_DIR "/tests/data/config/templates-all.tsv");
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    size_t t1 = line.find('\t');
    size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) {
      ADD_FAILURE() << "bad tsv line: " << line;
      continue;
    }
    Row r{line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
    for (size_t p = r.raw.find("\\n"); p != std::string::npos; p = r.raw.find("\\n", p + 1)) {
      r.raw.replace(p, 2, "\n");
    }
    rows.push_back(r);
  }
  return rows;
}

TEST(ConfigTemplatesAll, FileHasEveryTemplate) {
  std::vector<Row> rows = read_rows();
  EXPECT_EQ(rows.size(), 342u);
  std::vector<std::string> uses;
  for (const Row& r : rows) {
    if (uses.empty() || uses.back() != r.use) uses.push_back(r.use);
  }
  EXPECT_EQ(uses.size(), 61u);
}

TEST(ConfigTemplatesAll, EveryTemplateLoadsAndSetsWhatHTCondorSets) {
  std::string loaded;
  kite::config::Config cfg;
  for (const Row& r : read_rows()) {
    if (r.use != loaded) {
      cfg = kite::config::Config();
      kite::config::Status st = cfg.load_string("use " + r.use + "\n", "<config>");
      EXPECT_TRUE(st.ok) << "use " << r.use << ": " << st.message;
      loaded = r.use;
    }
    SCOPED_TRACE("use " + r.use + ": " + r.name);
    kite::config::Entry e;
    bool defined = cfg.lookup(r.name, &e);
    if (r.raw == "<undefined>") {
      EXPECT_FALSE(defined) << e.value;
    } else {
      EXPECT_TRUE(defined);
      EXPECT_EQ(e.value, r.raw);
    }
  }
}

}  // namespace
