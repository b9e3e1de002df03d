// Group quotas: settings, top-down quotas with scaling, bottom-up surplus, negotiation order.
#include "policy/fairshare/group_quotas.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "policy/classad/classad.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::fairshare {
namespace {

constexpr double kEps = 1e-9;

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

int find_group(const std::vector<GroupConfig>& groups, std::string_view name) {
  for (size_t i = 0; i < groups.size(); ++i)
    if (same_name(groups[i].name, name)) return int(i);
  return -1;
}

config::Status where_error(const config::Config& cfg, const std::string& name,
                           const std::string& why) {
  config::Entry e;
  std::string at = cfg.lookup(name, &e) ? e.source + ": " : "";
  return config::Status::Error(at + name + ": " + why);
}

// A share of surplus goes to a group's own submitters or to a subgroup's whole subtree.
struct Taker {
  int node;
  bool own;
  double weight;  // its quota: surplus is shared by quota
};

// The tree as computed for one cycle; node 0 is <none>.
struct Tree {
  std::vector<GroupQuota>& q;
  std::vector<std::vector<int>> children;
  std::vector<bool> takes;  // the node's own submitters take surplus shared inside its subtree

  double own_unmet(int n) const { return std::max(0.0, q[n].requested - q[n].allocated); }
  // Unmet demand that surplus handed to subtree `n` can reach.
  double reachable_unmet(int n) const {
    double u = takes[n] ? own_unmet(n) : 0;
    for (int c : children[n])
      if (q[c].accept_surplus) u += reachable_unmet(c);
    return u;
  }
  // Shares `amount` among n's own submitters and its accepting subgroups, in proportion to
  // their quotas (equally among those without one), each capped by its unmet demand; what a
  // subgroup gets is passed down its subtree the same way. Returns what nobody could use.
  double share(int n, double amount) {
    std::vector<Taker> takers;
    if (takes[n]) takers.push_back({n, true, q[n].own_quota});
    for (int c : children[n])
      if (q[c].accept_surplus) takers.push_back({c, false, q[c].effective_quota});
    while (amount > kEps) {
      double weights = 0;
      size_t open = 0;
      for (const Taker& t : takers) {
        if (unmet_of(t) <= kEps) continue;
        ++open;
        weights += t.weight;
      }
      if (open == 0) break;
      double given = 0;
      for (const Taker& t : takers) {
        double unmet = unmet_of(t);
        if (unmet <= kEps) continue;
        if (weights > kEps && t.weight <= 0) continue;  // they wait for the weighted ones
        double part = weights > kEps ? amount * t.weight / weights : amount / double(open);
        part = std::min(part, unmet);
        if (t.own) {
          q[t.node].allocated += part;
        } else {
          part -= share(t.node, part);
        }
        given += part;
      }
      amount -= given;
      if (given <= kEps) break;
    }
    return amount;
  }
  double unmet_of(const Taker& t) const {
    return t.own ? own_unmet(t.node) : reachable_unmet(t.node);
  }
  // Bottom-up: a group's unused quota goes first to its peers that accept surplus, then up.
  double fairshare(int n) {
    q[n].allocated = std::min(q[n].requested, q[n].own_quota);
    double surplus = q[n].own_quota - q[n].allocated;
    for (int c : children[n]) surplus += fairshare(c);
    return share(n, surplus);
  }
};

}  // namespace

config::Status group_settings_from_config(const config::Config& cfg, GroupSettings* out) {
  GroupSettings s;
  std::string names;
  cfg.get("GROUP_NAMES", &names);
  bool accept_default = false;
  config::Status st = config::read_bool(cfg, "GROUP_ACCEPT_SURPLUS", &accept_default);
  if (st.ok) st = config::read_bool(cfg, "GROUP_AUTOREGROUP", &s.none_autoregroup);
  if (st.ok)
    st = config::read_bool(cfg, "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION",
                           &s.allow_oversubscription);
  if (!st.ok) return st;
  cfg.get("GROUP_SORT_EXPR", &s.sort_expr);
  for (const std::string& name : config::split_list(names)) {
    if (find_group(s.groups, name) >= 0)
      return where_error(cfg, "GROUP_NAMES", "group " + name + " is named twice");
    size_t dot = name.rfind('.');
    if (dot != std::string::npos && find_group(s.groups, name.substr(0, dot)) < 0)
      return where_error(cfg, "GROUP_NAMES",
                         "group " + name + " comes before its parent " + name.substr(0, dot) +
                             " or its parent is not in GROUP_NAMES");
    GroupConfig g;
    g.name = name;
    bool found = false;
    st = config::read_real(cfg, "GROUP_QUOTA_" + name, &g.quota, &found);
    if (!st.ok) return st;
    if (found) {
      g.has_quota = true;
      if (g.quota < 0) return where_error(cfg, "GROUP_QUOTA_" + name, "quota is negative");
    } else {
      st = config::read_real(cfg, "GROUP_QUOTA_DYNAMIC_" + name, &g.quota, &found);
      if (!st.ok) return st;
      if (found) {
        g.has_quota = g.dynamic = true;
        if (g.quota < 0 || g.quota > 1)
          return where_error(cfg, "GROUP_QUOTA_DYNAMIC_" + name,
                             "a dynamic quota is a fraction from 0 to 1");
      }
    }
    g.accept_surplus = accept_default;
    g.autoregroup = s.none_autoregroup;
    if (st = config::read_bool(cfg, "GROUP_ACCEPT_SURPLUS_" + name, &g.accept_surplus); !st.ok)
      return st;
    if (st = config::read_bool(cfg, "GROUP_AUTOREGROUP_" + name, &g.autoregroup); !st.ok) return st;
    s.groups.push_back(std::move(g));
  }
  *out = std::move(s);
  return config::Status::Ok();
}

std::vector<GroupQuota> compute_group_quotas(const GroupSettings& settings, double pool_weight,
                                             const std::vector<GroupDemand>& demand) {
  std::vector<GroupQuota> q(settings.groups.size() + 1);
  Tree tree{q, std::vector<std::vector<int>>(q.size()), std::vector<bool>(q.size(), false)};
  q[0].name = std::string(kNoGroup);
  q[0].config_quota = q[0].effective_quota = pool_weight;
  q[0].accept_surplus = true;
  tree.takes[0] = true;  // <none> takes whatever no group uses
  for (size_t i = 0; i < settings.groups.size(); ++i) {
    const GroupConfig& g = settings.groups[i];
    GroupQuota& gq = q[i + 1];
    gq.name = g.name;
    gq.config_quota = g.quota;
    gq.dynamic = g.dynamic;
    gq.accept_surplus = g.accept_surplus;
    tree.takes[i + 1] = g.accept_surplus;
    size_t dot = g.name.rfind('.');
    gq.parent =
        dot == std::string::npos ? 0 : find_group(settings.groups, g.name.substr(0, dot)) + 1;
    if (gq.parent < 0) gq.parent = 0;
    tree.children[size_t(gq.parent)].push_back(int(i + 1));
  }
  for (const GroupDemand& d : demand) {
    int idx = same_name(d.name, kNoGroup) ? 0 : find_group(settings.groups, d.name) + 1;
    if (idx < 0) idx = 0;
    q[size_t(idx)].usage += d.usage;
    q[size_t(idx)].requested += d.requested;
  }
  // Top-down: parents come before their subgroups in q (GROUP_NAMES order is checked).
  for (size_t n = 0; n < q.size(); ++n) {
    const double parent_quota = q[n].effective_quota;
    double fractions = 0;
    for (int c : tree.children[n])
      if (q[size_t(c)].dynamic) fractions += q[size_t(c)].config_quota;
    // Dynamic fractions summing over 1 are scaled down to 1.
    const double fraction_scale = fractions > 1 ? 1 / fractions : 1;
    double sum = 0;
    for (int c : tree.children[n]) {
      GroupQuota& cq = q[size_t(c)];
      cq.effective_quota =
          cq.dynamic ? cq.config_quota * fraction_scale * parent_quota : cq.config_quota;
      sum += cq.effective_quota;
    }
    if (sum > parent_quota + kEps && !settings.allow_oversubscription) {
      for (int c : tree.children[n]) q[size_t(c)].effective_quota *= parent_quota / sum;
      sum = parent_quota;
    }
    q[n].own_quota = std::max(0.0, parent_quota - sum);
  }
  // Subtree demand, children after parents: add up backwards.
  for (size_t n = q.size(); n-- > 0;) {
    q[n].subtree_requested += q[n].requested;
    if (q[n].parent >= 0) q[size_t(q[n].parent)].subtree_requested += q[n].subtree_requested;
  }
  tree.fairshare(0);
  return q;
}

std::string group_of(const GroupSettings& settings, std::string_view accounting_group) {
  int idx = find_group(settings.groups, accounting_group);
  if (idx < 0) {
    size_t dot = accounting_group.rfind('.');
    if (dot != std::string_view::npos)
      idx = find_group(settings.groups, accounting_group.substr(0, dot));
  }
  return idx < 0 ? std::string(kNoGroup) : settings.groups[size_t(idx)].name;
}

bool group_sort_keys(std::string_view expr, const std::vector<GroupQuota>& quotas,
                     std::vector<double>* keys, std::string* error) {
  classad::ParseError perr;
  classad::ExprPtr parsed = classad::parse_expr(expr, &perr);
  if (!parsed) {
    *error = "GROUP_SORT_EXPR = " + std::string(expr) + ": " + perr.to_string();
    return false;
  }
  keys->clear();
  for (const GroupQuota& g : quotas) {
    classad::AdPtr ad(classad::ClassAd::make());
    ad->insert_value("AccountingGroup", classad::Value::string(g.name));
    ad->insert_value("GroupQuota", classad::Value::real(g.effective_quota));
    ad->insert_value("GroupResourcesInUse", classad::Value::real(g.usage));
    ad->insert_value("GroupResourcesAllocated", classad::Value::real(g.allocated));
    classad::Value v = ad->evaluate_expr(parsed.get());
    double key = std::numeric_limits<double>::max();
    if (v.is_real()) key = v.as_real();
    if (v.is_integer()) key = double(v.as_integer());
    keys->push_back(key);
  }
  return true;
}

std::vector<size_t> negotiation_order(const std::vector<GroupQuota>& quotas,
                                      const std::vector<double>* keys) {
  std::vector<size_t> order;
  for (size_t i = 0; i < quotas.size(); ++i)
    if (quotas[i].name != kNoGroup) order.push_back(i);
  auto key = [&](size_t i) {
    if (keys && i < keys->size()) {
      double k = (*keys)[i];
      return k > 0 ? k : std::numeric_limits<double>::max();
    }
    const GroupQuota& g = quotas[i];
    if (g.allocated <= 0) return g.usage > 0 ? std::numeric_limits<double>::max() : 0.0;
    return g.usage / g.allocated;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  for (size_t i = 0; i < quotas.size(); ++i)
    if (quotas[i].name == kNoGroup) order.push_back(i);
  return order;
}

}  // namespace kite::fairshare
