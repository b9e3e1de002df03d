// The negotiation-time attributes of jobs and slots (see ephemeral.h).
#include "policy/negotiator/ephemeral.h"

#include <string_view>

#include "policy/classad/expr.h"

namespace kite::negotiator {

using classad::ClassAd;
using classad::Value;

std::string accounting_group(const std::string& submitter) {
  size_t at = submitter.find('@');
  std::string user = submitter.substr(0, at);
  size_t dot = user.rfind('.');
  if (dot == std::string::npos || dot == 0) return "<none>";
  return user.substr(0, dot);
}

namespace {

// The five names with one prefix, interned once (set on every potential match list made).
struct PrefixedNames {
  explicit PrefixedNames(const std::string& p)
      : prio(classad::intern_name(p + "UserPrio")),
        in_use(classad::intern_name(p + "UserResourcesInUse")),
        group(classad::intern_name(p + "Group")),
        negotiating(classad::intern_name(p + "NegotiatingGroup")),
        autoregroup(classad::intern_name(p + "Autoregroup")) {}
  classad::InternedName prio, in_use, group, negotiating, autoregroup;
};

const PrefixedNames& names_of(const char* prefix) {
  static const PrefixedNames submitter("Submitter"), remote("Remote");
  return std::string_view(prefix) == "Remote" ? remote : submitter;  // (the only two)
}

void put(ClassAd& ad, const classad::InternedName& name, Value v) {
  ad.insert(name, new classad::LiteralExpr(static_cast<Value&&>(v)));
}

void set_attrs(ClassAd& ad, const char* prefix, const std::string& name, double prio,
               double in_use) {
  const PrefixedNames& n = names_of(prefix);
  std::string group = accounting_group(name);
  put(ad, n.prio, Value::real(prio));
  put(ad, n.in_use, Value::real(in_use));
  put(ad, n.group, Value::string(group));
  put(ad, n.negotiating, Value::string(group));
  put(ad, n.autoregroup, Value::boolean(false));
}

}  // namespace

void set_submitter_attrs(ClassAd& job, const std::string& name, double prio, double in_use) {
  set_attrs(job, "Submitter", name, prio, in_use);
}

RemoteAttrs::~RemoteAttrs() {
  for (Scope& s : scopes_) s.slot->set_parent(s.saved_parent);
}

void RemoteAttrs::add(ClassAd& slot, const std::string& user, double prio, double in_use) {
  Scope s{&slot, slot.parent(), classad::AdPtr(ClassAd::make())};
  set_attrs(*s.overlay, "Remote", user, prio, in_use);
  s.overlay->set_parent(slot.parent());
  slot.set_parent(s.overlay.get());
  scopes_.push_back(std::move(s));
}

Pairing::Pairing(ClassAd& job, ClassAd& slot, const classad::EvalEnv* env) : pair_(job, slot, env) {
  if (slot.parent()) {
    const ClassAd* r = &slot;
    while (r->parent()) r = r->parent();
    root_ = const_cast<ClassAd*>(r);
    saved_root_partner_ = root_->partner();
    root_->set_partner(&job);
  }
}

Pairing::~Pairing() {
  if (root_) root_->set_partner(saved_root_partner_);
}

}  // namespace kite::negotiator
