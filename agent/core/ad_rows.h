// Projected ads as compact rows for query replies: the attribute names once per frame, then per
// ad only its values, so the CM writes and the CLI reads 10,000 table rows without a JSON text
// (and a JSON parse) per ad. A row reads back as the ad the projection's JSON text gives.
//
// row   := 'R' value... ';'  (one value per attribute, in order)
//        | 'J' LEN ':' JSON ';'  (an ad that does not fit a row: its projection as JSON text)
// value := '-' (absent) | 'u' (undefined) | 't' | 'f' | 'i' INT ',' | 'r' REAL ',' (as the JSON
//          writer prints it) | 's' LEN ':' BYTES
//        | 'e' LEN ':' TEXT  (an expression that reads no attribute, such as time(), unparsed as
//                            the JSON writer's \/Expr()\/ holds it)
//        | '='  (this column's value in the frame's previous 'R' row)
//        | 'd' INT ','  (an integer: this column's integer in the frame's previous 'R' row plus
//                        INT; a timestamp in 3 or 4 bytes instead of 12)
// The last three are written only for a client that asks for them (RowWriter: 'e' and '=' for
// "rows_v" 2, 'd' too for 3); readers take all.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/intern.h"

namespace kite::core {

// Appends `ad`'s values of the attributes `ids` (interned ids of distinct names; 0: a name no ad
// has) as one row; false, with nothing appended, when one of them does not fit a row (an
// expression, error, a list, an ad, a time, a real that is not finite, a string the JSON reader
// would take for an expression).
bool append_ad_row(std::string* out, const classad::ClassAd& ad, const std::vector<uint32_t>& ids);
// True when `e` reads no attribute (time(), 1 + 2): its value is the same in any ad, so it may
// travel without the ad's other attributes.
bool attribute_free(const classad::Expr* e, int depth = 0);

// Writes the rows of one reply frame with expressions as text and repeated values as '=' (cheaper
// to write, send and read: a slot table's OpSys, Arch, State and Machine mostly repeat).
class RowWriter {
 public:
  // `deltas`: integers that differ from the previous row's as 'd' when that is shorter.
  explicit RowWriter(size_t columns, bool deltas = false)
      : prev_(columns), next_(columns), deltas_(deltas) {}
  // Writes `ad`'s row with expressions as text (no '=': a row that stands alone, which may be
  // kept for later frames). False (nothing written) for a value that fits no row (a list, an
  // ad, a time, an error, a real that is not finite).
  static bool write_row(std::string* out, const classad::ClassAd& ad,
                        const std::vector<uint32_t>& ids);
  // Appends a row write_row wrote (or a JSON row), with values equal to the previous row's as
  // '=' (and integers as 'd' with `deltas`).
  void append(std::string* out, std::string_view row);
  // A new frame: '=' and 'd' refer to rows of the frame only.
  void reset() {
    for (Span& s : prev_) s = Span{};
    prev_row_.clear();
  }

 private:
  struct Span {
    size_t at = 0, len = 0;  // where the column's value text is in its row
    bool is_int = false;     // an integer (read only with deltas), and its value
    long long value = 0;
  };
  std::vector<Span> prev_, next_;  // in prev_row_, in the row being appended
  std::string prev_row_;           // the previous 'R' row as write_row wrote it
  bool deltas_;
};

// Sets the ids of `names` that were not interned (0) when they are now: an update may bring a
// name no ad had when a query started. Names are looked up, never interned (a client must not
// grow the table).
void refresh_row_ids(const std::vector<std::string>& names, std::vector<uint32_t>* ids);

// Appends an ad that does not fit a row as the JSON text of its projection.
void append_json_row(std::string* out, std::string_view json);

// Reads the rows of `text` into ads (value i of a row is attribute attrs[i]). False with `err`
// naming the byte offset of what is malformed.
bool read_ad_rows(std::string_view text, const std::vector<classad::InternedName>& attrs,
                  std::vector<classad::AdPtr>* out, std::string* err);

// One value of a row read flat (no ad built): tag as written ('-' 'u' 't' 'f' 'i' 'r' 's'), the
// number for 'i' and 'r', the bytes for 's' (in the rows' text). 16 bytes: a table holds 13 of
// them for each of 10,000 rows.
struct RowValue {
  union {
    long long i = 0;
    double r;
    const char* s;
  };
  uint32_t n = 0;  // the string's length
  char tag = '-';
  std::string_view str() const { return {s, n}; }
};
// Reads the rows of `text` as `columns` values each, appended to `out`. False with `err` naming
// the byte offset of what is malformed; `*plain` false (and false returned, `err` empty) at the
// first row that is not plain values (a 'J' row, or an expression other than one that reads no
// attribute and gives a number, a boolean or undefined, which is read as that value): the
// caller builds ads then.
bool read_row_values(std::string_view text, size_t columns, std::vector<RowValue>* out, bool* plain,
                     std::string* err);

}  // namespace kite::core
