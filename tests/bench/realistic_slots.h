// Realistic slot ads for the collector benchmarks: the real HTCondor 25 slot ad of the reference
// (185 attributes) renamed per machine and slot, with the attributes that differ between slots
// given per-slot values, as JSON texts the CM takes (full ads and the merges that follow).
#pragma once

#include <string>

#include "policy/classad/classad.h"

namespace kite::bench {

class RealisticSlots {
 public:
  // Reads the slot ad (old syntax) from `path`; false with `err` when it cannot.
  bool load(const std::string& path, std::string* err);
  // The reference's own copy beside the repository (../shared), or beside a worktree's parent.
  static std::string default_path(const std::string& source_dir);
  // The full ad of slot `slot` of machine `machine` (its host name replaces the reference's
  // everywhere), with per-slot values from `seed`.
  std::string full(const std::string& machine, int slot, int seed) const;
  // A merge carrying the attributes that change between updates, with values from `seed`.
  std::string delta(const std::string& machine, int slot, int seed) const;
  size_t attributes() const { return base_ ? base_->size() : 0; }

 private:
  classad::AdPtr base_;
  std::string host_;  // the reference's host name
};

}  // namespace kite::bench
