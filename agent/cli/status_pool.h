// `kite status -pool HOST[:PORT]`: one query to the central manager's collector over mutual
// TLS with the user's certificate, the ads back as ClassAds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/cli/status_format.h"
#include "agent/cli/status_rows_table.h"
#include "policy/classad/classad.h"

namespace kite::cli {

/// Queries `pool` for the ads the options show; counts[i] is how many ads ads[i] stands for (more
/// than one only when status_counts_only(o): the CM counted them). False with a message saying
/// what failed (unreachable CM, certificate not trusted, not authorized).
/// Only the attributes the output reads are fetched.
/// With `chunks`, replies in compact rows are kept as they came (for render_rows_table) instead
/// of read into ads, unless JSON ads come too (then all arrive in `ads`). With `stream` too,
/// the CM is asked for the table's order and each chunk goes to `stream` as it comes.
bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::vector<uint64_t>* counts, std::string* err,
                std::vector<RowChunk>* chunks = nullptr, RowsTableStream* stream = nullptr);
/// Reads kept row chunks into ads (appended to `ads`, each counted once in `counts`).
bool read_row_chunks(const std::vector<RowChunk>& chunks, std::vector<classad::AdPtr>* ads,
                     std::vector<uint64_t>* counts, std::string* err);
/// The whole ads `o` selects, one by one (for other uses than printing them).
bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err);

}  // namespace kite::cli
