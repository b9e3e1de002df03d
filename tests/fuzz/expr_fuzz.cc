// libFuzzer target for ClassAd expressions: parse arbitrary text; whatever
// parses is evaluated (alone and inside a small ad with a match partner) and
// unparsed; the unparsed text must parse back, and is stable after one round.
// Build and run: see tests/fuzz/README.md.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/fuzz/round_trip.h"

using namespace kite::classad;
using namespace kite::classad::fuzz;

namespace {

// MY and TARGET ads with names the corpus uses, including self-references.
ClassAd* scope_ad(const char* text) {
  AdPtr ad = parse_classad(text);
  if (!ad) abort();
  return ad.release();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  static ClassAd* my = scope_ad(
      "[ a = 1; b = \"x\"; c = { 1, 2.5, \"s\" }; d = [ e = 3; f = a ]; s = s + 1; "
      "t = u; u = t; Memory = 1024; Requirements = TARGET.Cpus > 0; Rank = Memory ]");
  static ClassAd* target =
      scope_ad("[ Cpus = 2; Memory = 512; b = 2; Requirements = MY.Cpus > 1; Rank = b * 2 ]");

  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) return 0;

  Value alone = evaluate(e.get());
  std::string out;
  unparse_value(out, alone);
  {
    MatchPair pair(*my, *target);
    Value in_match = pair.evaluate_left(e.get());
    unparse_value(out, in_match);
  }

  if (unparse_may_not_round_trip(e.get())) return 0;
  // Round trip: canonical text must parse back. Reals print with 16
  // significant digits (HTCondor's %.15E), so the text may change once (DBL_MAX
  // prints as a number that reads back as infinity); after that it is stable.
  std::string first = to_string(e.get());
  ExprPtr again = parse_expr(first, &err);
  if (!again) {
    fprintf(stderr, "unparsed text does not parse: [%s]: %s\n", first.c_str(),
            err.to_string().c_str());
    abort();
  }
  std::string second = to_string(again.get());
  ExprPtr third_expr = parse_expr(second, &err);
  if (!third_expr || to_string(third_expr.get()) != second) {
    fprintf(stderr, "unparse not stable:\n  [%s]\n  [%s]\n", first.c_str(), second.c_str());
    abort();
  }
  std::string pretty;
  unparse_pretty(pretty, e.get());
  return 0;
}
