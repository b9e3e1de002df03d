// condor_status's column engine (see status_columns.h).
#include "agent/cli/status_columns.h"

#include <cstdio>
#include <cstring>
#include <ctime>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::cli {

std::string plain_text(const classad::Value& v) {
  if (v.is_string()) return std::string(v.as_string());
  return classad::to_string(v);
}

std::string duration_text(long long secs) {
  if (secs < 0) secs = 0;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld+%02lld:%02lld:%02lld", secs / 86400, secs / 3600 % 24,
                secs / 60 % 60, secs % 60);
  return buf;
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

bool printf_value(const char* fmt, const classad::Value& v, std::string* out) {
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
  if (v.is_exceptional() && c != 'v' && c != 'V') return false;
  std::string body;
  switch (c) {
    case 'd':
    case 'i':
    case 'x':
    case 'X':
    case 'o':
    case 'u':
    case 'c': {
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
    case 's': body = format_one((clean + 's').c_str(), plain_text(v).c_str()); break;
    case 'v':
    case 'V': {
      std::string text = c == 'V' || !v.is_string() ? classad::to_string(v) : plain_text(v);
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
                                      "Suspended", "Benchmarking", "Killing"};
  static const char kActLetters[] = "ibrvsek";
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
  int64_t v = 0;
  if (!ad.evaluate_int(name, v)) return false;
  *out = v;
  return true;
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

std::string Table::cell(const ColumnSpec& c, const classad::Expr* e,
                        const classad::ClassAd& ad) const {
  classad::Value v = ad.evaluate_expr(e);
  const char* otext = c.or_text ? c.or_text : "";
  std::string out;
  switch (c.render) {
    case Render::kPlain: return v.is_exceptional() ? otext : plain_text(v);
    case Render::kPrintf: return printf_value(c.printf_fmt, v, &out) ? out : otext;
    case Render::kLoadAvg: return printf_value("%.3f", v, &out) ? out : otext;
    case Render::kActivityTime:
    case Render::kElapsed: {
      long long now = 0;
      double entered = 0;
      if (!v.to_number(entered)) return otext;
      bool have = c.render == Render::kActivityTime && int_attr(ad, "MyCurrentTime", &now);
      if (!have && !int_attr(ad, "LastHeardFrom", &now)) return "[Unknown]";
      return duration_text(now - static_cast<long long>(entered));
    }
    case Render::kDuration: {
      double d = 0;
      return v.to_number(d) ? duration_text(static_cast<long long>(d)) : otext;
    }
    case Render::kDate: {
      double d = 0;
      if (!v.to_number(d)) return otext;
      time_t t = static_cast<time_t>(d);
      struct tm tm;
      localtime_r(&t, &tm);
      char buf[32];
      std::strftime(buf, sizeof buf, "%m/%d %H:%M", &tm);
      return buf;
    }
    case Render::kPlatform: {
      std::string opsys = str_attr(ad, "OpSys");
      std::string name =
          opsys == "WINDOWS" ? str_attr(ad, "OpSysShortName") : str_attr(ad, "OpSysAndVer");
      if (name.empty()) return otext;
      std::string arch = str_attr(ad, "Arch");
      if (arch == "X86_64") arch = "x64";
      if (arch == "X86") arch = "x86";
      return arch + "/" + name;
    }
    case Render::kActivityCode:
      return activity_code(str_attr(ad, "State"), str_attr(ad, "Activity"));
    case Render::kSlotTag: {
      std::string t = v.is_string() ? std::string(v.as_string()) : "";
      if (t == "Static") return "S";
      if (t == "Partitionable") return " ";
      return t.substr(0, 1);
    }
    case Render::kActivityOcu: {
      std::string act = str_attr(ad, "Activity");
      if (act.empty()) return "??";
      bool ocu = false;
      if (ad.evaluate_bool("OCU", ocu) && ocu && act == "Idle") return "OCU";
      return act;
    }
  }
  return otext;
}

void Table::add_row(const classad::ClassAd& ad) {
  std::vector<std::string> row;
  for (size_t i = 0; i < cols_.size(); ++i) row.push_back(cell(cols_[i], exprs_[i].get(), ad));
  rows_.push_back(std::move(row));
}

void Table::print(std::string* out) const {
  std::vector<size_t> widths;
  for (size_t i = 0; i < cols_.size(); ++i) {
    const ColumnSpec& c = cols_[i];
    size_t w = static_cast<size_t>(c.width < 0 ? -c.width : c.width);
    if (c.width == 0 || c.at_least) {
      w = std::max(w, std::strlen(c.header));
      for (const auto& r : rows_) w = std::max(w, r[i].size());
    }
    widths.push_back(w);
  }
  auto emit = [&](size_t i, const std::string& full, bool header) {
    const ColumnSpec& c = cols_[i];
    std::string text = c.truncate && !header ? full.substr(0, widths[i]) : full;
    if (i > 0 && !c.noprefix) *out += ' ';
    size_t pad = text.size() < widths[i] ? widths[i] - text.size() : 0;
    bool right = !header && c.width > 0;
    if (right) out->append(pad, ' ');
    *out += text;
    if (!right) out->append(pad, ' ');
  };
  for (size_t i = 0; i < cols_.size(); ++i) emit(i, cols_[i].header, true);
  *out += "\n\n";
  for (const auto& r : rows_) {
    for (size_t i = 0; i < cols_.size(); ++i) emit(i, r[i], false);
    *out += '\n';
  }
}

}  // namespace kite::cli
