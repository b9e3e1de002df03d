// libFuzzer target for the JSON reader: arbitrary text as one ad and as a
// list of ads; whatever parses is written back out, which must read back to
// the same JSON. Build and run: see tests/fuzz/README.md.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "tests/fuzz/round_trip.h"

using namespace kite::classad;
using namespace kite::classad::fuzz;

namespace {

void check_round_trip(const ClassAd& ad) {
  if (ad_may_not_round_trip(ad)) return;
  for (bool pretty : {true, false}) {
    std::string json = classad_to_json(ad, pretty);
    ParseError err;
    AdPtr back = classad_from_json(json, &err);
    if (!back) {
      fprintf(stderr, "own JSON does not parse: %s\n%s\n", err.to_string().c_str(), json.c_str());
      abort();
    }
    // Reals print with 16 significant digits, so the text may change once; the
    // second round must reproduce it exactly.
    json = classad_to_json(*back, pretty);
    back = classad_from_json(json, &err);
    std::string again = back ? classad_to_json(*back, pretty) : std::string("<does not parse>");
    if (again != json) {
      fprintf(stderr, "JSON round trip differs:\n%s\n---\n%s\n", json.c_str(), again.c_str());
      abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseError err;
  if (AdPtr ad = classad_from_json(text, &err)) {
    check_round_trip(*ad);
    for (const ClassAd::Entry& en : ad->entries()) (void)ad->evaluate_attr(en.name->view());
  }
  std::vector<AdPtr> ads;
  if (classads_from_json(text, ads, &err)) {
    for (const AdPtr& a : ads) check_round_trip(*a);
  }
  return 0;
}
