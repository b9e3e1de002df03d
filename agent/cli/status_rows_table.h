// The default slot table (and -avail's) straight from a CM's compact rows: values read flat,
// keys sorted, lines written into one buffer, with no ad built per row. Prints exactly what
// render_status prints for the ads the rows stand for; rows it does not handle (a JSON row, an
// expression) are left to the ads path.
#pragma once
#include <string>
#include <vector>

#include "agent/cli/status_format.h"
#include "agent/core/ad_rows.h"

namespace kite::cli {

// The rows of one reply frame and the attribute names of their columns, with their values read
// flat as the frame came (while the CM writes the next).
struct RowChunk {
  std::vector<std::string> attrs;
  std::string text;
  std::vector<core::RowValue> values;  // views into `text`
  bool plain = false;                  // every row is plain values (read into `values`)
  std::string error;                   // malformed rows: where
};

// Reads `chunk`'s values (call once its attrs and text are set, and before it moves: a
// std::string keeps its bytes in place when moved, unless short).
void read_chunk_values(RowChunk* chunk);

// True when `o` prints a table this path draws (the default table of the slots, or of the
// available ones, sorted by Machine and Name, the CM having applied the constraint).
bool rows_table_applies(const StatusOptions& o);

enum class RowsTable {
  kDone,      // *out holds the whole output
  kNotPlain,  // a row is not plain values: read the rows into ads instead (nothing written)
  kError,     // malformed rows: *err says where
};
// `flush`, when given, takes what *out holds whenever it passes 64 KiB (and leaves it empty),
// so a table of 10,000 rows is written from a small buffer instead of a megabyte built first;
// it is called only once the table is sure to print (never before kNotPlain or kError).
using RowsFlush = void (*)(std::string* out);
RowsTable render_rows_table(const StatusOptions& o, const std::vector<RowChunk>& chunks,
                            std::string* out, std::string* err, RowsFlush flush = nullptr);

}  // namespace kite::cli
