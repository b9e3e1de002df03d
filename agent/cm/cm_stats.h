// Figures the central manager counts for its /metrics endpoint: the collector's updates and
// queries (with a latency histogram) and the negotiator's last cycle. Plain counters, bumped
// on the loop; the endpoint reads them when scraped.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kite::cm {

struct CollectorStats {
  // Upper bounds (seconds) of the query latency buckets; a last bucket (+Inf) takes the rest.
  static constexpr double kQueryBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                            0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
  static constexpr size_t kQueryBuckets = sizeof(kQueryBounds) / sizeof(kQueryBounds[0]) + 1;

  uint64_t update_frames = 0;                  // update frames received (stored or refused)
  uint64_t updates = 0;                        // ads stored (update frames accepted)
  uint64_t invalidations = 0;                  // invalidate frames that removed an ad
  uint64_t queries = 0;                        // queries answered in full
  uint64_t refused = 0;                        // frames answered with a refusal
  uint64_t query_buckets[kQueryBuckets] = {};  // per bucket, not cumulative
  double query_seconds = 0;                    // sum of every answered query's latency

  void observe_query(double seconds) {
    size_t i = 0;
    while (i + 1 < kQueryBuckets && seconds > kQueryBounds[i]) ++i;
    ++query_buckets[i];
    query_seconds += seconds;
    ++queries;
  }
};

struct NegotiatorStats {
  uint64_t cycles = 0;
  double last_cycle_seconds = 0;
  uint64_t last_cycle_matches = 0;
  uint64_t last_cycle_idle_jobs = 0;
  uint64_t matches = 0;  // over every cycle
};

}  // namespace kite::cm
