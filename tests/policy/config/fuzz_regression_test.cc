// Replays inputs the config fuzzer (tests/fuzz/config_fuzz.cc) once crashed or hung on; each must
// now load (or fail with a message) quickly. Inputs live in tests/data/config/fuzz/.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "policy/config/config.h"

namespace {

TEST(ConfigFuzzRegression, ReplayKeptInputs) {
  const std::string dir = KITE_SOURCE_DIR "/tests/data/config/fuzz";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  std::vector<std::string> files;
  while (dirent* de = readdir(d)) {
    if (de->d_name[0] != '.') files.push_back(dir + "/" + de->d_name);
  }
  closedir(d);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    kite::config::Config cfg;
    kite::config::Status st = cfg.load_string(ss.str(), "<fuzz>");
    if (st.ok) st = cfg.finish();
    for (const kite::config::Entry& e : cfg.entries()) {
      std::string v;
      cfg.get(e.name, &v);
    }
    if (!st.ok) EXPECT_FALSE(st.message.empty());  // a failure says what is wrong
  }
  EXPECT_FALSE(files.empty()) << "no kept inputs in " << dir;
}

}  // namespace
