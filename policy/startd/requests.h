// A job's resource requests as the startd takes them, before it carves a dynamic slot or runs a
// job: the standard resources as table rows, and the one check every requested amount passes
// (a number, finite, not negative, within the machine, rounded up to whole units).
// HTCONDOR: ep-configuration "Dynamic Provisioning: Partitionable and Dynamic Slots".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/value.h"
#include "policy/startd/slot_layout.h"

namespace kite::startd {

/// One standard resource: the slot attribute that publishes it, the job attribute that asks
/// for it, HTCondor's macros (and defaults) that size a dynamic slot from the request, and the
/// slot's field (memory in MB, disk in KiB, as HTCondor counts them).
struct StdResource {
  const char* name;             // "Cpus"
  const char* request_attr;     // "RequestCpus"
  const char* modify_macro;     // MODIFY_REQUEST_EXPR_REQUESTCPUS
  const char* modify_default;   // evaluated with the job as MY
  const char* consume_macro;    // CONSUMPTION_CPUS (CONSUMPTION_POLICY = True)
  const char* consume_default;  // evaluated by the slot, the job as TARGET
  int64_t (*amount)(const SlotResources& r);
  void (*add)(SlotResources& r, int64_t n);  // n < 0 takes
};

constexpr size_t kStdResourceCount = 3;
/// Cpus, Memory, Disk, in that order.
extern const StdResource kStdResources[kStdResourceCount];

/// What a request asks of every resource, in whole units.
struct RequestAmounts {
  int64_t std[kStdResourceCount] = {};
  bool given[kStdResourceCount] = {};  // false: the job does not say (the amount is 1)
  std::vector<int64_t> custom;         // parallel to Layout::resources; 0 when not asked
};

/// How one requested value reads.
enum class RequestValue : uint8_t { kAmount, kUndefined, kBad };

/// The one check of a requested amount: `v`, the value of `attr`, must be a number, finite,
/// at least 0 and at most `limit`; it is rounded up (0.5 CPU takes 1). kUndefined when `v` is
/// undefined (the caller's default applies); kBad with a reason naming `attr` and the value
/// otherwise ("RequestCpus -100 is negative").
RequestValue request_amount(const char* attr, const classad::Value& v, int64_t limit, int64_t* out,
                            std::string* why);

/// The machine's amount of standard resource `i` or custom resource `i - kStdResourceCount`,
/// the upper bound of any request.
int64_t machine_amount(const Layout& layout, size_t i);

/// Reads and checks every request of `req` (RequestCpus, RequestMemory, RequestDisk,
/// Request<custom>) with request_amount against the machine's totals; evaluated with `target`
/// as TARGET when given. An undefined standard request counts 1 (given false), an undefined
/// custom one 0. False with the first bad request's reason.
bool requests_read(classad::ClassAd& req, classad::ClassAd* target, const Layout& layout,
                   RequestAmounts* out, std::string* why);

}  // namespace kite::startd
