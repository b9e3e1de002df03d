// Tests for policy/classad/json: HTCondor's JSON form of ads (layout as in
// the observed condor_q/condor_status -json output and src/classad/jsonSink),
// decoding with errors that name line and column, and round trips.
#include "policy/classad/json.h"

#include <gtest/gtest.h>

#include <cmath>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::classad {
namespace {

AdPtr ad_of(const char* text) {
  ParseError err;
  AdPtr ad = parse_classad(text, &err);
  EXPECT_TRUE(ad) << text << ": " << err.to_string();
  return ad;
}

std::string unparsed(const ClassAd& ad) {
  std::string s;
  unparse_classad(s, ad);
  return s;
}

TEST(JsonEncode, ObservedCondorQLayout) {
  // From condor_q -json: two-space indent, "name": value, ints, reals with
  // ".0", booleans, strings; case-insensitive attribute order.
  AdPtr ad = ad_of(
      "[ GPUsProvisioned = 0; GlobalJobId = \"htcuser@node.example.org#6.0#1795308491\"; "
      "BytesRecvd = 43888.0; ExitBySignal = false; ClusterId = 6; Cmd = \"/bin/sleep\" ]");
  EXPECT_EQ(classad_to_json(*ad, true),
            "{\n"
            "  \"BytesRecvd\": 43888.0,\n"
            "  \"ClusterId\": 6,\n"
            "  \"Cmd\": \"/bin/sleep\",\n"
            "  \"ExitBySignal\": false,\n"
            "  \"GlobalJobId\": \"htcuser@node.example.org#6.0#1795308491\",\n"
            "  \"GPUsProvisioned\": 0\n"
            "}");
}

TEST(JsonEncode, EmptyListAsCondorStatusPrintsIt) {
  // condor_status -json: "ChildCpus": [\n  ],
  AdPtr ad = ad_of("[ ChildCpus = {}; ClockDay = 0 ]");
  EXPECT_EQ(classad_to_json(*ad, true), "{\n  \"ChildCpus\": [\n  ],\n  \"ClockDay\": 0\n}");
}

TEST(JsonEncode, ExpressionsAreQuotedWithEscapedSlashes) {
  AdPtr ad = ad_of("[ Requirements = TARGET.Memory > 1024 && Owner == \"bob\" ]");
  EXPECT_EQ(classad_to_json(*ad, false),
            "{\"Requirements\": \"\\/Expr(TARGET.Memory > 1024 && Owner == \\\"bob\\\")\\/\"}");
}

TEST(JsonEncode, OneLineForm) {
  AdPtr ad = ad_of("[ a = 1; b = { 1, \"x\" }; c = [ d = 2 ] ]");
  EXPECT_EQ(classad_to_json(*ad, false), "{\"a\": 1,\"b\": [1,\"x\"],\"c\": {\"d\": 2}}");
}

TEST(JsonEncode, NestedPretty) {
  AdPtr ad = ad_of("[ a = { 1, [ x = y ] }; b = [ ] ]");
  EXPECT_EQ(classad_to_json(*ad, true),
            "{\n"
            "  \"a\": [\n"
            "    1,\n"
            "    {\n"
            "      \"x\": \"\\/Expr(y)\\/\"\n"
            "    }\n"
            "  ],\n"
            "  \"b\": {\n"
            "  }\n"
            "}");
}

TEST(JsonEncode, SpecialValues) {
  AdPtr ad = ad_of(
      "[ u = undefined; e = error; z = 0.0; nz = -0.0; big = 1e20; third = 1.0/3; "
      "t = true; n = -5; r = -2.5 ]");
  // Only literals are JSON values; 1.0/3 is an expression.
  std::string j = classad_to_json(*ad, false);
  EXPECT_NE(j.find("\"u\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"e\": \"\\/Expr(error)\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"z\": 0.0"), std::string::npos) << j;
  EXPECT_NE(j.find("\"nz\": -0.0"), std::string::npos) << j;
  EXPECT_NE(j.find("\"big\": 1E+20"), std::string::npos) << j;
  EXPECT_NE(j.find("\"third\": \"\\/Expr(1.000000000000000E+00 / 3)\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"t\": true"), std::string::npos) << j;
  // HTCondor's lexer reads -5 as a literal, so it is a JSON number.
  EXPECT_NE(j.find("\"n\": -5"), std::string::npos) << j;
  EXPECT_NE(j.find("\"r\": -2.5"), std::string::npos) << j;
}

TEST(JsonEncode, ValuesOfEveryKindInserted) {
  AdPtr ad(ClassAd::make());
  ad->insert_value("r", Value::real(0.1));
  ad->insert_value("inf", Value::real(HUGE_VAL));
  ad->insert_value("ninf", Value::real(-HUGE_VAL));
  ad->insert_value("nan", Value::real(std::nan("")));
  ad->insert_value("rel", Value::rel_time(3661));
  ad->insert_value("rel2", Value::rel_time(90061.5));
  ad->insert_value("abs", Value::abs_time(0, 0));
  ad->insert_value("err", Value::error());
  std::string j = classad_to_json(*ad, false);
  EXPECT_NE(j.find("\"r\": 0.1,"), std::string::npos) << j;  // %.16G
  EXPECT_NE(j.find("\"inf\": \"\\/Expr(real(\\\"INF\\\"))\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"ninf\": \"\\/Expr(real(\\\"-INF\\\"))\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"nan\": \"\\/Expr(real(\\\"NaN\\\"))\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"rel\": \"\\/Expr(relTime(\\\"01:01:01\\\"))\\/\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"abs\": \"\\/Expr(absTime(\\\"1970-01-01T00:00:00"), std::string::npos) << j;
  EXPECT_NE(j.find("\"err\": \"\\/Expr(error)\\/\""), std::string::npos) << j;
}

TEST(JsonEncode, StringEscapes) {
  AdPtr ad(ClassAd::make());
  ad->insert_value("s", Value::string(std::string_view("q\"b\\n\n\t\x01/\xc3\xa9", 11)));
  EXPECT_EQ(classad_to_json(*ad, false), "{\"s\": \"q\\\"b\\\\n\\n\\t\\u0001/\xc3\xa9\"}");
}

TEST(JsonEncode, ListOfAds) {
  AdPtr a = ad_of("[ x = 1 ]");
  AdPtr b = ad_of("[ y = 2 ]");
  const ClassAd* ads[] = {a.get(), b.get()};
  EXPECT_EQ(classads_to_json(ads, true), "[\n{\n  \"x\": 1\n},\n{\n  \"y\": 2\n}\n]");
  EXPECT_EQ(classads_to_json(ads, false), "[{\"x\": 1},{\"y\": 2}]");
  EXPECT_EQ(classads_to_json({}, true), "[\n]");
}

TEST(JsonDecode, LiteralsAndExpressions) {
  ParseError err;
  AdPtr ad = classad_from_json(
      "{\n  \"A\": 1,\n  \"B\": 2.0,\n  \"C\": \"x\",\n  \"D\": true,\n  \"E\": null,\n"
      "  \"F\": [1, \"y\", false],\n  \"G\": {\"H\": 3},\n"
      "  \"R\": \"\\/Expr(A + 1)\\/\",\n  \"S\": \"/Expr(A + 1)/\"\n}",
      &err);
  ASSERT_TRUE(ad) << err.to_string();
  EXPECT_EQ(unparsed(*ad),
            "[ A = 1; B = 2.000000000000000E+00; C = \"x\"; D = true; E = undefined; "
            "F = { 1,\"y\",false }; G = [ H = 3 ]; R = A + 1; S = \"/Expr(A + 1)/\" ]");
  int64_t r = 0;
  EXPECT_TRUE(ad->evaluate_int("R", r));
  EXPECT_EQ(r, 2);
}

TEST(JsonDecode, NestedAdSeesParentScope) {
  AdPtr ad = classad_from_json(
      "{\"x\": 5, \"n\": {\"y\": \"\\/Expr(x + 1)\\/\"}, "
      "\"z\": \"\\/Expr(n.y)\\/\"}");
  ASSERT_TRUE(ad);
  int64_t z = 0;
  EXPECT_TRUE(ad->evaluate_int("z", z));
  EXPECT_EQ(z, 6);
}

TEST(JsonDecode, LargeIntegersKeepPrecision) {
  AdPtr ad = classad_from_json("{\"a\": 9007199254740993, \"b\": -9223372036854775808}");
  ASSERT_TRUE(ad);
  int64_t a = 0, b = 0;
  EXPECT_TRUE(ad->evaluate_int("a", a));
  EXPECT_EQ(a, 9007199254740993LL);
  EXPECT_TRUE(ad->evaluate_int("b", b));
  EXPECT_EQ(b, INT64_MIN);
}

TEST(JsonDecode, HTCondorLeniency) {
  // Extra commas, comments and case-insensitive keywords, as jsonSource and
  // the JSON lexer accept.
  AdPtr ad = classad_from_json("{ , \"a\": TRUE,, \"b\": Null, // c\n \"c\": [1,2,], /* x */ }");
  ASSERT_TRUE(ad);
  EXPECT_EQ(unparsed(*ad), "[ a = true; b = undefined; c = { 1,2 } ]");
}

TEST(JsonDecode, UnicodeEscapes) {
  AdPtr ad = classad_from_json("{\"s\": \"\\u00e9\\ud83d\\ude00\\/\"}");
  ASSERT_TRUE(ad);
  std::string s;
  EXPECT_TRUE(ad->evaluate_string("s", s));
  EXPECT_EQ(s, "\xc3\xa9\xf0\x9f\x98\x80/");
}

struct BadJson {
  const char* text;
  int line;
  int column;
  const char* message_part;
};

TEST(JsonDecode, ErrorsNameWhatAndWhere) {
  const BadJson cases[] = {
      {"", 1, 1, "end of input"},
      {"[1]", 1, 1, "expected '{'"},
      {"{\"a\" 1}", 1, 6, "expected ':'"},
      {"{\"a\": 1\n \"b\": 2}", 2, 2, "expected ',' or '}'"},
      {"{\"a\": }", 1, 7, "expected a value"},
      {"{\"a\": 1} x", 1, 10, "after the ad"},
      {"{\"a\": \"abc}", 1, 7, "unterminated string"},
      {"{\n  \"a\": nope}", 2, 8, "nope"},
      {"{\"a\": 1.}", 1, 7, "bad number"},
      {"{\"a\": 1e}", 1, 7, "exponent"},
      {"{\"\": 1}", 1, 2, "empty attribute name"},
      {"{a: 1}", 1, 2, "attribute name"},
      {"{\"a\": \"\\/Expr(1 +)\\/\"}", 1, 7, "bad expression"},
      {"{\"a\": \"\\u12\"}", 1, 8, "\\u"},
      {"{\"a\": \"\\ud800\"}", 1, 8, "surrogate"},
      {"{\"a\": \"\\u0000\"}", 1, 8, "\\u0000"},
      {"{\"a\": [1 2]}", 1, 10, "expected ',' or ']'"},
      {"{\"a\": 1 /* open", 1, 9, "unterminated comment"},
      {"{\"a\": 1", 1, 8, "end of input"},
  };
  for (const BadJson& c : cases) {
    ParseError err;
    EXPECT_FALSE(classad_from_json(c.text, &err)) << c.text;
    EXPECT_EQ(err.line, c.line) << c.text << " -> " << err.to_string();
    EXPECT_EQ(err.column, c.column) << c.text << " -> " << err.to_string();
    EXPECT_NE(err.message.find(c.message_part), std::string::npos)
        << c.text << " -> " << err.to_string();
  }
}

TEST(JsonDecode, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "{\"a\": ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  ParseError err;
  EXPECT_FALSE(classad_from_json(deep, &err));
  EXPECT_NE(err.message.find("nested too deeply"), std::string::npos) << err.to_string();
}

TEST(JsonDecode, ListOfAds) {
  std::vector<AdPtr> ads;
  ParseError err;
  ASSERT_TRUE(classads_from_json("[\n{\n  \"x\": 1\n},\n{\n  \"y\": 2\n}\n]\n", ads, &err))
      << err.to_string();
  ASSERT_EQ(ads.size(), 2u);
  EXPECT_EQ(unparsed(*ads[0]), "[ x = 1 ]");
  EXPECT_EQ(unparsed(*ads[1]), "[ y = 2 ]");

  EXPECT_TRUE(classads_from_json(" [ ] ", ads, &err));
  EXPECT_TRUE(ads.empty());

  EXPECT_FALSE(classads_from_json("[{\"x\": 1}, 3]", ads, &err));
  EXPECT_TRUE(ads.empty());
  EXPECT_EQ(err.column, 12) << err.to_string();
  EXPECT_NE(err.message.find("found '3'"), std::string::npos) << err.to_string();
  EXPECT_FALSE(classads_from_json("{\"x\": 1}", ads, &err));
  EXPECT_FALSE(classads_from_json("[{\"x\": 1}", ads, &err));
  EXPECT_NE(err.message.find("end of input"), std::string::npos) << err.to_string();
}

TEST(JsonRoundTrip, AdThroughJsonAndBack) {
  const char* ads[] = {
      "[ a = 1; b = 2.500000000000000E+00; c = \"x\\ny\"; d = false; e = undefined ]",
      "[ Requirements = (TARGET.Memory >= 1024) && (Arch == \"X86_64\"); Rank = Memory * 2 ]",
      "[ l = { 1,2,{ 3,\"four\" } }; n = [ a = 1; b = [ c = a ] ] ]",
      "[ f = strcat(\"a\",\"b\"); t = absTime(\"2020-01-01T00:00:00Z\"); e = error ]",
      "[ q = 'weird name'; s = \"\\\"quoted\\\" and \\\\ back\" ]",
      "[ x = a ? b : c; y = a ?: b; z = a =?= b; w = a isnt b; v = !a; u = ~3 ]",
      "[ ]",
  };
  for (const char* text : ads) {
    AdPtr ad = ad_of(text);
    for (bool pretty : {true, false}) {
      std::string j = classad_to_json(*ad, pretty);
      ParseError err;
      AdPtr back = classad_from_json(j, &err);
      ASSERT_TRUE(back) << j << ": " << err.to_string();
      EXPECT_EQ(unparsed(*back), unparsed(*ad)) << j;
      EXPECT_EQ(classad_to_json(*back, pretty), j);
    }
  }
}

TEST(JsonRoundTrip, NegativeNumbersBecomeLiterals) {
  AdPtr ad = ad_of("[ a = -1; b = -2.5 ]");
  AdPtr back = classad_from_json(classad_to_json(*ad, true));
  ASSERT_TRUE(back);
  int64_t a = 0;
  double b = 0;
  EXPECT_TRUE(back->evaluate_int("a", a));
  EXPECT_EQ(a, -1);
  EXPECT_TRUE(back->evaluate_real("b", b));
  EXPECT_EQ(b, -2.5);
}

TEST(JsonRoundTrip, RealsKeepTheirValue) {
  for (double r : {0.1, 1.0 / 3, 6.02214076e23, -1e-300, 43888.0, 123456789012345678.0}) {
    AdPtr ad(ClassAd::make());
    ad->insert_value("r", Value::real(r));
    AdPtr back = classad_from_json(classad_to_json(*ad, false));
    ASSERT_TRUE(back);
    double out = 0;
    ASSERT_TRUE(back->evaluate_real("r", out));
    // %.16G keeps 16 significant digits (HTCondor's choice), so the value
    // is within one part in 1e15 rather than bit-exact.
    EXPECT_NEAR(out, r, std::fabs(r) * 1e-15) << r;
    const Expr* e = back->lookup("r");
    ASSERT_EQ(e->kind, ExprKind::kLiteral);
    EXPECT_TRUE(as_literal(e)->value.is_real()) << r;
  }
}

}  // namespace
}  // namespace kite::classad
