// libFuzzer target for the configuration language: parse arbitrary text, then expand every macro.
// It must never crash, hang or leak (see tests/fuzz/CMakeLists.txt for how to build and run).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "policy/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kite::config::Config cfg;
  kite::config::Status st = cfg.load_string(text, "<fuzz>");
  if (st.ok) st = cfg.finish();
  for (const kite::config::Entry& e : cfg.entries()) {
    std::string v;
    cfg.get(e.name, &v);
    kite::config::Entry s;
    cfg.lookup_vanilla(e.name, true, 1, 1, &s);
  }
  std::string out;
  cfg.expand(text.substr(0, 256), &out);
  return 0;
}
