// The matchmaking primitive: pair two ads as MY/TARGET of each other, test
// both Requirements and evaluate both Ranks, as the negotiator and the startd
// use it. HTCONDOR: classad-mechanism "Matchmaking with ClassAds".
#pragma once

#include "policy/classad/classad.h"
#include "policy/classad/eval_env.h"
#include "policy/classad/value.h"

namespace kite::classad {

// While alive, `left` and `right` see each other as TARGET (and unqualified
// names in each fall back to the other). Restores both on destruction.
class MatchPair {
 public:
  // `env`: time and randomness for every evaluation (null: the defaults).
  MatchPair(ClassAd& left, ClassAd& right, const EvalEnv* env = nullptr);
  ~MatchPair();
  MatchPair(const MatchPair&) = delete;
  MatchPair& operator=(const MatchPair&) = delete;

  // Evaluates `e` with `left` as MY.
  Value evaluate_left(const Expr* e) const;
  // Requirements of each side accept the other: true, or a non-zero integer.
  bool left_accepts() const;
  bool right_accepts() const;
  bool symmetric() const { return left_accepts() && right_accepts(); }
  // Rank of each side as a real (0.0 when missing or not a number).
  double left_rank() const;
  double right_rank() const;

 private:
  ClassAd& left_;
  ClassAd& right_;
  const EvalEnv* env_;
  const ClassAd* saved_left_partner_;
  const ClassAd* saved_right_partner_;
};

// A side's Requirements accepts: boolean true or a non-zero integer.
bool requirements_accept(const Value& v);

}  // namespace kite::classad
