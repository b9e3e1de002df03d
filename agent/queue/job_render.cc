// Rendering of job attributes as condor_q and condor_history print them (see job_render.h).
#include "agent/queue/job_render.h"

#include <strings.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "policy/classad/expr.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {

using classad::ClassAd;
using classad::Value;

classad::AdPtr merge(const ClassAd& cluster, const ClassAd& proc) {
  classad::AdPtr out(cluster.copy());
  for (const ClassAd::Entry& e : proc.entries()) {
    classad::expr_ref(e.expr);
    out->insert(e.name->view(), e.expr);
  }
  return out;
}

bool ad_int(const ClassAd& ad, std::string_view name, int64_t* out) {
  Value v = ad.evaluate_attr(name);
  if (v.is_integer()) {
    *out = v.as_integer();
  } else if (v.is_real() && v.as_real() > -9.2e18 && v.as_real() < 9.2e18) {
    *out = static_cast<int64_t>(v.as_real());
  } else if (v.is_boolean()) {
    *out = v.as_integer() ? 1 : 0;
  } else {
    return false;
  }
  return true;
}

bool ad_real(const ClassAd& ad, std::string_view name, double* out) {
  Value v = ad.evaluate_attr(name);
  if (v.is_real()) {
    *out = v.as_real();
  } else if (v.is_integer()) {
    *out = static_cast<double>(v.as_integer());
  } else {
    return false;
  }
  return true;
}

bool ad_string(const ClassAd& ad, std::string_view name, std::string* out) {
  Value v = ad.evaluate_attr(name);
  if (!v.is_string()) return false;
  out->assign(v.as_string());
  return true;
}

std::string format_date(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%m/%d %H:%M", &tm);
  return buf;
}

std::string format_duration(int64_t secs) {
  if (secs < 0) return "[?????]";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 "+%02d:%02d:%02d", secs / 86400,
                static_cast<int>(secs % 86400 / 3600), static_cast<int>(secs % 3600 / 60),
                static_cast<int>(secs % 60));
  return buf;
}

char job_status_letter(int64_t status) {
  static const char kLetters[] = "0IRXCH>S";
  return status >= 0 && status <= 7 ? kLetters[status] : '?';
}

bool job_status_text(const ClassAd& ad, std::string* out) {
  int64_t status = 0;
  if (!ad_int(ad, "JobStatus", &status)) return false;
  char r[3] = {job_status_letter(status), ' ', 0};
  bool in = false, out_xfer = false, queued = false;
  ad.evaluate_bool("TransferringInput", in);
  ad.evaluate_bool("TransferringOutput", out_xfer);
  ad.evaluate_bool("TransferQueued", queued);
  if (in) {
    r[0] = '<';
    r[1] = queued ? 'q' : ' ';
  }
  if (out_xfer || status == 6) {
    r[0] = queued ? 'q' : ' ';
    r[1] = '>';
  }
  *out = r;
  return true;
}

bool job_run_time(const ClassAd& ad, int64_t* secs) {
  double cpu = 0;
  if (!ad_real(ad, "RemoteUserCpu", &cpu)) return false;
  int64_t status = 0, now = 0, bday = 0;
  ad_int(ad, "JobStatus", &status);
  ad_int(ad, "ServerTime", &now);
  ad_int(ad, "ShadowBday", &bday);
  if (now == 0) {
    *secs = -1;
    return true;
  }
  double total = 0;
  if ((status == 2 || status == 6 || status == 7) && bday) {
    total = static_cast<double>(now - bday);
  } else if (status == 1 || status == 5 || status == 9) {
    ad_real(ad, "LastRemoteWallClockTime", &total);
  }
  *secs = static_cast<int64_t>(total);
  return true;
}

bool job_memory_mb(const ClassAd& ad, double* mb) {
  int64_t v = 0;
  if (ad_int(ad, "MemoryUsage", &v)) {
    *mb = static_cast<double>(v);
  } else if (ad_int(ad, "ImageSize", &v)) {
    *mb = static_cast<double>(v) / 1024.0;
  } else {
    return false;
  }
  return true;
}

bool job_description(const ClassAd& ad, std::string* out) {
  std::string cmd;
  if (!ad_string(ad, "Cmd", &cmd)) return false;
  std::string desc;
  if (ad_string(ad, "MATCH_EXP_JobDescription", &desc) || ad_string(ad, "JobDescription", &desc)) {
    *out = "(" + desc + ")";
    return true;
  }
  size_t slash = cmd.find_last_of('/');
  *out = slash == std::string::npos ? cmd : cmd.substr(slash + 1);
  std::string args;
  if (ad_string(ad, "Args", &args) || ad_string(ad, "Arguments", &args)) {
    if (!args.empty()) *out += " " + args;
  }
  return true;
}

void append_padded(std::string& out, std::string_view s, int width, bool left) {
  size_t w = width < 0 ? 0 : static_cast<size_t>(width);
  if (!left && s.size() < w) out.append(w - s.size(), ' ');
  out.append(s);
  if (left && s.size() < w) out.append(w - s.size(), ' ');
}

namespace {

// Reals as HTCondor's old-ClassAd unparser writes them: %.16G, with ".0" on whole numbers.
void append_old_real(std::string& out, double r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.16G", r);
  out += buf;
  std::string_view s(buf);
  if (s.find_first_of(".EN") == std::string_view::npos) out += ".0";
}

void append_old_expr(std::string& out, const classad::Expr* e) {
  const classad::LiteralExpr* lit = classad::as_literal(e);
  if (lit && classad::paren_count(e) == 0 && lit->value.is_real()) {
    append_old_real(out, lit->value.as_real());
    return;
  }
  classad::unparse_expr(out, e);
}

}  // namespace

std::string value_text(const Value& v, bool quote_strings) {
  std::string out;
  if (v.is_string() && !quote_strings) {
    out.assign(v.as_string());
  } else if (v.is_real()) {
    append_old_real(out, v.as_real());
  } else {
    classad::unparse_value(out, v);
  }
  return out;
}

void append_long_ad(std::string& out, const ClassAd& ad) {
  std::vector<ClassAd::Entry> entries = ad.entry_list();
  std::sort(entries.begin(), entries.end(), [](const ClassAd::Entry& a, const ClassAd::Entry& b) {
    std::string_view x = a.name->view(), y = b.name->view();
    int c = strncasecmp(x.data(), y.data(), std::min(x.size(), y.size()));
    return c != 0 ? c < 0 : x.size() < y.size();
  });
  for (const ClassAd::Entry& e : entries) {
    out.append(e.name->view());
    out += " = ";
    append_old_expr(out, e.expr);
    out += '\n';
  }
  out += '\n';
}

std::string json_ads(const std::vector<const ClassAd*>& ads) {
  std::string out;
  if (ads.empty()) return out;
  out = "[\n";
  for (size_t i = 0; i < ads.size(); ++i) {
    if (i) out += "\n,\n";
    classad::classad_append_json(out, *ads[i], true);
  }
  out += "\n]\n";
  return out;
}

std::string json_lines(const std::vector<const ClassAd*>& ads) {
  std::string out;
  for (const ClassAd* ad : ads) {
    classad::classad_append_json(out, *ad, false);
    out += '\n';
  }
  return out;
}

namespace {

struct AfColumn {
  classad::ExprPtr expr;
  std::string heading;
  std::string label;         // "Name = " with :l
  const char* format = "v";  // v, V, r, or an integer format for :j
  bool auto_width = false;
  bool no_prefix = false, no_suffix = false;
  int width = 0;  // negative: left-aligned
};

std::string render_af(const AfColumn& c, const ClassAd& ad) {
  std::string s = c.label;
  std::string_view f = c.format;
  if (f == "r") {
    // %r: the expression as written; a plain attribute reference that is missing shows
    // as "undefined".
    const classad::Expr* e = c.expr.get();
    if (e->kind == classad::ExprKind::kAttr) {
      std::string name;
      classad::unparse_expr(name, e);
      const classad::Expr* bound = ad.lookup(name);
      if (!bound) return s + "undefined";
      append_old_expr(s, bound);
      return s;
    }
    append_old_expr(s, e);
    return s;
  }
  Value v = ad.evaluate_expr(c.expr.get());
  if (f == "v" || f == "V") return s + value_text(v, f == "V");
  // Job id pieces ("%4d." / "%-3d" / "%d." / "%d").
  int64_t n = v.is_integer() ? v.as_integer() : 0;
  char buf[48];
  if (f == "C4") std::snprintf(buf, sizeof buf, "%4" PRId64 ".", n);
  if (f == "P3") std::snprintf(buf, sizeof buf, "%-3" PRId64, n);
  if (f == "C") std::snprintf(buf, sizeof buf, "%" PRId64 ".", n);
  if (f == "P") std::snprintf(buf, sizeof buf, "%" PRId64, n);
  return s + buf;
}

}  // namespace

bool format_autoformat(const Autoformat& af, const std::vector<const ClassAd*>& ads,
                       std::string* out, std::string* err) {
  const char* row_prefix = "";
  const char* col_prefix = " ";
  const char* col_suffix = "";
  bool labels = false, quote = false, raw = false, headings = false, job_id = false;
  for (char o : af.opts) {
    switch (o) {
      case ',': col_suffix = ","; break;
      case 'n': col_suffix = "\n"; break;
      case 'g':
        col_prefix = "";
        row_prefix = "\n";
        break;
      case 't': col_prefix = "\t"; break;
      case 'l': labels = true; break;
      case 'V': quote = true; break;
      case 'r':
      case 'o': raw = true; break;
      case 'h': headings = true; break;
      case 'j': job_id = true; break;
      default: break;
    }
  }
  std::vector<AfColumn> cols;
  if (job_id) {
    AfColumn c, p;
    c.expr = classad::parse_expr("ClusterId");
    p.expr = classad::parse_expr("ProcId");
    c.no_suffix = true;
    p.no_prefix = true;
    if (headings) {
      c.heading = " ID";
      p.heading = " ";
      c.format = "C4";
      p.format = "P3";
      c.width = 5;
      p.width = 3;
      c.auto_width = p.auto_width = true;
    } else {
      c.format = "C";
      p.format = "P";
      if (labels) c.label = "ID = ";
    }
    cols.push_back(std::move(c));
    cols.push_back(std::move(p));
  }
  for (const std::string& text : af.exprs) {
    classad::ParseError pe;
    AfColumn c;
    c.expr = classad::parse_expr(text, &pe);
    if (!c.expr) {
      if (err) *err = "-af: '" + text + "' is not a valid expression: " + pe.to_string();
      return false;
    }
    if (headings) {
      c.heading = text;
      c.width = -static_cast<int>(text.size());
      c.auto_width = true;
    } else if (labels) {
      c.label = text + " = ";
    }
    c.format = raw ? "r" : (quote ? "V" : "v");
    cols.push_back(std::move(c));
  }
  // Render every cell first: automatic widths cover all rows, as in HTCondor.
  std::vector<std::vector<std::string>> cells(ads.size());
  for (size_t r = 0; r < ads.size(); ++r) {
    for (AfColumn& c : cols) {
      cells[r].push_back(render_af(c, *ads[r]));
      if (c.auto_width) {
        int w = static_cast<int>(cells[r].back().size());
        if (w > std::abs(c.width)) c.width = c.width < 0 ? -w : w;
      }
    }
  }
  auto row = [&](const std::vector<std::string>& values) {
    *out += row_prefix;
    for (size_t i = 0; i < cols.size(); ++i) {
      const AfColumn& c = cols[i];
      if (i > 0 && !c.no_prefix) *out += col_prefix;
      append_padded(*out, values[i], std::abs(c.width), c.width < 0 || c.heading.size() > 0);
      if (i + 1 < cols.size() && !c.no_suffix) *out += col_suffix;
    }
    *out += '\n';
  };
  if (headings) {
    std::vector<std::string> heads;
    for (const AfColumn& c : cols) heads.push_back(c.heading);
    // Headings are always left-aligned.
    *out += row_prefix;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (i > 0 && !cols[i].no_prefix) *out += col_prefix;
      append_padded(*out, heads[i], std::abs(cols[i].width), true);
      if (i + 1 < cols.size() && !cols[i].no_suffix) *out += col_suffix;
    }
    *out += '\n';
  }
  for (const auto& r : cells) row(r);
  return true;
}

}  // namespace kite::queue
