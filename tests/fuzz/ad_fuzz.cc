// libFuzzer target for ClassAd ads: the first byte picks the syntax (new
// `[ ... ]`, old line-oriented, or either); whatever parses is evaluated
// attribute by attribute, matched against a copy of itself, unparsed, and
// sent through JSON and back. Build and run: see tests/fuzz/README.md.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "policy/classad/classad.h"
#include "policy/classad/json.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/fuzz/round_trip.h"

using namespace kite::classad;
using namespace kite::classad::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 32 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  ParseError err;
  AdPtr ad;
  switch (data[0] % 3) {
    case 0: ad = parse_classad(text, &err); break;
    case 1: ad = parse_classad_old(text, &err); break;
    default: ad = parse_classad_any(text, &err); break;
  }
  if (!ad) return 0;

  std::string out;
  for (const ClassAd::Entry& en : ad->entries()) {
    Value v = ad->evaluate_attr(en.name->view());
    unparse_value(out, v);
  }
  AdPtr other(ad->copy());
  {
    MatchPair pair(*ad, *other);
    (void)pair.symmetric();
    (void)pair.left_rank();
    (void)pair.right_rank();
  }
  unparse_classad(out, *ad);

  if (ad_may_not_round_trip(*ad)) return 0;
  // JSON round trip: what we write we must read back, to the same JSON.
  std::string json = classad_to_json(*ad, true);
  AdPtr back = classad_from_json(json, &err);
  if (!back) {
    fprintf(stderr, "own JSON does not parse: %s\n%s\n", err.to_string().c_str(), json.c_str());
    abort();
  }
  // Reals print with 16 significant digits, so the text may change once; the
  // second round must reproduce it exactly.
  json = classad_to_json(*back, true);
  back = classad_from_json(json, &err);
  std::string again = back ? classad_to_json(*back, true) : std::string("<does not parse>");
  if (again != json) {
    fprintf(stderr, "JSON round trip differs:\n%s\n---\n%s\n", json.c_str(), again.c_str());
    abort();
  }
  return 0;
}
