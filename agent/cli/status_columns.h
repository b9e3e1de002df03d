// The column engine behind condor_status's tables: each column is an expression with a header,
// a width rule and a renderer; cells are computed for every row, then widths, then the text.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::cli {

enum class Render {
  kPlain,         // strings unquoted, other values unparsed (the default %v of a print format)
  kFixedString,   // a fixed WIDTH and no format: strings only, anything else prints blank
  kString,        // PRINTF %s: strings; an attribute that is not a string prints its expression
  kPrintf,        // `printf` applied to the value
  kLoadAvg,       // %.3f
  kActivityTime,  // MyCurrentTime (or LastHeardFrom) minus the value, as d+hh:mm:ss
  kElapsed,       // LastHeardFrom minus the value, as d+hh:mm:ss
  kDuration,      // the value itself as d+hh:mm:ss
  kDate,          // the value as a local date, mm/dd HH:MM
  kPlatform,      // x64/Debian12 from Arch and OpSysAndVer
  kActivityCode,  // two letters for State and Activity (Ui, Cb, ...)
  kSlotTag,       // " " for partitionable, "S" for static, the first letter otherwise
  kActivityOcu,   // Activity, or OCU for an idle OCU holder
  kVersion,       // X.Y.Z.BuildId from a $CondorVersion: ...$ string
  kReadableMb,    // megabytes as "23.5 GB" (HTCondor's metric_units)
  kUnique,        // a list's (or a comma/blank-separated string's) distinct items, sorted, ", "
};

struct ColumnSpec {
  const char* header;
  const char* expr;
  int width;      // >0: right-aligned in this width; <0: left-aligned; 0: as wide as needed
  bool at_least;  // width is a minimum that grows to fit the values and header (AUTO/FIT)
  Render render;
  const char* printf_fmt;  // for kPrintf
  // Printed when the value cannot be shown (null: empty). Two equal characters of " ?*.-_#0"
  // fill the column's width, "??" as "[????]", as a print format's `OR ??` does.
  const char* or_text;
  bool noprefix = false;  // no separating space before this column
  bool truncate = false;  // longer values are cut to the width (TRUNCATE)
};

// Formats a value through a single printf conversion (%d, %5.2f, %s, %v, ...) as HTCondor's
// print masks do; false when the value is undefined or cannot be converted. `bound`: the
// ad's own expression when the value is an attribute of it (%s prints it when not a string);
// `parsed`: the expression the value came from, for %r when there is no `bound`.
bool printf_value(const char* fmt, const classad::Value& v, std::string* out,
                  const classad::Expr* bound = nullptr, const classad::Expr* parsed = nullptr);
// The text HTCondor's print masks show for %r (and -af:r): the expression unparsed in old
// syntax, except that one which is only an attribute reference shows "undefined".
std::string raw_text(const classad::Expr* e);
// HTCondor's LookupInteger, LookupFloat and LookupBool, which condor_status reads ads with:
// integers, reals (truncated for an integer) and booleans (0/1) all count; for a boolean any
// number counts, nonzero being true. False when the attribute is missing or another type.
bool lookup_integer(const classad::ClassAd& ad, std::string_view name, long long* out);
bool lookup_number(const classad::ClassAd& ad, std::string_view name, double* out);
bool lookup_bool(const classad::ClassAd& ad, std::string_view name, bool* out);
// Strings unquoted, everything else in ClassAd syntax.
std::string plain_text(const classad::Value& v);
// HTCondor's format_time: ddd+hh:mm:ss, days padded to 3, negative parts kept as C divides.
std::string duration_text(long long secs);
// HTCondor's format_version: "25.0.1.12345" from "$CondorVersion: 25.0.1 <date> BuildID: 12345
// ...$".
std::string version_text(const std::string& full);
// HTCondor's metric_units: bytes as "%.1f" and B/KB/MB/GB/TB.
std::string metric_text(double bytes);
// HTCondor's format_date: "mm/dd HH:MM" in local time, month right- and day left-aligned in 2.
std::string date_text(double secs);
// The text a print format's `OR x` / `OR xx` prints for a value it cannot show, `width` wide.
std::string alt_text(const char* or_text, size_t width);
// Two-letter state/activity code (HTCondor's digest of State and Activity).
std::string activity_code(const std::string& state, const std::string& activity);

class Table {
 public:
  explicit Table(const std::vector<ColumnSpec>& cols);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Computes one row's cells from `ad`.
  void add_row(const classad::ClassAd& ad);
  std::vector<std::string>& last_row() { return rows_.back(); }
  std::vector<std::vector<std::string>>& mutable_rows() { return rows_; }
  // Replaces a cell with text that is shown as it is.
  void set_cell(size_t row, size_t col, std::string text);
  // Drops the rows whose `keep` entry is false.
  void keep_rows(const std::vector<bool>& keep);
  size_t rows() const { return rows_.size(); }
  // Header line, a blank line, then the rows.
  void print(std::string* out) const;

 private:
  // One cell's text; `shown` false: the value could not be shown (the column's alt text is
  // printed); `sized` false: it does not widen an automatic column before the header is
  // printed (undefined and boolean values, as in HTCondor's first pass over the ads).
  std::string cell(const ColumnSpec& c, const classad::Expr* e, const classad::ClassAd& ad,
                   bool* shown, bool* sized) const;
  std::vector<ColumnSpec> cols_;
  std::vector<classad::ExprPtr> exprs_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<uint8_t>> flags_;  // per cell: kShown | kSized
  std::string error_;
};

}  // namespace kite::cli
