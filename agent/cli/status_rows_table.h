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

// The default table drawn as its rows come: each frame's rows (from a CM that sends them in the
// table's order, QuerySpec::table_order) are checked to be in that order and drawn at once,
// while the CM writes the next frame; finish() pads Name and State to their final widths and
// adds the totals. A row out of order, a slot without a Name, or a frame that is not plain values
// ends the streaming, and render_rows_table draws the table from all the chunks instead: the
// output is the same either way.
class RowsTableStream {
 public:
  explicit RowsTableStream(const StatusOptions& o);
  ~RowsTableStream();
  // The next frame's rows; `chunk` must stay where it is until finish().
  void add(const RowChunk& chunk);
  // Streaming ends (the rows are read another way).
  void abandon();
  bool streaming() const;
  // After the last frame: the whole output into *out (passed to `flush` each 64 KiB, as
  // render_rows_table does). False, with nothing written, when streaming ended.
  bool finish(std::string* out, RowsFlush flush = nullptr);

 private:
  struct State;
  State* s_;
};

}  // namespace kite::cli
