// Unit tests of the attribute columns queries use (agent/collector/ad_columns.h): the ads a
// column-judged query returns are those full evaluation returns, on random ads, constraints and
// changes, and ads sure not to match are not examined.
#include "agent/collector/ad_columns.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "agent/collector/ad_store.h"
#include "policy/classad/intern.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "tests/agent/collector/old_ad.h"

namespace kite::collector {
namespace {

using testing_ads::ad;

StoreConfig config() {
  StoreConfig c;
  c.classad_lifetime = 900;
  return c;
}

std::vector<std::string> names(const std::vector<classad::AdPtr>& ads) {
  std::vector<std::string> out;
  for (const classad::AdPtr& a : ads) {
    std::string n;
    a->evaluate_string("Name", n);
    out.push_back(n);
  }
  return out;
}

// The query's answer, and whether the columns chose its candidates.
std::vector<std::string> query(const AdStore& s, const std::string& type,
                               const std::string& constraint, bool* columns = nullptr,
                               bool* index = nullptr) {
  QuerySpec q;
  q.type = type;
  q.constraint = constraint;
  std::unique_ptr<Query> run = s.start_query(q);
  EXPECT_TRUE(run->ok()) << run->error();
  std::vector<classad::AdPtr> out;
  while (run->next(s, 7, &out)) {
  }
  if (columns) *columns = run->used_columns();
  if (index) *index = run->used_index();
  return names(out);
}

// What full evaluation answers: every stored ad of the type (in key order, as queries return
// them) whose constraint evaluates to true.
std::vector<std::string> evaluated(const AdStore& s, const std::string& type,
                                   const std::string& constraint) {
  classad::ParseError err;
  classad::ExprPtr e = classad::parse_expr(constraint, &err);
  EXPECT_TRUE(e) << err.to_string();
  std::vector<std::string> out;
  for (const auto& [key, stored] : s.ads()) {
    if (!type.empty() && stored.type != type) continue;
    classad::Value v = stored.ad->evaluate_expr(e.get());
    std::string name;
    stored.ad->evaluate_string("Name", name);
    if (v.is_boolean() && v.as_boolean()) out.push_back(name);
  }
  return out;
}

TEST(AdColumns, ComparisonsWithLiteralsExamineOnlyCandidates) {
  AdStore s(config());
  std::string err;
  for (int i = 0; i < 400; ++i) {
    std::string text = "Name = \"slot" + std::to_string(i) +
                       "\"\nState = \"Unclaimed\"\nMemory = " +
                       std::to_string(i == 17 || i == 230 ? 200000 : 1000 + i) + "\n";
    if (i == 99) text = "Name = \"slot99\"\nState = \"Unclaimed\"\nMemory = 50000 * 4\n";
    ASSERT_TRUE(s.update("Machine", ad(text), 0, false, &err)) << err;
  }
  size_t before = s.ads_examined();
  bool columns = false;
  EXPECT_EQ(query(s, "Machine", "Memory > 100000", &columns),
            (std::vector<std::string>{"slot17", "slot230", "slot99"}));
  EXPECT_TRUE(columns);
  // The two literals that match and the expression, which only evaluation can judge.
  EXPECT_EQ(s.ads_examined() - before, 3u);

  // The columns follow merges: slot5 now matches, slot17 no longer does.
  s.update("Machine", ad("Name = \"slot5\"\nMemory = 300000\n"), 1, true, &err);
  std::vector<classad::JsonAttr> attrs = {
      {classad::intern_name("Name"), classad::parse_expr("\"slot17\"").release()},
      {classad::intern_name("Memory"), classad::parse_expr("4").release()}};
  s.merge("Machine", "slot17", &attrs, 1);
  EXPECT_EQ(query(s, "Machine", "100000 < Memory"),
            (std::vector<std::string>{"slot230", "slot5", "slot99"}));
  // An index that finds many candidates (every ad is Unclaimed) is narrowed by the columns.
  before = s.ads_examined();
  bool index = false;
  EXPECT_EQ(query(s, "Machine", "State == \"Unclaimed\" && Memory > 100000", &columns, &index),
            (std::vector<std::string>{"slot230", "slot5", "slot99"}));
  EXPECT_TRUE(index);
  EXPECT_TRUE(columns);
  EXPECT_EQ(s.ads_examined() - before, 3u);
  // Another type has no such ads; an unknown type none at all.
  EXPECT_TRUE(query(s, "Negotiator", "Memory > 100000").empty());
}

TEST(AdColumns, ColumnsAreGivenUpLeastRecentlyUsedFirst) {
  AdStore s(config());
  std::string err;
  for (int i = 0; i < 50; ++i) {
    std::string text = "Name = \"n" + std::to_string(i) + "\"\n";
    for (int a = 0; a < 12; ++a)
      text += "A" + std::to_string(a) + " = " + std::to_string((i * (a + 3)) % 17) + "\n";
    ASSERT_TRUE(s.update("Machine", ad(text), 0, false, &err)) << err;
  }
  // More attributes than columns, asked in turn and again: each answer is still exact.
  for (int round = 0; round < 2; ++round) {
    for (int a = 0; a < 12; ++a) {
      std::string c =
          "A" + std::to_string(a) + " == 5 || A" + std::to_string((a + 1) % 12) + " < 2";
      EXPECT_EQ(query(s, "Machine", c), evaluated(s, "Machine", c)) << c;
    }
  }
}

// Random ads, changes and constraints over a few attributes whose values mix every type the
// evaluator's comparisons treat apart (and expressions, lists, undefined and error literals).
class RandomPool {
 public:
  explicit RandomPool(uint32_t seed) : rng_(seed) {}

  std::string value() {
    static const char* const kValues[] = {"0",     "1",         "2",       "-3",
                                          "1.0",   "2.5",       "-0.5",    "true",
                                          "false", "\"abc\"",   "\"ABC\"", "\"abd\"",
                                          "\"\"",  "undefined", "error",   "A + 1",
                                          "B",     "{1, 2}",    "[x = 1]", "C =?= undefined",
                                          "2 * 3", "\"2\"",     "1e10",    "-2"};
    return kValues[pick(sizeof kValues / sizeof kValues[0])];
  }
  std::string constant() {
    static const char* const kConstants[] = {
        "0",       "1",       "2",      "-3",        "1.0",   "2.5", "true", "false",
        "\"abc\"", "\"ABC\"", "\"ab\"", "undefined", "error", "-2",  "1e10", "\"2\""};
    return kConstants[pick(sizeof kConstants / sizeof kConstants[0])];
  }
  std::string attr() {
    static const char* const kAttrs[] = {"A", "B", "C", "D", "a", "Missing", "State"};
    return kAttrs[pick(sizeof kAttrs / sizeof kAttrs[0])];
  }
  // State is indexed: a few values shared by many ads (and some that are not strings), so
  // that the index finds many candidates, which the columns then narrow.
  std::string state() {
    static const char* const kStates[] = {"\"Claimed\"", "\"claimed\"", "\"Unclaimed\"",
                                          "1",           "undefined",   "A"};
    return kStates[pick(sizeof kStates / sizeof kStates[0])];
  }
  std::string comparison() {
    static const char* const kOps[] = {"==", "!=", "=?=", "=!=", "<",
                                       "<=", ">",  ">=",  "is",  "isnt"};
    std::string a = attr();
    std::string c = a == "State" && pick(2) ? state() : constant();
    return pick(4) ? a + " " + kOps[pick(10)] + " " + c : c + " " + kOps[pick(10)] + " " + a;
  }
  std::string constraint(int depth) {
    static const char* const kOps[] = {"==", "!=", "=?=", "=!=", "<",
                                       "<=", ">",  ">=",  "is",  "isnt"};
    size_t shape = pick(depth > 0 ? 10 : 5);
    switch (shape) {
      case 0:
      case 1:
      case 2:
      case 3: return comparison();
      case 4: return pick(2) ? attr() : attr() + " " + kOps[pick(10)] + " " + attr();
      case 5:
      case 6: return "(" + constraint(depth - 1) + " && " + constraint(depth - 1) + ")";
      case 7: return "(" + constraint(depth - 1) + " || " + constraint(depth - 1) + ")";
      default: return "!(" + constraint(depth - 1) + ")";
    }
  }
  std::string ad_text(const std::string& name) {
    std::string text = "Name = \"" + name + "\"\n";
    for (const char* a : {"A", "B", "C", "D"})
      if (pick(5)) text += std::string(a) + " = " + value() + "\n";
    if (pick(6)) text += "State = " + state() + "\n";
    return text;
  }
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937 rng_;
};

TEST(AdColumns, AnswersAreThoseOfFullEvaluationOnRandomAdsAndConstraints) {
  AdStore s(config());
  RandomPool r(20261126);
  std::string err;
  const char* const kTypes[] = {"Machine", "Submitter"};
  auto name_of = [](size_t i) { return "ad" + std::to_string(i); };
  for (size_t i = 0; i < 300; ++i)
    ASSERT_TRUE(s.update(kTypes[i % 2], ad(r.ad_text(name_of(i))), 0, false, &err)) << err;
  int judged_by_columns = 0;
  for (int step = 0; step < 400; ++step) {
    // Changes of every kind the store has: merges as the CM gets them, merges and whole ads
    // through update(), invalidations (their slots reused by new ads), expiry.
    for (int k = 0; k < 20; ++k) {
      size_t i = r.pick(330);
      const char* type = kTypes[i % 2];
      switch (r.pick(5)) {
        case 0: {
          std::vector<classad::JsonAttr> attrs = {
              {classad::intern_name("Name"),
               classad::parse_expr("\"" + name_of(i) + "\"").release()},
              {classad::intern_name(r.attr()), classad::parse_expr(r.value()).release()}};
          s.merge(type, name_of(i), &attrs, step);
          break;
        }
        case 1:
          s.update(type, ad("Name = \"" + name_of(i) + "\"\n" + r.attr() + " = " + r.value()), step,
                   true, &err);
          break;
        case 2: s.update(type, ad(r.ad_text(name_of(i))), step, false, &err); break;
        case 3: s.invalidate(type, name_of(i), step); break;
        default: break;
      }
    }
    if (step % 100 == 99) s.expire(step + 900 - 50);  // the ads not updated for 50 steps
    std::string c = r.constraint(3);
    const std::string type = r.pick(3) ? kTypes[r.pick(2)] : "";
    bool columns = false;
    EXPECT_EQ(query(s, type, c, &columns), evaluated(s, type, c)) << "type '" << type << "': " << c;
    judged_by_columns += columns;
  }
  // The comparison shapes are common enough that the columns judged many of the queries.
  EXPECT_GT(judged_by_columns, 40);
}

}  // namespace
}  // namespace kite::collector
