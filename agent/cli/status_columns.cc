// condor_status's column engine (see status_columns.h).
#include "agent/cli/status_columns.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::cli {

bool lookup_integer(const classad::ClassAd& ad, std::string_view name, long long* out) {
  classad::Value v = ad.evaluate_attr(name);
  if (v.is_integer()) {
    *out = v.as_integer();
  } else if (v.is_real()) {
    *out = static_cast<long long>(v.as_real());
  } else if (v.is_boolean()) {
    *out = v.as_boolean() ? 1 : 0;
  } else {
    return false;
  }
  return true;
}

bool lookup_number(const classad::ClassAd& ad, std::string_view name, double* out) {
  return ad.evaluate_attr(name).to_number(*out);
}

bool lookup_bool(const classad::ClassAd& ad, std::string_view name, bool* out) {
  double d = 0;
  if (!lookup_number(ad, name, &d)) return false;
  *out = d != 0;
  return true;
}

std::string plain_text(const classad::Value& v) {
  if (v.is_string()) return std::string(v.as_string());
  // HTCondor's tools unparse values in old ClassAd syntax: a real as %.16G with ".0" added.
  if (v.is_real()) {
    std::string out;
    classad::unparse_real_old(out, v.as_real());
    return out;
  }
  return classad::to_string(v);
}

std::string duration_text(long long secs) {
  // Each part is taken from what the larger parts leave, so a negative span shows negative
  // parts ("  0+00:00:-5"), as condor_status prints an ad's clock running behind.
  long long days = secs / 86400, rest = secs % 86400;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%3lld+%02lld:%02lld:%02lld", days, rest / 3600, rest % 3600 / 60,
                rest % 60);
  return buf;
}

std::string version_text(const std::string& full) {
  // "$CondorVersion: 25.0.1 2025-05-05 BuildID: 12345 PackageID: ... $": the version, then
  // ".BuildID" (or ".PRE" for a pre-release), skipping the date in either of its forms; at
  // most 21 characters, as HTCondor's buffer holds.
  const size_t kMax = 21;
  std::string out;
  size_t p = full.find(' ');
  p = p == std::string::npos ? full.size() : p;
  auto skip_blanks = [&]() {
    while (p < full.size() && full[p] == ' ') ++p;
  };
  auto skip_word = [&]() {
    while (p < full.size() && full[p] != ' ') ++p;
  };
  skip_blanks();
  while (p < full.size() && full[p] != ' ') {
    if (out.size() < kMax) out += full[p];
    ++p;
  }
  skip_blanks();
  bool iso_date =
      p + 7 < full.size() + 1 && full.find('-', p) == p + 4 && full.find('-', p + 5) == p + 7;
  if (iso_date) {
    skip_word();
  } else {
    skip_word();
    skip_blanks();
    skip_word();
    skip_blanks();
    skip_word();
  }
  skip_blanks();
  if (p < full.size() && full[p] == 'B') {
    skip_word();
    skip_blanks();
  }
  if (p >= full.size() || full[p] != '$') {
    if (out.size() < kMax + 1) out += '.';
    while (p < full.size() && full[p] != '-' && full[p] != ' ') {
      if (out.size() < kMax) out += full[p];
      ++p;
    }
  }
  return out;
}

std::string metric_text(double bytes) {
  static const char* const kUnits[] = {"B ", "KB", "MB", "GB", "TB"};
  int power = 0;
  while (bytes > 1024.0 && power < 4) {
    bytes /= 1024.0;
    ++power;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", bytes, kUnits[power]);
  return buf;
}

std::string date_text(double secs) {
  time_t t = static_cast<time_t>(secs);
  if (t < 0) return "    ???    ";
  struct tm tm;
  localtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%2d/%-2d %02d:%02d", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min);
  return buf;
}

std::string alt_text(const char* or_text, size_t width) {
  if (!or_text) return "";
  static const char kFillers[] = " ?*.-_#0";
  char c = or_text[0];
  bool filler = c != '\0' && std::strchr(kFillers, c) != nullptr;
  if (!filler || (or_text[1] != '\0' && (or_text[1] != c || or_text[2] != '\0'))) return or_text;
  if (or_text[1] == '\0') return c == ' ' ? "" : std::string(1, c);
  // Doubled: the whole width, "[??]" for question marks; one character when under 3 wide.
  if (width == 0) return "";
  if (width < 3) return std::string(1, c);
  if (c == '?') return "[" + std::string(width - 2, '?') + "]";
  return std::string(width, c);
}

namespace {

// One printf conversion of any length (long string values are not cut).
template <typename T>
std::string format_one(const char* spec, T value) {
  int n = std::snprintf(nullptr, 0, spec, value);
  if (n <= 0) return "";
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), spec, value);
  out.resize(static_cast<size_t>(n));
  return out;
}

// Text around the conversion, with printf's "%%" meaning "%".
std::string literal_text(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '%' && i + 1 < s.size() && s[i + 1] == '%') ++i;
  }
  return out;
}

}  // namespace

// (Also what %s prints of an attribute that is not a string.)
std::string raw_text(const classad::Expr* e) {
  if (e->kind == classad::ExprKind::kAttr) return "undefined";
  std::string text;
  classad::unparse_expr_old(text, e);
  return text;
}

bool printf_value(const char* fmt, const classad::Value& v, std::string* out,
                  const classad::Expr* bound, const classad::Expr* parsed) {
  const char* pct = std::strchr(fmt, '%');
  while (pct && pct[1] == '%') pct = std::strchr(pct + 2, '%');
  if (!pct) {
    *out = literal_text(fmt);
    return true;
  }
  const char* conv = pct + 1;
  while (*conv && std::strchr("-+ #0123456789.lh", *conv)) ++conv;
  if (!*conv) return false;
  std::string spec(pct, static_cast<size_t>(conv - pct));
  // Drop length modifiers; the value decides the C type.
  std::string clean;
  for (char c : spec) {
    if (c != 'l' && c != 'h') clean += c;
  }
  std::string prefix = literal_text(std::string_view(fmt, static_cast<size_t>(pct - fmt)));
  std::string suffix = literal_text(conv + 1);
  char c = *conv;
  if (c == 'r' || c == 'R') {
    // %r / %R: the expression itself, unevaluated, through the conversion as a string.
    const classad::Expr* e = bound ? bound : parsed;
    if (!e) return false;
    *out = prefix + format_one((clean + 's').c_str(), raw_text(e).c_str()) + suffix;
    return true;
  }
  if (v.is_exceptional() && c != 'v' && c != 'V') return false;
  std::string body;
  switch (c) {
    case 'T':
    case 'Y': {
      // %T (format_time) and %Y (format_date) print only the value: the text around the
      // conversion is not printed (ad_printmask's PFT_TIME / PFT_DATE).
      double d = 0;
      if (!v.to_number(d)) return false;
      const long long n = static_cast<long long>(d);
      *out = c == 'Y' ? date_text(d) : n < 0 ? "[?????]" : duration_text(n);
      return true;
    }
    case 'c': {
      double d = 0;
      if (!v.to_number(d)) return false;
      body = format_one((clean + 'c').c_str(), static_cast<int>(static_cast<long long>(d)));
      break;
    }
    case 'd':
    case 'i':
    case 'x':
    case 'X':
    case 'o':
    case 'u': {
      double d = 0;
      if (!v.to_number(d)) return false;
      body = format_one((clean + "ll" + c).c_str(), static_cast<long long>(d));
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': {
      double d = 0;
      if (!v.to_number(d)) return false;
      body = format_one((clean + c).c_str(), d);
      break;
    }
    case 's': {
      // %s takes strings; an attribute of the ad that is not a string prints as written
      // (HTCondor unparses it), and any other value prints nothing.
      std::string text;
      if (v.is_string()) {
        text = std::string(v.as_string());
      } else if (bound) {
        text = raw_text(bound);
      } else {
        return false;
      }
      body = format_one((clean + 's').c_str(), text.c_str());
      break;
    }
    case 'v':
    case 'V': {
      std::string text = c == 'V' && v.is_string() ? classad::to_string(v) : plain_text(v);
      body = format_one((clean + 's').c_str(), text.c_str());
      break;
    }
    default: return false;
  }
  *out = prefix + body + suffix;
  return true;
}

std::string activity_code(const std::string& state, const std::string& activity) {
  static const char* const kStates[] = {"Owner",   "Unclaimed",  "Matched",
                                        "Claimed", "Preempting", "Shutdown",
                                        "Delete",  "Backfill",   "Drained"};
  static const char kStateLetters[] = "OUMCPSXFD";
  static const char* const kActs[] = {"Idle",      "Busy",         "Retiring", "Vacating",
                                      "Suspended", "Benchmarking", "Killing",  "Cleaning"};
  static const char kActLetters[] = "ibrvsekc";
  std::string code = "  ";
  for (size_t i = 0; i < sizeof kStates / sizeof *kStates; ++i) {
    if (state == kStates[i]) code[0] = kStateLetters[i];
  }
  for (size_t i = 0; i < sizeof kActs / sizeof *kActs; ++i) {
    if (activity == kActs[i]) code[1] = kActLetters[i];
  }
  return code;
}

namespace {

std::string str_attr(const classad::ClassAd& ad, const char* name) {
  std::string s;
  ad.evaluate_string(name, s);
  return s;
}

bool int_attr(const classad::ClassAd& ad, const char* name, long long* out) {
  return lookup_integer(ad, name, out);
}

}  // namespace

Table::Table(const std::vector<ColumnSpec>& cols) : cols_(cols) {
  for (const ColumnSpec& c : cols_) {
    classad::ParseError perr;
    classad::ExprPtr e = classad::parse_expr(c.expr, &perr);
    if (!e) error_ = std::string("column '") + c.header + "': " + perr.to_string();
    exprs_.push_back(std::move(e));
  }
}

std::string Table::cell(const ColumnSpec& c, const classad::Expr* e, const classad::ClassAd& ad,
                        bool* shown, bool* sized) const {
  classad::Value v = ad.evaluate_expr(e);
  *shown = true;
  *sized = v.is_string() || v.is_number();
  auto fail = [&]() {
    *shown = false;
    *sized = false;
    return std::string();
  };
  std::string out;
  switch (c.render) {
    case Render::kPlain:
      // %v: strings as they are, anything else (undefined included) in ClassAd syntax.
      return plain_text(v);
    case Render::kFixedString:
      if (!v.is_string()) *sized = false;
      return v.is_string() ? std::string(v.as_string()) : std::string();
    case Render::kString: {
      if (v.is_string()) return std::string(v.as_string());
      // An attribute of the ad that is not a string prints as written; anything else fails.
      const classad::Expr* bound = ad.lookup(c.expr);
      if (!bound) return fail();
      classad::unparse_expr_old(out, bound);
      return out;
    }
    case Render::kPrintf: return printf_value(c.printf_fmt, v, &out) ? out : fail();
    case Render::kLoadAvg: return printf_value("%.3f", v, &out) ? out : fail();
    case Render::kActivityTime:
    case Render::kElapsed: {
      // An entry time that is not a number counts as 0, as HTCondor's renderer reads it.
      long long now = 0;
      double entered = 0;
      v.to_number(entered);
      bool have = c.render == Render::kActivityTime && int_attr(ad, "MyCurrentTime", &now);
      if (!have && !int_attr(ad, "LastHeardFrom", &now)) return fail();
      long long span = now - static_cast<long long>(entered);
      // The activity time never goes below zero; the state times do.
      if (c.render == Render::kActivityTime && span < 0) span = 0;
      *sized = true;
      return duration_text(span);
    }
    case Render::kDuration: {
      double d = 0;
      return v.to_number(d) ? duration_text(static_cast<long long>(d)) : fail();
    }
    case Render::kDate: {
      double d = 0;
      if (!v.to_number(d)) return fail();
      return date_text(d);
    }
    case Render::kPlatform: {
      // HTCondor's format_platform_name: Arch (x64, x86 shortened) "/" OpSysAndVer (Windows:
      // OpSysShortName); without an Arch string the column's own value (OpSys) stands in.
      std::string opsys = str_attr(ad, "OpSys"), name, arch;
      if (!ad.evaluate_string(opsys == "WINDOWS" ? "OpSysShortName" : "OpSysAndVer", name))
        return fail();
      if (!ad.evaluate_string("Arch", arch)) arch = v.is_string() ? std::string(v.as_string()) : "";
      if (arch == "X86_64") arch = "x64";
      if (arch == "X86") arch = "x86";
      *sized = true;
      return arch + "/" + name;
    }
    case Render::kActivityCode:
      *sized = true;
      return activity_code(str_attr(ad, "State"), str_attr(ad, "Activity"));
    case Render::kSlotTag: {
      std::string t = v.is_string() ? std::string(v.as_string()) : "";
      if (t == "Static") return "S";
      if (t == "Partitionable") return " ";
      return t.substr(0, 1);
    }
    case Render::kActivityOcu: {
      *sized = true;
      std::string act = str_attr(ad, "Activity");
      if (act.empty()) return "??";
      bool ocu = false;
      if (lookup_bool(ad, "OCU", &ocu) && ocu && act == "Idle") return "OCU";
      return act;
    }
    case Render::kVersion: {
      if (!v.is_string() || v.as_string().empty()) return fail();
      *sized = true;
      return version_text(std::string(v.as_string()));
    }
    case Render::kUnique: {
      // HTCondor's render_unique_strings: string items as they are, others unparsed; anything
      // but a list or a string cannot be shown.
      std::set<std::string> items;
      if (v.is_list()) {
        for (const classad::Expr* item : v.as_list()->items) {
          std::string text;
          if (item->kind == classad::ExprKind::kLiteral &&
              classad::as_literal(item)->value.is_string()) {
            text = std::string(classad::as_literal(item)->value.as_string());
          } else {
            classad::unparse_expr_old(text, item);
          }
          items.insert(std::move(text));
        }
      } else if (v.is_string()) {
        std::string_view s = v.as_string();
        size_t i = 0;
        while (i < s.size()) {
          size_t end = s.find_first_of(", \t\r\n", i);
          if (end == std::string_view::npos) end = s.size();
          if (end > i) items.emplace(s.substr(i, end - i));
          i = end + 1;
        }
      } else {
        return fail();
      }
      *sized = true;
      for (const std::string& item : items) {
        if (!out.empty()) out += ", ";
        out += item;
      }
      return out;
    }
    case Render::kReadableMb: {
      // Anything but a number prints 8 blanks.
      double mb = 0;
      if (!v.is_number() || !v.to_number(mb)) return std::string(8, ' ');
      return metric_text(mb * 1024.0 * 1024.0);
    }
  }
  return fail();
}

namespace {
constexpr uint8_t kShown = 1, kSized = 2;
}  // namespace

void Table::add_row(const classad::ClassAd& ad) {
  std::vector<std::string> row;
  std::vector<uint8_t> flags;
  for (size_t i = 0; i < cols_.size(); ++i) {
    bool shown = true, sized = true;
    row.push_back(cell(cols_[i], exprs_[i].get(), ad, &shown, &sized));
    flags.push_back(static_cast<uint8_t>((shown ? kShown : 0) | (sized ? kSized : 0)));
  }
  rows_.push_back(std::move(row));
  flags_.push_back(std::move(flags));
}

void Table::set_cell(size_t row, size_t col, std::string text) {
  rows_[row][col] = std::move(text);
  flags_[row][col] = kShown | kSized;
}

void Table::keep_rows(const std::vector<bool>& keep) {
  size_t n = 0;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (i < keep.size() && !keep[i]) continue;
    if (n != i) {
      rows_[n] = std::move(rows_[i]);
      flags_[n] = std::move(flags_[i]);
    }
    ++n;
  }
  rows_.resize(n);
  flags_.resize(n);
}

void Table::print(std::string* out) const {
  // condor_status sizes an automatic column from the values before it prints the header, then
  // widens it further while printing when a row's text is longer (text it could not size
  // beforehand, such as "undefined"); later rows follow the wider column, the header does not.
  std::vector<size_t> widths;
  for (size_t i = 0; i < cols_.size(); ++i) {
    const ColumnSpec& c = cols_[i];
    size_t w = static_cast<size_t>(c.width < 0 ? -c.width : c.width);
    if (c.width == 0 || c.at_least) {
      w = std::max(w, std::strlen(c.header));
      for (size_t r = 0; r < rows_.size(); ++r) {
        if ((flags_[r][i] & (kShown | kSized)) == (kShown | kSized))
          w = std::max(w, rows_[r][i].size());
      }
    }
    widths.push_back(w);
  }
  auto emit = [&](size_t i, const std::string& text, bool header) {
    const ColumnSpec& c = cols_[i];
    if (i > 0 && !c.noprefix) *out += ' ';
    if (!header && (c.width == 0 || c.at_least)) widths[i] = std::max(widths[i], text.size());
    if (text.size() > widths[i]) {
      // Longer than a fixed column: cut (TRUNCATE) or let it push the rest of the row right.
      out->append(text, 0, c.truncate && !header ? widths[i] : text.size());
      return;
    }
    size_t pad = widths[i] - text.size();
    bool right = !header && c.width > 0;
    if (right) out->append(pad, ' ');
    *out += text;
    if (!right) out->append(pad, ' ');
  };
  for (size_t i = 0; i < cols_.size(); ++i) emit(i, cols_[i].header, true);
  *out += "\n\n";
  for (size_t r = 0; r < rows_.size(); ++r) {
    for (size_t i = 0; i < cols_.size(); ++i) {
      bool shown = flags_[r][i] & kShown;
      emit(i, shown ? rows_[r][i] : alt_text(cols_[i].or_text, widths[i]), false);
    }
    *out += '\n';
  }
}

}  // namespace kite::cli
