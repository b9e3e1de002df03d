// Which jobs a condor_q / condor_history command line selects (see job_tables.h).
#include <cstdlib>

#include "agent/queue/job_tables.h"
#include "policy/classad/parser.h"

namespace kite::queue {

bool JobSelection::selects(const classad::ClassAd& ad) const {
  if (!ids.empty() || !owners.empty()) {
    int64_t cluster = -1, proc = -1;
    ad_int(ad, "ClusterId", &cluster);
    ad_int(ad, "ProcId", &proc);
    std::string owner;
    ad_string(ad, "Owner", &owner);
    bool any = false;
    for (const Id& id : ids) {
      if (id.cluster == cluster && (id.proc < 0 || id.proc == proc)) any = true;
    }
    for (const std::string& o : owners) {
      if (o == owner) any = true;
    }
    if (!any) return false;
  }
  for (const classad::ExprPtr& c : constraints) {
    classad::Value v = ad.evaluate_expr(c.get());
    bool yes = (v.is_boolean() && v.as_integer()) || (v.is_integer() && v.as_integer() != 0) ||
               (v.is_real() && v.as_real() != 0);
    if (!yes) return false;
  }
  return true;
}

bool JobSelection::add_constraint(const std::string& text, std::string* err) {
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(text, &pe);
  if (!e) {
    if (err) *err = "'" + text + "' is not a valid constraint: " + pe.to_string();
    return false;
  }
  constraints.push_back(std::move(e));
  return true;
}

void JobSelection::add_positional(const std::string& arg) {
  char* end = nullptr;
  long long c = std::strtoll(arg.c_str(), &end, 10);
  if (end != arg.c_str() && c >= 0) {
    if (*end == 0) {
      ids.push_back({c, -1});
      return;
    }
    if (*end == '.') {
      char* end2 = nullptr;
      long long p = std::strtoll(end + 1, &end2, 10);
      if (end2 != end + 1 && *end2 == 0 && p >= 0) {
        ids.push_back({c, p});
        return;
      }
    }
  }
  owners.push_back(arg);
}

}  // namespace kite::queue
