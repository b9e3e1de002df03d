// Slot layout: turns NUM_SLOTS / SLOT_TYPE_<N> / NUM_SLOTS_TYPE_<N> / SLOT_TYPE_<N>_PARTITIONABLE
// and MACHINE_RESOURCE_<name> into the list of slots and the resources each one owns.
// HTCONDOR: ep-policy "Dividing System Resources in Multi-core Machines", "Configuring GPUs",
// "Dynamic Provisioning: Partitionable and Dynamic Slots".
#pragma once

#include <string>
#include <vector>

#include "policy/config/config.h"
#include "policy/startd/machine.h"

namespace kite::startd {

/// A custom machine resource (MACHINE_RESOURCE_<name>): a count, and the device ids when the
/// resource is a list of named devices (GPUs).
struct CustomResource {
  std::string name;                  // as configured ("GPUs", "Cogs")
  double total = 0;                  // Total<name>
  std::vector<std::string> ids;      // named instances, if any
  std::vector<std::string> props;    // per id: property ad text (old syntax), may be empty
  std::vector<std::string> offline;  // OFFLINE_MACHINE_RESOURCE_<name>: ids never assigned
};

/// The resources one slot owns.
struct SlotResources {
  int cpus = 0;
  int64_t memory_mb = 0;
  int64_t disk_kb = 0;
  int64_t swap_kb = 0;
  std::vector<double> custom;                 // parallel to Layout::resources
  std::vector<std::vector<std::string>> ids;  // assigned device ids, parallel to resources
};

/// One configured slot (static or partitionable).
struct SlotSpec {
  int id = 0;       // SlotID (1-based)
  int type_id = 0;  // SlotTypeID (0 = no slot type: NUM_SLOTS layout)
  bool partitionable = false;
  SlotResources res;
};

/// A machine's layout.
struct Layout {
  std::vector<CustomResource> resources;
  std::vector<SlotSpec> slots;
  SlotResources machine;  // the machine's totals (NUM_CPUS, MEMORY less RESERVED_*, ...): the
                          // most any slot or request can have; custom parallel to resources
};

/// Builds the layout; on an impossible configuration returns false with a message naming the
/// slot type and the resource ("SLOT_TYPE_2: memory: 300 MB requested, only 100 MB left").
bool layout_build(const config::Config& cfg, const MachineFacts& facts, Layout* out,
                  std::string* err);

}  // namespace kite::startd
