// libFuzzer target for the configuration language: parse arbitrary text, then expand every macro
// and read it as a boolean, an integer and a real.
// It must never crash, hang or leak (see tests/fuzz/CMakeLists.txt for how to build and run).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "policy/config/config.h"
#include "policy/config/typed.h"

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
    bool b = false;
    int64_t n = 0;
    double d = 0;
    kite::config::read_bool(cfg, e, &b);
    kite::config::read_int(cfg, e, &n);
    kite::config::read_real(cfg, e.name, &d);
  }
  std::string out;
  cfg.expand(text.substr(0, 256), &out);
  return 0;
}
