// The ephemeral attributes: values that exist only while the negotiator matches, visible to the
// expressions of both ads (SubmitterUserPrio, SubmitterUserResourcesInUse, SubmitterGroup,
// SubmitterNegotiatingGroup, SubmitterAutoregroup on the job; RemoteUserPrio,
// RemoteUserResourcesInUse, RemoteGroup, RemoteNegotiatingGroup, RemoteAutoregroup on a slot
// running a job). The job side goes into the cycle's own copy of each autocluster's first job;
// the slot side into a small ad set as the slot's enclosing scope for the cycle (the slot's own
// attributes still win), undone when the cycle ends. HTCONDOR: central-manager "Priorities in
// Negotiation and Preemption".
#pragma once

#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/match.h"

namespace kite::negotiator {

/// The accounting group of a submitter "group_a.alice@domain": "group_a"; "<none>" without one.
std::string accounting_group(const std::string& submitter);

/// Sets the Submitter* attributes on `job` (the cycle's own copy).
void set_submitter_attrs(classad::ClassAd& job, const std::string& name, double prio,
                         double in_use);

/// Gives slots running a job their Remote* attributes for the life of this object.
class RemoteAttrs {
 public:
  RemoteAttrs() = default;
  ~RemoteAttrs();
  RemoteAttrs(const RemoteAttrs&) = delete;
  RemoteAttrs& operator=(const RemoteAttrs&) = delete;
  void add(classad::ClassAd& slot, const std::string& user, double prio, double in_use);

 private:
  struct Scope {
    classad::ClassAd* slot;
    const classad::ClassAd* saved_parent;
    classad::AdPtr overlay;
  };
  std::vector<Scope> scopes_;
};

/// A MatchPair of a job (left) and a slot (right) that also makes the job the TARGET of the
/// slot's enclosing scope when it has one (the Remote* overlay: TARGET resolves from the root).
class Pairing {
 public:
  Pairing(classad::ClassAd& job, classad::ClassAd& slot, const classad::EvalEnv* env);
  ~Pairing();
  Pairing(const Pairing&) = delete;
  Pairing& operator=(const Pairing&) = delete;
  const classad::MatchPair& match() const { return pair_; }

 private:
  classad::MatchPair pair_;
  classad::ClassAd* root_ = nullptr;
  const classad::ClassAd* saved_root_partner_ = nullptr;
};

}  // namespace kite::negotiator
