// Standard resource rows and the one check of a requested amount (see requests.h).
#include "policy/startd/requests.h"

#include <cmath>
#include <cstdio>

#include "policy/classad/match.h"
#include "policy/classad/unparse.h"
#include "policy/util/double_to_int.h"

namespace kite::startd {

// HTCONDOR: ep-configuration "Defaults for Partitionable Slot Sizes" (MODIFY_REQUEST_EXPR_*)
// and "condor_negotiator-Side Resource Consumption Policies" (CONSUMPTION_<resource>).
const StdResource kStdResources[kStdResourceCount] = {
    {"Cpus", "RequestCpus", "MODIFY_REQUEST_EXPR_REQUESTCPUS", "quantize(RequestCpus, {1})",
     "CONSUMPTION_CPUS", "quantize(target.RequestCpus, {1})",
     [](const SlotResources& r) -> int64_t { return r.cpus; },
     [](SlotResources& r, int64_t n) { r.cpus += static_cast<int>(n); }},
    {"Memory", "RequestMemory", "MODIFY_REQUEST_EXPR_REQUESTMEMORY",
     "quantize(RequestMemory, {128})", "CONSUMPTION_MEMORY",
     "quantize(target.RequestMemory, {128})", [](const SlotResources& r) { return r.memory_mb; },
     [](SlotResources& r, int64_t n) { r.memory_mb += n; }},
    {"Disk", "RequestDisk", "MODIFY_REQUEST_EXPR_REQUESTDISK", "quantize(RequestDisk, {1024})",
     "CONSUMPTION_DISK", "quantize(target.RequestDisk, {1024})",
     [](const SlotResources& r) { return r.disk_kb; },
     [](SlotResources& r, int64_t n) { r.disk_kb += n; }},
};

RequestValue request_amount(const char* attr, const classad::Value& v, int64_t limit, int64_t* out,
                            std::string* why) {
  if (v.is_undefined()) return RequestValue::kUndefined;
  double d;
  if (v.is_integer()) {
    d = static_cast<double>(v.as_integer());
  } else if (v.is_real()) {
    d = v.as_real();
  } else if (v.is_boolean()) {
    d = v.as_boolean() ? 1 : 0;
  } else {
    *why = std::string(attr) + " is not a number (" + classad::to_string(v) + ")";
    return RequestValue::kBad;
  }
  char buf[192];
  if (!std::isfinite(d)) {
    std::snprintf(buf, sizeof buf, "%s is not a finite number (%g)", attr, d);
  } else if (d < 0) {
    std::snprintf(buf, sizeof buf, "%s %g is negative", attr, d);
  } else if (util::double_to_int64(d, util::Round::kUp, 0, limit, out)) {
    return RequestValue::kAmount;
  } else if (d == std::floor(d) && d < 1e19) {  // whole numbers in full, as the job wrote them
    std::snprintf(buf, sizeof buf,
                  "insufficient resources: %s %.0f is more than the machine's %lld", attr, d,
                  static_cast<long long>(limit));
  } else {
    std::snprintf(buf, sizeof buf, "insufficient resources: %s %g is more than the machine's %lld",
                  attr, d, static_cast<long long>(limit));
  }
  *why = buf;
  return RequestValue::kBad;
}

int64_t machine_amount(const Layout& layout, size_t i) {
  if (i < kStdResourceCount) return kStdResources[i].amount(layout.machine);
  i -= kStdResourceCount;
  return i < layout.machine.custom.size()
             ? util::double_to_int64_clamped(layout.machine.custom[i], util::Round::kDown, 0,
                                             INT64_MAX, 0)
             : 0;
}

bool requests_read(classad::ClassAd& req, classad::ClassAd* target, const Layout& layout,
                   RequestAmounts* out, std::string* why) {
  auto value_of = [&](const std::string& attr) {
    const classad::Expr* e = req.lookup(attr);
    if (!e) return classad::Value();
    return target ? classad::MatchPair(req, *target).evaluate_left(e) : req.evaluate_attr(attr);
  };
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    const char* attr = kStdResources[i].request_attr;
    RequestValue rv =
        request_amount(attr, value_of(attr), machine_amount(layout, i), &out->std[i], why);
    if (rv == RequestValue::kBad) return false;
    out->given[i] = rv == RequestValue::kAmount;
    if (!out->given[i]) out->std[i] = 1;
  }
  out->custom.assign(layout.resources.size(), 0);
  for (size_t i = 0; i < layout.resources.size(); ++i) {
    std::string attr = "Request" + layout.resources[i].name;
    RequestValue rv =
        request_amount(attr.c_str(), value_of(attr), machine_amount(layout, kStdResourceCount + i),
                       &out->custom[i], why);
    if (rv == RequestValue::kBad) return false;
  }
  return true;
}

}  // namespace kite::startd
