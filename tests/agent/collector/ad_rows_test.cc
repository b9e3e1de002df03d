// Unit tests of the compact rows of query replies (agent/core/ad_rows.h): every value reads back
// as the projection's JSON text would give it, values that do not fit a row are refused, and
// malformed rows are errors naming the byte.
#include "agent/core/ad_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "agent/collector/ad_store.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "tests/agent/collector/old_ad.h"

namespace kite::core {
namespace {

using testing_ads::ad;

std::vector<classad::InternedName> names(const std::vector<std::string>& attrs) {
  std::vector<classad::InternedName> out;
  for (const std::string& a : attrs) out.push_back(classad::intern_name(a));
  return out;
}

std::vector<uint32_t> ids(const std::vector<std::string>& attrs) {
  std::vector<uint32_t> out;
  for (const auto& n : names(attrs)) out.push_back(n.id);
  return out;
}

// What the JSON path gives the client: the projection's JSON text, read back.
std::string via_json(const classad::ClassAd& a, const std::vector<std::string>& attrs) {
  std::string text = classad::classad_to_json(*collector::project(a, attrs), false);
  classad::AdPtr back = classad::classad_from_json(text);
  EXPECT_TRUE(back) << text;
  return classad::classad_to_json(*back, false);
}

// Writes one row per ad text through `w`; the ads are kept in `ads` and their ads path (JSON)
// is what read_ad_rows must give back for each row.
std::string write_rows(RowWriter* w, const std::vector<std::string>& attrs,
                       const std::vector<const char*>& texts, std::vector<classad::AdPtr>* ads) {
  std::string rows, row;
  for (const char* t : texts) {
    ads->push_back(ad(t));
    row.clear();
    EXPECT_TRUE(RowWriter::write_row(&row, *ads->back(), ids(attrs))) << t;
    w->append(&rows, row);
  }
  return rows;
}

// read_ad_rows of `rows` gives back every ad as its JSON path does.
void expect_ads_read_back(const std::string& rows, const std::vector<std::string>& attrs,
                          const std::vector<classad::AdPtr>& ads) {
  std::vector<classad::AdPtr> back;
  std::string err;
  ASSERT_TRUE(read_ad_rows(rows, names(attrs), &back, &err)) << err;
  ASSERT_EQ(back.size(), ads.size());
  for (size_t i = 0; i < ads.size(); ++i)
    EXPECT_EQ(classad::classad_to_json(*back[i], false), via_json(*ads[i], attrs)) << i;
}

TEST(AdRows, ValuesReadBackAsTheirJson) {
  const std::vector<std::string> attrs = {"I", "R", "S", "B", "U", "Missing"};
  struct Row {
    int64_t i;
    double r;
    const char* s;
  };
  const Row values[] = {
      {0, 0.0, ""},
      {-9223372036854775807LL - 1, -0.0, "a;b:c,d\"e"},
      {42, 0.1, "line\nnext"},
      {7, 1e300, "X86_64"},
      {1, 43888.0, "caf\xc3\xa9 /Expr"},
      {2, 1.0 / 3.0, "12:slot1@x"},
      {3, -1.2345678901234567e-300, "R"},
  };
  std::string rows;
  std::vector<classad::AdPtr> ads;
  bool flag = false;
  for (const Row& v : values) {
    classad::AdPtr a(classad::ClassAd::make());
    a->insert_value("I", classad::Value::integer(v.i));
    a->insert_value("R", classad::Value::real(v.r));
    a->insert_value("S", classad::Value::string(v.s));
    a->insert_value("B", classad::Value::boolean(flag = !flag));
    a->insert_value("U", classad::Value::undefined());
    a->insert_value("Other", classad::Value::integer(5));
    ASSERT_TRUE(append_ad_row(&rows, *a, ids(attrs))) << v.s;
    ads.push_back(std::move(a));
  }
  std::vector<classad::AdPtr> back;
  std::string err;
  ASSERT_TRUE(read_ad_rows(rows, names(attrs), &back, &err)) << err;
  ASSERT_EQ(back.size(), ads.size());
  for (size_t i = 0; i < ads.size(); ++i) {
    EXPECT_EQ(classad::classad_to_json(*back[i], false), via_json(*ads[i], attrs)) << i;
    EXPECT_FALSE(back[i]->lookup("Other"));
    EXPECT_FALSE(back[i]->lookup("Missing"));
  }
  int64_t n = 0;
  ASSERT_TRUE(back[1]->evaluate_int("I", n));
  EXPECT_EQ(n, -9223372036854775807LL - 1);
  double r = 0;
  ASSERT_TRUE(back[1]->evaluate_real("R", r));
  EXPECT_TRUE(std::signbit(r));  // -0.0 stays negative, as in JSON
}

TEST(AdRows, ValuesThatDoNotFitAreRefusedAndGoAsJson) {
  const std::vector<std::string> attrs = {"A"};
  for (const char* v : {"B + 1", "{1, 2}", "error", "real(\"NaN\")", "\"/expr(1)/\"", "[x = 1]",
                        "absTime(\"2026-11-26T00:00:00Z\")"}) {
    classad::AdPtr a = ad(std::string("A = ") + v + "\nB = 1\n");
    std::string rows = "R-;";
    EXPECT_FALSE(append_ad_row(&rows, *a, ids(attrs))) << v;
    EXPECT_EQ(rows, "R-;") << v;  // nothing appended
  }
  // Such an ad travels as the JSON text of its projection and reads back as that text.
  classad::AdPtr a = ad("A = B + 1\nB = 1\n");
  std::string rows;
  append_json_row(&rows, classad::classad_to_json(*collector::project(*a, attrs), false));
  std::vector<classad::AdPtr> back;
  std::string err;
  ASSERT_TRUE(read_ad_rows(rows, names(attrs), &back, &err)) << err;
  ASSERT_EQ(back.size(), 1u);
  int64_t v = 0;
  EXPECT_TRUE(back[0]->evaluate_int("A", v));
  EXPECT_EQ(v, 2);
}

TEST(AdRows, MalformedRowsNameTheByte) {
  const auto attrs = names({"A", "B"});
  for (const char* bad : {"R", "Ri1,", "Ri1,-", "Ri1,-x", "Rx-;", "Ri1-;", "Rs5:ab;", "Ri,-;",
                          "Ri1x,-;", "Rs99999999999999999999:a-;", "Q;", "J5:{bad};", "J9:{};"}) {
    std::vector<classad::AdPtr> back;
    std::string err;
    EXPECT_FALSE(read_ad_rows(bad, attrs, &back, &err)) << bad;
    EXPECT_NE(err.find("at byte"), std::string::npos) << bad << ": " << err;
  }
  std::vector<classad::AdPtr> back;
  std::string err;
  ASSERT_TRUE(read_ad_rows("Ri-5,s2:x;;R--;", attrs, &back, &err)) << err;
  ASSERT_EQ(back.size(), 2u);
  std::string s;
  EXPECT_TRUE(back[0]->evaluate_string("B", s));
  EXPECT_EQ(s, "x;");
  EXPECT_EQ(back[1]->size(), 0u);
}

TEST(AdRows, RepeatedValuesReadBackInEveryAd) {
  const auto attrs = names({"A", "B"});
  std::vector<classad::AdPtr> back;
  std::string err;
  ASSERT_TRUE(read_ad_rows("Ri7,s2:ab;Ri7,s2:ab;Ri8,-;R-s2:ab;Ri8,s2:ac;", attrs, &back, &err))
      << err;
  ASSERT_EQ(back.size(), 5u);
  const char* want[] = {"{\"A\": 7,\"B\": \"ab\"}", "{\"A\": 7,\"B\": \"ab\"}", "{\"A\": 8}",
                        "{\"B\": \"ab\"}", "{\"A\": 8,\"B\": \"ac\"}"};
  for (size_t i = 0; i < back.size(); ++i)
    EXPECT_EQ(classad::classad_to_json(*back[i], false), want[i]) << i;
  // The ads stay independent: changing one leaves the others alone.
  back[0]->insert_value("A", classad::Value::integer(1));
  EXPECT_EQ(classad::classad_to_json(*back[1], false), want[1]);
}

TEST(AdRows, IdsOfNamesInternedLaterAreFound) {
  const std::vector<std::string> attrs = {"AdRowsTestNameNotYetSeen", "Name"};
  classad::intern_name("Name");  // a name some ad has (each test may run in its own process)
  std::vector<uint32_t> row_ids;
  refresh_row_ids(attrs, &row_ids);
  ASSERT_EQ(row_ids.size(), 2u);
  EXPECT_EQ(row_ids[0], 0u);  // looked up, not interned
  classad::AdPtr a = ad("AdRowsTestNameNotYetSeen = 7\nName = \"x\"\n");
  std::string rows;
  ASSERT_TRUE(append_ad_row(&rows, *a, row_ids));
  EXPECT_EQ(rows, "R-s1:x;");  // the id was 0 when the row was written
  refresh_row_ids(attrs, &row_ids);
  EXPECT_NE(row_ids[0], 0u);
  rows.clear();
  ASSERT_TRUE(append_ad_row(&rows, *a, row_ids));
  EXPECT_EQ(rows, "Ri7,s1:x;");
}

// Rows for a client that reads expressions and repeats: a value equal to the previous row's is
// '=', an expression that reads no attribute travels as its text; all read back as the JSON
// path gives them.
TEST(AdRows, RepeatsAndAttributeFreeExpressionsReadBackAsTheirJson) {
  const std::vector<std::string> attrs = {"OpSys", "Memory", "T", "Missing"};
  const std::vector<const char*> texts = {
      "OpSys = \"LINUX\"\nMemory = 100\nT = time()\n",
      "OpSys = \"LINUX\"\nMemory = 100\nT = time()\n",
      "OpSys = \"LINUX\"\nMemory = 200\nT = 1 + 2\n",
      "Memory = 200\n",
      "OpSys = \"LINUX\"\nMemory = 200\nT = 1 + 2\n",
  };
  RowWriter w(attrs.size());
  std::vector<classad::AdPtr> ads;
  std::string rows = write_rows(&w, attrs, texts, &ads);
  EXPECT_EQ(rows, "Rs5:LINUXi100,e6:time()-;R===-;R=i200,e5:1 + 2-;R-=--;Rs5:LINUX=e5:1 + 2-;");
  expect_ads_read_back(rows, attrs, ads);
  std::string err, row;
  // Read flat: '=' is the previous row's value; time() is read as its value now.
  std::vector<RowValue> values;
  bool plain = false;
  ASSERT_TRUE(read_row_values(rows, attrs.size(), &values, &plain, &err)) << err;
  ASSERT_EQ(values.size(), 20u);
  EXPECT_EQ(values[4].tag, 's');
  EXPECT_EQ(values[4].str(), "LINUX");
  EXPECT_EQ(values[6].tag, 'i');
  EXPECT_GT(values[6].i, 1700000000);
  EXPECT_EQ(values[10].tag, 'i');
  EXPECT_EQ(values[10].i, 3);
  EXPECT_EQ(values[12].tag, '-');
  EXPECT_EQ(values[13].i, 200);
  // An expression that reads attributes does not fit a row (it goes as JSON, with the
  // attributes it reads).
  row.clear();
  EXPECT_FALSE(RowWriter::write_row(&row, *ad("OpSys = Arch\nArch = \"x\"\n"), ids(attrs)));
  EXPECT_FALSE(RowWriter::write_row(&row, *ad("OpSys = eval(\"Arch\")\n"), ids(attrs)));
  EXPECT_EQ(row, "");
}

// Rows for a client that reads deltas ("rows_v" 3): an integer that differs from the previous
// row's goes as the difference when that is shorter; '=' stays the previous row's value.
TEST(AdRows, IntegersAsDeltasReadBackAsTheirValues) {
  const std::vector<std::string> attrs = {"T", "S"};
  const std::vector<const char*> texts = {
      "T = 1795306366\nS = \"a\"\n", "T = 1795306371\nS = \"a\"\n", "T = 1795306371\nS = \"b\"\n",
      "T = 5\nS = \"b\"\n",          "T = 1795306366\nS = \"b\"\n", "T = 1795306360\n",
  };
  RowWriter w(attrs.size(), true);
  std::vector<classad::AdPtr> ads;
  std::string rows = write_rows(&w, attrs, texts, &ads);
  EXPECT_EQ(rows, "Ri1795306366,s1:a;Rd5,=;R=s1:b;Ri5,=;Ri1795306366,=;Rd-6,-;");
  expect_ads_read_back(rows, attrs, ads);
  std::string err;
  std::vector<RowValue> values;
  bool plain = false;
  ASSERT_TRUE(read_row_values(rows, attrs.size(), &values, &plain, &err)) << err;
  ASSERT_EQ(values.size(), 12u);
  for (auto [at, want] : std::vector<std::pair<size_t, long long>>{
           {0, 1795306366}, {2, 1795306371}, {4, 1795306371}, {6, 5}, {10, 1795306360}}) {
    EXPECT_EQ(values[at].tag, 'i') << at;
    EXPECT_EQ(values[at].i, want) << at;
  }
  // A new frame starts afresh.
  w.reset();
  rows.clear();
  std::string row;
  ASSERT_TRUE(RowWriter::write_row(&row, *ads.back(), ids(attrs)));
  w.append(&rows, row);
  EXPECT_EQ(rows, "Ri1795306360,-;");
  // A delta with no integer before it, or past the integers' range, is refused by both readers.
  for (const char* bad : {"Rd5,-;", "Rs1:a-;Rd5,-;", "Ri9223372036854775807,-;Rd1,-;",
                          "Ri1,-;Rd,-;", "Ri1,-;Rdx,-;"}) {
    std::vector<classad::AdPtr> back;
    values.clear();
    EXPECT_FALSE(read_ad_rows(bad, names(attrs), &back, &err)) << bad;
    EXPECT_NE(err.find("bad row"), std::string::npos) << bad << ": " << err;
    err.clear();
    EXPECT_FALSE(read_row_values(bad, attrs.size(), &values, &plain, &err)) << bad;
    EXPECT_NE(err.find("bad row"), std::string::npos) << bad << ": " << err;
  }
}

TEST(AdRows, FlatReadingLeavesJsonRowsAndStringExpressionsToTheAdsPath) {
  std::string err;
  for (const char* text : {"Ri1,;J2:{};", "Re9:\"a\" + \"b\";", "Re5:B + 1;"}) {
    std::vector<RowValue> values;
    bool plain = true;
    EXPECT_FALSE(read_row_values(text, 1, &values, &plain, &err)) << text;
    EXPECT_FALSE(plain) << text;
    EXPECT_EQ(err, "") << text;
  }
  // '=' with no row before it, and a bad expression, are malformed.
  for (const char* text : {"R=;", "Ri1,;R==;", "Re3:1 +;"}) {
    std::vector<RowValue> values;
    bool plain = true;
    EXPECT_FALSE(read_row_values(text, 1, &values, &plain, &err) && plain) << text;
  }
  std::vector<classad::AdPtr> back;
  EXPECT_FALSE(read_ad_rows("R=;", names({"A"}), &back, &err));
  EXPECT_NE(err.find("at byte"), std::string::npos) << err;
  EXPECT_FALSE(read_ad_rows("Re3:1 +;", names({"A"}), &back, &err));
}

}  // namespace
}  // namespace kite::core
