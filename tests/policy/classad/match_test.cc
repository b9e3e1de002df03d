// Tests for the match primitive (MatchPair): symmetric Requirements, both
// Ranks, TARGET in both directions, and the restore on destruction.
// HTCONDOR: classad-mechanism "Matchmaking with ClassAds"; the job and
// machine ads follow the policy.tsv symmetric-* vectors.
#include "policy/classad/match.h"

#include <gtest/gtest.h>

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

const char* kJob =
    "[ MyType = \"Job\"; Owner = \"tyner\"; RequestMemory = 1024; RequestCpus = 1; "
    "Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.Memory >= RequestMemory) && "
    "(TARGET.Cpus >= RequestCpus); Rank = TARGET.Memory / 1024 ]";
const char* kMachine =
    "[ MyType = \"Machine\"; Arch = \"X86_64\"; Memory = 4096; Cpus = 2; "
    "Requirements = TARGET.RequestMemory <= Memory && Owner != \"banned\"; "
    "Rank = (Owner == \"coltrane\") + (Owner == \"tyner\") * 10 ]";

TEST(MatchPair, SymmetricMatchAndRanks) {
  AdPtr job = ad_of(kJob);
  AdPtr machine = ad_of(kMachine);
  MatchPair pair(*job, *machine);
  EXPECT_TRUE(pair.left_accepts());
  EXPECT_TRUE(pair.right_accepts());
  EXPECT_TRUE(pair.symmetric());
  EXPECT_EQ(pair.left_rank(), 4.0);    // 4096 / 1024, an integer, as a real
  EXPECT_EQ(pair.right_rank(), 10.0);  // machine Rank names the job's Owner unqualified
}

TEST(MatchPair, EitherSideCanRefuse) {
  AdPtr job = ad_of(kJob);
  AdPtr small =
      ad_of("[ Arch = \"X86_64\"; Memory = 512; Cpus = 2; Requirements = true; Rank = 0 ]");
  {
    MatchPair pair(*job, *small);
    EXPECT_FALSE(pair.left_accepts());
    EXPECT_TRUE(pair.right_accepts());
    EXPECT_FALSE(pair.symmetric());
  }
  AdPtr banned =
      ad_of("[ Owner = \"banned\"; RequestMemory = 1; RequestCpus = 1; Requirements = true ]");
  AdPtr machine = ad_of(kMachine);
  MatchPair pair(*banned, *machine);
  EXPECT_TRUE(pair.left_accepts());
  EXPECT_FALSE(pair.right_accepts());
  EXPECT_FALSE(pair.symmetric());
}

TEST(MatchPair, OrderOfSidesDoesNotMatter) {
  AdPtr job = ad_of(kJob);
  AdPtr machine = ad_of(kMachine);
  MatchPair pair(*machine, *job);
  EXPECT_TRUE(pair.symmetric());
  EXPECT_EQ(pair.left_rank(), 10.0);
  EXPECT_EQ(pair.right_rank(), 4.0);
}

TEST(MatchPair, RequirementsValuesThatAccept) {
  // The header's contract: boolean true or a non-zero integer accepts;
  // everything else (false, 0, UNDEFINED, ERROR, strings) refuses.
  const struct {
    const char* requirements;
    bool accepts;
  } cases[] = {
      {"true", true},
      {"false", false},
      {"1", true},
      {"7", true},
      {"0", false},
      {"undefined", false},
      {"error", false},
      {"\"true\"", false},
      {"TARGET.missing", false},
      {"TARGET.missing =?= undefined", true},
      {"1 / 0", false},
      {"TARGET.x > 1", true},
      {"MY.x > 1", false},
      {"{ true }", false},
  };
  for (const auto& c : cases) {
    std::string text = std::string("[ x = 1; Requirements = ") + c.requirements + " ]";
    AdPtr left = ad_of(text.c_str());
    AdPtr right = ad_of("[ x = 2; Requirements = true ]");
    MatchPair pair(*left, *right);
    EXPECT_EQ(pair.left_accepts(), c.accepts) << c.requirements;
    EXPECT_TRUE(pair.right_accepts());
    EXPECT_EQ(pair.symmetric(), c.accepts) << c.requirements;
  }
  EXPECT_TRUE(requirements_accept(Value::boolean(true)));
  EXPECT_TRUE(requirements_accept(Value::integer(-3)));
  EXPECT_FALSE(requirements_accept(Value::integer(0)));
  EXPECT_FALSE(requirements_accept(Value::undefined()));
  EXPECT_FALSE(requirements_accept(Value::error()));
  EXPECT_FALSE(requirements_accept(Value::string("true")));
}

TEST(MatchPair, MissingRequirementsRefuses) {
  AdPtr left = ad_of("[ a = 1 ]");
  AdPtr right = ad_of("[ Requirements = true ]");
  MatchPair pair(*left, *right);
  EXPECT_FALSE(pair.left_accepts());
  EXPECT_TRUE(pair.right_accepts());
}

TEST(MatchPair, RanksThatAreNotNumbers) {
  const struct {
    const char* rank;
    double value;
  } cases[] = {
      {"2.5", 2.5},
      {"-3", -3.0},
      {"undefined", 0.0},
      {"error", 0.0},
      {"\"x\"", 0.0},
      {"TARGET.Memory * 2", 200.0},
      {"TARGET.nothere", 0.0},
  };
  for (const auto& c : cases) {
    std::string text = std::string("[ Requirements = true; Rank = ") + c.rank + " ]";
    AdPtr left = ad_of(text.c_str());
    AdPtr right = ad_of("[ Memory = 100; Requirements = true ]");
    MatchPair pair(*left, *right);
    EXPECT_EQ(pair.left_rank(), c.value) << c.rank;
    EXPECT_EQ(pair.right_rank(), 0.0) << "no Rank on the right";
  }
}

TEST(MatchPair, EvaluateLeftSeesBothSides) {
  AdPtr job = ad_of(kJob);
  AdPtr machine = ad_of(kMachine);
  MatchPair pair(*job, *machine);
  ExprPtr e = parse_expr("MY.Requirements && TARGET.Requirements");
  EXPECT_EQ(to_string(pair.evaluate_left(e.get())), "true");
  e = parse_expr("strcat(Owner, \"/\", TARGET.Arch, \"/\", MyType, \"/\", TARGET.MyType)");
  EXPECT_EQ(to_string(pair.evaluate_left(e.get())), "\"tyner/X86_64/Job/Machine\"");
}

TEST(MatchPair, PartnersRestoredAfterNestedPairs) {
  AdPtr a = ad_of("[ Requirements = TARGET.k == 1; k = 0 ]");
  AdPtr b = ad_of("[ Requirements = true; k = 1 ]");
  AdPtr c = ad_of("[ Requirements = true; k = 2 ]");
  {
    MatchPair ab(*a, *b);
    EXPECT_TRUE(ab.left_accepts());
    {
      MatchPair ac(*a, *c);
      EXPECT_FALSE(ac.left_accepts());
    }
    EXPECT_TRUE(ab.left_accepts());  // a's partner is b again
  }
  EXPECT_EQ(a->partner(), nullptr);
  EXPECT_EQ(b->partner(), nullptr);
  EXPECT_EQ(c->partner(), nullptr);
}

}  // namespace
}  // namespace kite::classad
