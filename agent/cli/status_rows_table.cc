// The default slot table from compact rows (see status_rows_table.h). Each cell follows the
// column engine's rules (status_columns.cc) for the values a row can hold: strings, integers,
// reals, booleans, undefined and absent.
#include "agent/cli/status_rows_table.h"

#include <strings.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "agent/cli/status_columns.h"
#include "agent/cli/status_totals.h"
#include "agent/core/ad_rows.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

using core::RowValue;

// The attributes the table reads, in this order.
enum Col {
  kName,
  kMachine,
  kOpSys,
  kArch,
  kState,
  kActivity,
  kOcu,
  kLoadAvg,
  kMemory,
  kEntered,
  kMyCurrentTime,
  kLastHeardFrom,
  kMyType,
  kCols
};
const char* const kColNames[kCols] = {
    "Name",          "Machine",       "OpSys",         "Arch",   "State",
    "Activity",      "OCU",           "CondorLoadAvg", "Memory", "EnteredCurrentActivity",
    "MyCurrentTime", "LastHeardFrom", "MyType"};

const RowValue kAbsent{};

// One row: its chunk's values and where each of the table's attributes is among them.
struct Row {
  const RowValue* values;
  const int* where;  // kCols entries, -1: not sent
  const RowValue& operator[](int c) const { return where[c] < 0 ? kAbsent : values[where[c]]; }
};

classad::Value to_value(const RowValue& v) {
  switch (v.tag) {
    case 't': return classad::Value::boolean(true);
    case 'f': return classad::Value::boolean(false);
    case 'i': return classad::Value::integer(v.i);
    case 'r': return classad::Value::real(v.r);
    case 's': return classad::Value::string(v.str());
    default: return classad::Value::undefined();
  }
}

bool is_number(const RowValue& v) {
  return v.tag == 'i' || v.tag == 'r';
}
// Value::to_number: integers, reals and booleans.
bool to_number(const RowValue& v, double* d) {
  switch (v.tag) {
    case 'i': *d = static_cast<double>(v.i); return true;
    case 'r': *d = v.r; return true;
    case 't': *d = 1; return true;
    case 'f': *d = 0; return true;
    default: return false;
  }
}
// lookup_integer: integers, reals truncated, booleans 0/1.
bool to_integer(const RowValue& v, long long* n) {
  switch (v.tag) {
    case 'i': *n = v.i; return true;
    case 'r': *n = static_cast<long long>(v.r); return true;
    case 't': *n = 1; return true;
    case 'f': *n = 0; return true;
    default: return false;
  }
}

void append_int(std::string* out, long long n) {
  char buf[24];
  out->append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, n).ptr - buf));
}

// %0<width>lld of a value known not to be negative.
void append_padded(std::string* out, long long n, int width, char fill) {
  char buf[24];
  size_t len = static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, n).ptr - buf);
  if (len < static_cast<size_t>(width)) out->append(static_cast<size_t>(width) - len, fill);
  out->append(buf, len);
}

// duration_text for a span that is not negative: "%3lld+%02lld:%02lld:%02lld".
void append_duration(std::string* out, long long secs) {
  long long rest = secs % 86400;
  append_padded(out, secs / 86400, 3, ' ');
  *out += '+';
  append_padded(out, rest / 3600, 2, '0');
  *out += ':';
  append_padded(out, rest % 3600 / 60, 2, '0');
  *out += ':';
  append_padded(out, rest % 60, 2, '0');
}

// %08zX (the position that ends a sort key; positions stay below 2^32).
void append_hex8(std::string* out, size_t n) {
  static const char kDigits[] = "0123456789ABCDEF";
  if (n >> 32) {
    char wide[32];
    out->append(wide, static_cast<size_t>(std::snprintf(wide, sizeof wide, "%08zX", n)));
    return;
  }
  char buf[8];
  for (int k = 7; k >= 0; --k, n >>= 4) buf[k] = kDigits[n & 15];
  out->append(buf, 8);
}

// %.3f of `d` into `buf` (at least 24 bytes) when the answer is sure without printf: d not
// negative and below 10^9, and d * 1000 not within 10^-3 of a half (the product's rounding error
// there is below 10^-4, so rounding it gives the digits printf's exact rounding gives). Its
// length, or -1 for printf to decide.
int fixed3(double d, char* buf) {
  if (!(d >= 0 && d < 1e9) || std::signbit(d)) return -1;
  double x = d * 1000.0;
  double whole = std::floor(x);
  double frac = x - whole;
  if (std::fabs(frac - 0.5) < 1e-3) return -1;
  auto m = static_cast<unsigned long long>(whole) + (frac > 0.5 ? 1 : 0);
  char* end = std::to_chars(buf, buf + 20, m / 1000).ptr;
  unsigned r = static_cast<unsigned>(m % 1000);
  end[0] = '.';
  end[1] = static_cast<char>('0' + r / 100);
  end[2] = static_cast<char>('0' + r / 10 % 10);
  end[3] = static_cast<char>('0' + r % 10);
  return static_cast<int>(end + 4 - buf);
}

// A sort key part as sort_key (status_format.cc) writes it: strings as they are, integers and
// booleans in decimal, a real as the decimal of its bits, anything else unparsed.
void append_key_part(std::string* out, const RowValue& v) {
  switch (v.tag) {
    case 's': out->append(v.s, v.n); break;
    case 'i': append_int(out, v.i); break;
    case 't': *out += '1'; break;
    case 'f': *out += '0'; break;
    case 'r': {
      long long bits = 0;
      std::memcpy(&bits, &v.r, sizeof bits);
      append_int(out, bits);
      break;
    }
    default: *out += classad::to_string(classad::Value::undefined());
  }
  *out += '\n';
}

// A cell as the column engine makes it: its text, whether it could be shown (else the column's
// alt text prints) and whether it sizes an automatic column.
struct Cell {
  std::string_view text;
  bool shown = true;
  bool sized = true;
};

// Render::kString (Name): strings; another value of the ad prints as written; absent fails.
Cell string_cell(const RowValue& v, std::deque<std::string>* keep) {
  if (v.tag == 's') return {v.str(), true, true};
  if (v.tag == '-') return {{}, false, false};
  auto* e = new classad::LiteralExpr(to_value(v));
  keep->emplace_back();
  classad::unparse_expr_old(keep->back(), e);
  classad::expr_unref(e);
  return {keep->back(), true, is_number(v)};
}

// Render::kPlain (State): strings as they are, anything else (absent: undefined) unparsed.
Cell plain_cell(const RowValue& v, std::deque<std::string>* keep) {
  if (v.tag == 's') return {v.str(), true, true};
  keep->push_back(plain_text(to_value(v)));
  return {keep->back(), true, is_number(v)};
}

// Pads `text` into a column `width` wide as Table::print does (right-aligned when `right`; a
// longer text is cut when `cut`, else pushes the rest of the line right).
void put(std::string* out, std::string_view text, size_t width, bool right, bool cut) {
  if (text.size() > width) {
    out->append(text.data(), cut ? width : text.size());
    return;
  }
  if (right) out->append(width - text.size(), ' ');
  out->append(text.data(), text.size());
  if (!right) out->append(width - text.size(), ' ');
}

// The totals of the shown rows: each distinct (Arch, OpSys, State) once, as an ad standing for
// its count (the slot totals read only those and add integer counts, so order does not matter).
class TotalGroups {
 public:
  void add(const Row& r);
  void finish(Totals* totals) const;

 private:
  static constexpr int kKeyCols[3] = {kArch, kOpSys, kState};
  struct Group {
    RowValue values[3];  // of kKeyCols (a string's bytes stay in its chunk's text)
    uint64_t count;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> index;
  std::string key, last;
  size_t at = 0;
};

void TotalGroups::add(const Row& r) {
  {
    key.clear();
    for (int c : kKeyCols) {
      const RowValue& v = r[c];
      key += v.tag;
      if (v.tag == 's') {
        append_int(&key, static_cast<long long>(v.n));
        key += ':';
        key.append(v.s, v.n);
      } else if (v.tag == 'i') {
        append_int(&key, v.i);
      } else if (v.tag == 'r') {
        long long bits = 0;
        std::memcpy(&bits, &v.r, sizeof bits);
        append_int(&key, bits);
      }
      key += ',';
    }
    // Slots of a machine come together and mostly agree: the last group first.
    if (groups.empty() || key != last) {
      auto it = index.try_emplace(key, groups.size()).first;
      if (it->second == groups.size())
        groups.push_back(Group{{r[kKeyCols[0]], r[kKeyCols[1]], r[kKeyCols[2]]}, 0});
      at = it->second;
      last = key;
    }
    ++groups[at].count;
  }
}

void TotalGroups::finish(Totals* totals) const {
  for (const Group& g : groups) {
    classad::AdPtr ad(classad::ClassAd::make());
    for (int k = 0; k < 3; ++k) {
      const RowValue& v = g.values[k];
      if (v.tag != '-') ad->insert_value(kColNames[kKeyCols[k]], to_value(v));
    }
    totals->add(*ad, "", false, g.count);
  }
}

// " OpSys      Arch     " cells of a line (after Name, before State).
void append_os_arch(std::string* out, const Row& r) {
  *out += ' ';
  const RowValue& os = r[kOpSys];
  put(out, os.tag == 's' ? os.str() : std::string_view(), 10, false, false);
  *out += ' ';
  const RowValue& arch = r[kArch];
  put(out, arch.tag == 's' ? arch.str() : std::string_view(), 8, false, false);
  *out += ' ';
}

// The cells after State: Activity, LoadAv, Mem, ActvtyTime and the line's end. `load` keeps the
// last LoadAv text (neighbouring slots mostly share their machine's load).
struct LoadText {
  std::string text;
  double last = 0;
  bool have = false;
};
void append_after_state(std::string* out, const Row& r, LoadText* load) {
  // Activity, OCU for an idle slot holding an OCU claim, "??" without one.
  *out += ' ';
  const RowValue& act = r[kActivity];
  std::string_view activity = act.tag == 's' ? act.str() : std::string_view();
  double ocu = 0;
  if (activity.empty())
    activity = "??";
  else if (activity == "Idle" && to_number(r[kOcu], &ocu) && ocu != 0)
    activity = "OCU";
  put(out, activity, 8, false, false);
  // LoadAv: %.3f of a number, cut to 6.
  *out += ' ';
  double d = 0;
  if (to_number(r[kLoadAvg], &d)) {
    if (!load->have || std::memcmp(&d, &load->last, sizeof d) != 0) {
      char buf[512];
      int n = fixed3(d, buf);
      if (n < 0) n = std::snprintf(buf, sizeof buf, "%.3f", d);
      load->text.assign(buf, n > 0 ? std::min(static_cast<size_t>(n), sizeof buf - 1) : 0);
      if (n >= static_cast<int>(sizeof buf))
        printf_value("%.3f", to_value(r[kLoadAvg]), &load->text);
      load->last = d;
      load->have = true;
    }
    put(out, load->text, 6, true, true);
  } else {
    *out += "[????]";
  }
  // Mem: %6d of a number.
  *out += ' ';
  if (to_number(r[kMemory], &d)) {
    append_padded(out, static_cast<long long>(d), 6, ' ');
  } else {
    *out += "[????]";
  }
  // ActvtyTime: the clock (MyCurrentTime, else LastHeardFrom) minus the activity's start,
  // never below zero; "-" without a clock.
  long long now = 0;
  if (to_integer(r[kMyCurrentTime], &now) || to_integer(r[kLastHeardFrom], &now)) {
    double entered = 0;
    to_number(r[kEntered], &entered);
    long long span = now - static_cast<long long>(entered);
    if (span < 0) span = 0;
    size_t at = out->size();
    append_duration(out, span);
    size_t len = out->size() - at;
    if (len < 12) {
      out->insert(at, 12 - len, ' ');
    } else if (len > 12) {
      out->resize(at + 12);
    }
  } else {
    put(out, "-", 12, true, true);
  }
  *out += '\n';
}

// The header line (and the blank line after it) for columns `name_w` and `state_w` wide.
void append_header(std::string* out, size_t name_w, size_t state_w) {
  put(out, "Name", name_w, false, false);
  *out += " OpSys      Arch     ";
  put(out, "State", state_w, false, false);
  *out += " Activity LoadAv Mem     ActvtyTime\n\n";
}

// Where the table's attributes are among a chunk's columns (-1: not sent).
void locate_columns(const RowChunk& ch, int* where) {
  for (int c = 0; c < kCols; ++c) {
    where[c] = -1;
    for (size_t a = 0; a < ch.attrs.size(); ++a)
      if (strcasecmp(ch.attrs[a].c_str(), kColNames[c]) == 0) where[c] = static_cast<int>(a);
  }
}

// A slot row (an ad without a MyType counts as a Machine).
bool is_slot(const Row& r) {
  const RowValue& t = r[kMyType];
  std::string_view type = t.tag == 's' ? t.str().substr(0, t.str().find('\0')) : "Machine";
  return type.size() == 7 && strncasecmp(type.data(), "Machine", 7) == 0;
}

// The sort key of the row shown `i`th as sort_key writes it (Machine, Name, position).
void append_sort_key(std::string* out, const Row& r, size_t i) {
  append_key_part(out, r[kMachine]);
  append_key_part(out, r[kName]);
  append_hex8(out, i);
}

}  // namespace

void read_chunk_values(RowChunk* chunk) {
  size_t columns = chunk->attrs.size();
  chunk->plain = false;
  if (columns == 0) return;
  // About one value per 4 bytes of text (a table row is 13 values in about 60 bytes; more
  // values grow the vector): counting the rows first cost a pass over the text.
  const std::string& text = chunk->text;
  chunk->values.reserve(text.size() / 4 + columns);
  bool plain = true;
  if (core::read_row_values(text, columns, &chunk->values, &plain, &chunk->error)) {
    chunk->plain = true;
  } else if (!plain) {
    chunk->values.clear();  // the ads path reads the text
  }
}

bool rows_table_applies(const StatusOptions& o) {
  return (o.mode == StatusMode::kSlots || o.mode == StatusMode::kAvail) && !o.compact &&
         !o.total_only && o.sort.empty() && !o.no_sort && !o.json && !o.longform && !o.xml &&
         !o.have_af && o.formats.empty() && !o.wide && o.width <= 0 && o.filtered && o.typed;
}

RowsTable render_rows_table(const StatusOptions& o, const std::vector<RowChunk>& chunks,
                            std::string* out, std::string* err, RowsFlush flush) {
  // Each chunk says where the table's attributes are in its rows.
  std::vector<std::vector<int>> where(chunks.size(), std::vector<int>(kCols, -1));
  std::vector<Row> rows;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const RowChunk& ch = chunks[k];
    if (!ch.error.empty()) {
      *err = ch.error;
      return RowsTable::kError;
    }
    if (!ch.plain) return RowsTable::kNotPlain;
    locate_columns(ch, where[k].data());
    size_t columns = ch.attrs.size();
    for (size_t at = 0; at + columns <= ch.values.size(); at += columns)
      rows.push_back(Row{ch.values.data() + at, where[k].data()});
  }

  // The slots (an ad without a MyType counts as a Machine), up to -limit.
  std::vector<Row> shown;
  shown.reserve(rows.size());
  for (const Row& r : rows) {
    if (!is_slot(r)) continue;
    if (o.limit > 0 && shown.size() >= static_cast<size_t>(o.limit)) break;
    shown.push_back(r);
  }
  if (shown.empty()) return RowsTable::kDone;

  // Ordered by Machine, then Name, then the order read, as sort_key and natural_compare do.
  std::string keys;
  std::vector<size_t> key_at(shown.size());
  for (size_t i = 0; i < shown.size(); ++i) {
    key_at[i] = keys.size();
    append_sort_key(&keys, shown[i], i);
    keys += '\0';
  }
  std::vector<uint32_t> order(shown.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  const char* kb = keys.data();
  auto key = [&](uint32_t i) { return kb + key_at[i]; };
  // Keys are distinct (the position ends each), so the sorted order is the one order in which
  // every neighbour compares less: sorted by strcmp (fast), it is kept when that order is the
  // natural one too (zero-padded names such as bench-00042 and slot1..slot9), else sorted again.
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return std::strcmp(key(a), key(b)) < 0; });
  if (o.natural) {
    bool in_order = true;
    for (size_t i = 1; i < order.size() && in_order; ++i)
      in_order = natural_compare(key(order[i - 1]), key(order[i])) < 0;
    if (!in_order)
      std::sort(order.begin(), order.end(),
                [&](uint32_t a, uint32_t b) { return natural_compare(key(a), key(b)) < 0; });
  }

  // Name and State size their columns from the values before the header is printed.
  std::deque<std::string> keep;  // texts made for cells (stable while the deque grows)
  std::vector<Cell> names(shown.size()), states(shown.size());
  size_t name_w = 34, state_w = 5;
  for (size_t i = 0; i < shown.size(); ++i) {
    const Row& r = shown[order[i]];
    names[i] = string_cell(r[kName], &keep);
    states[i] = plain_cell(r[kState], &keep);
    if (names[i].shown && names[i].sized) name_w = std::max(name_w, names[i].text.size());
    if (states[i].sized) state_w = std::max(state_w, states[i].text.size());
  }

  constexpr size_t kFlushBytes = 64 * 1024;
  size_t line = name_w + state_w + 64;  // about a line's bytes
  out->reserve(out->size() + (flush ? kFlushBytes : shown.size() * line) + 1024);
  append_header(out, name_w, state_w);
  std::string alt;
  LoadText load;
  for (size_t i = 0; i < shown.size(); ++i) {
    const Row& r = shown[order[i]];
    // Name (at least 34, widening for longer texts; "??" fills it when absent).
    std::string_view name = names[i].text;
    if (!names[i].shown) {
      alt = alt_text("??", name_w);
      name = alt;
    }
    name_w = std::max(name_w, name.size());
    put(out, name, name_w, false, false);
    append_os_arch(out, r);
    state_w = std::max(state_w, states[i].text.size());
    put(out, states[i].text, state_w, false, false);
    append_after_state(out, r, &load);
    if (flush && out->size() >= kFlushBytes) flush(out);
  }

  Totals totals(TotalsStyle::kSlots, false);
  TotalGroups groups;
  for (const Row& r : shown) groups.add(r);
  groups.finish(&totals);
  *out += '\n';
  totals.print(out);
  return RowsTable::kDone;
}

}  // namespace kite::cli

namespace kite::cli {

struct RowsTableStream::State {
  const StatusOptions& o;
  bool streaming = true;
  std::deque<std::vector<int>> where;  // per chunk (Row points into it)
  size_t shown = 0;                    // slots drawn so far
  std::string prev_key, key;
  size_t name_w = 34, state_w = 5;  // as render_rows_table sizes them before the header
  // The lines drawn without the padding of Name and State, which waits for their widths.
  struct Line {
    size_t name_end, state_end;  // in body: where each one's padding goes
    uint32_t name_len, state_len;
  };
  std::string body;
  std::vector<Line> lines;
  LoadText load;
  TotalGroups groups;
  explicit State(const StatusOptions& opts) : o(opts) {}
};

RowsTableStream::RowsTableStream(const StatusOptions& o) : s_(new State(o)) {}
RowsTableStream::~RowsTableStream() {
  delete s_;
}
bool RowsTableStream::streaming() const {
  return s_->streaming;
}
void RowsTableStream::abandon() {
  s_->streaming = false;
}

void RowsTableStream::add(const RowChunk& chunk) {
  State& st = *s_;
  if (!st.streaming) return;
  if (!chunk.error.empty() || !chunk.plain) {
    st.streaming = false;
    return;
  }
  if (st.where.empty()) {
    // Room for a table of 10,000 slots at once: reserved address space costs nothing until
    // written, and growing by doubling would copy (and fault in) twice the memory.
    st.body.reserve(size_t{1} << 20);
    st.lines.reserve(size_t{1} << 14);
  }
  st.where.emplace_back(kCols);
  locate_columns(chunk, st.where.back().data());
  size_t columns = chunk.attrs.size();
  std::deque<std::string> keep;
  for (size_t at = 0; at + columns <= chunk.values.size(); at += columns) {
    Row r{chunk.values.data() + at, st.where.back().data()};
    if (!is_slot(r)) continue;
    if (st.o.limit > 0 && st.shown >= static_cast<size_t>(st.o.limit)) break;
    // Each key must sort after the one before, as render_rows_table's sort would order them.
    st.key.clear();
    append_sort_key(&st.key, r, st.shown);
    if (st.shown > 0) {
      const char* a = st.prev_key.c_str();
      const char* b = st.key.c_str();
      if ((st.o.natural ? natural_compare(a, b) : std::strcmp(a, b)) >= 0) {
        st.streaming = false;
        return;
      }
    }
    st.prev_key.swap(st.key);
    Cell name = string_cell(r[kName], &keep);
    if (!name.shown) {  // "??" is as wide as the column is when it prints
      st.streaming = false;
      return;
    }
    Cell state = plain_cell(r[kState], &keep);
    if (name.sized) st.name_w = std::max(st.name_w, name.text.size());
    if (state.sized) st.state_w = std::max(st.state_w, state.text.size());
    State::Line line{};
    st.body.append(name.text.data(), name.text.size());
    line.name_end = st.body.size();
    line.name_len = static_cast<uint32_t>(name.text.size());
    append_os_arch(&st.body, r);
    st.body.append(state.text.data(), state.text.size());
    line.state_end = st.body.size();
    line.state_len = static_cast<uint32_t>(state.text.size());
    append_after_state(&st.body, r, &st.load);
    st.lines.push_back(line);
    st.groups.add(r);
    ++st.shown;
  }
}

bool RowsTableStream::finish(std::string* out, RowsFlush flush) {
  State& st = *s_;
  if (!st.streaming) return false;
  if (st.shown == 0) return true;
  constexpr size_t kFlushBytes = 64 * 1024;
  out->reserve(out->size() + (flush ? kFlushBytes : st.body.size() + st.lines.size() * 16) + 1024);
  size_t name_w = st.name_w, state_w = st.state_w;
  append_header(out, name_w, state_w);
  // As render_rows_table's loop: a longer text widens its column for the lines after it.
  size_t from = 0;
  for (const State::Line& line : st.lines) {
    name_w = std::max(name_w, static_cast<size_t>(line.name_len));
    out->append(st.body, from, line.name_end - from);
    out->append(name_w - line.name_len, ' ');
    state_w = std::max(state_w, static_cast<size_t>(line.state_len));
    out->append(st.body, line.name_end, line.state_end - line.name_end);
    out->append(state_w - line.state_len, ' ');
    from = line.state_end;
    if (flush && out->size() >= kFlushBytes) flush(out);
  }
  out->append(st.body, from, std::string::npos);
  Totals totals(TotalsStyle::kSlots, false);
  st.groups.finish(&totals);
  *out += '\n';
  totals.print(out);
  return true;
}

}  // namespace kite::cli
