// Internal to the slot layout: what one SLOT_TYPE_<N> line gives a slot of each resource
// ("cpus=2, memory=25%, auto", "GPUs = 1 : Capability >= 8.0") and the rules each resource
// follows when shares become amounts. Not for use outside slot_layout*.cc.
// HTCONDOR: ep-policy "Dividing System Resources in Multi-core Machines".
#pragma once

#include <string>
#include <vector>

#include "policy/startd/slot_layout.h"

namespace kite::startd::layout_detail {

/// Where a layout keeps each resource: the four standard ones, then the custom ones in
/// Layout::resources order.
enum ResourceIndex : size_t { kCpus, kMemory, kDisk, kSwap, kFirstCustom };

enum class ShareKind { kUnset, kAuto, kFraction, kAbsolute };

/// One slot type's claim on one resource.
struct Share {
  ShareKind kind = ShareKind::kUnset;
  double value = 0;        // kFraction: 0..1; kAbsolute: the configured amount
  std::string constraint;  // custom resources: "Capability >= 8.0" or "\"GPU-1\""
};

/// How shares of one resource become amounts.
struct ResourceRule {
  std::string name;                 // in messages ("cpus", "memory", "Cogs")
  double absolute_scale = 1;        // configured unit -> slot unit (disk, swap: MB -> KiB)
  bool floor_absolute = true;       // absolute amounts are whole units
  bool fraction_min_one = false;    // cpus: a fraction of the machine gives at least one
  const char* auto_unit = nullptr;  // cpus, memory: `auto` must leave one of these each
};

/// The rules of every resource, standard then custom.
std::vector<ResourceRule> resource_rules(const std::vector<CustomResource>& custom);

/// A slot type: how many slots, whether partitionable, and its share of each resource.
struct TypeSpec {
  int type_id = 0;
  int count = 0;
  bool partitionable = false;
  std::vector<Share> shares;  // per resource, ResourceIndex order
};

/// Parses SLOT_TYPE_<type_id>'s text into out->shares; resources it leaves out get the blanket
/// share ("auto" when none). False with "SLOT_TYPE_<N>: ..." in `err`.
bool type_shares_parse(const std::string& text, int type_id,
                       const std::vector<CustomResource>& custom, TypeSpec* out, std::string* err);

/// True when device `id` (with property ad text `props`) satisfies a share's constraint.
bool device_matches(const std::string& constraint, const std::string& id, const std::string& props);

}  // namespace kite::startd::layout_detail
