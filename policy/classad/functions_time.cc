// Built-in time functions: time, currentTime, timeZoneOffset, dayTime,
// absTime, relTime, interval, splitTime, formatTime and the getYear ...
// getSeconds field readers, with the reference library's conversions.
// HTCONDOR: classad-builtin-functions "time", "absTime", "relTime",
// "formatTime", "interval" (and the library's undocumented time helpers).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "policy/classad/classad.h"
#include "policy/classad/functions.h"
#include "policy/classad/time_format.h"

namespace kite::classad {

namespace {

// `(time_t)d` then used as an int64: the reference's reltime -> seconds.
int64_t double_to_int64(double d) {
  if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(d);
}

void local_fields(int64_t secs, struct tm* out) {
  time_t t = static_cast<time_t>(secs);
  if (!localtime_r(&t, out)) std::memset(out, 0, sizeof *out);
}

// The integer conversion interval() applies (the reference's
// convertValueToIntegerValue): strings read as numbers with an optional
// B/K/M/G/T scale suffix.
bool to_integer(const Value& v, int64_t* out) {
  switch (v.type()) {
    case ValueType::kBoolean: *out = v.as_boolean() ? 1 : 0; return true;
    case ValueType::kInteger: *out = v.as_integer(); return true;
    case ValueType::kReal: *out = double_to_int64(v.as_real()); return true;
    case ValueType::kAbsTime: *out = v.as_abs_time().secs; return true;
    case ValueType::kRelTime: *out = double_to_int64(v.as_rel_time()); return true;
    case ValueType::kString: {
      std::string s(v.as_string());
      char* end = nullptr;
      int64_t i = double_to_int64(std::strtod(s.c_str(), &end));
      if (end == s.c_str() && i == 0) return false;
      double scale = 1.0;
      switch (*end) {
        case 'K':
        case 'k': scale = 1024.0; break;
        case 'M':
        case 'm': scale = 1024.0 * 1024; break;
        case 'G':
        case 'g': scale = 1024.0 * 1024 * 1024; break;
        case 'T':
        case 't': scale = 1024.0 * 1024 * 1024 * 1024; break;
        default: break;
      }
      *out = double_to_int64(static_cast<double>(i) * scale);
      return true;
    }
    default: return false;
  }
}

// HTCONDOR: classad-builtin-functions "time"
void fn_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 0) {
    out = Value::error();
    return;
  }
  out = Value::integer(ctx.now());
}

void fn_current_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 0) {
    out = Value::error();
    return;
  }
  int64_t now = ctx.now();
  out = Value::abs_time(now, local_zone_offset(now));
}

void fn_time_zone_offset(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 0) {
    out = Value::error();
    return;
  }
  out = Value::rel_time(local_zone_offset(ctx.now()));
}

// Seconds since local midnight, as a relative time.
void fn_day_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 0) {
    out = Value::error();
    return;
  }
  struct tm lt;
  local_fields(ctx.now(), &lt);
  out = Value::rel_time(lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec);
}

// absTime("...") / relTime("...") with one string literal are constants the
// reference folds while parsing: the abstime value, or for relTime a plain
// Real (its reltime literal evaluates as a real). A bad string is an error.
bool fold_literal(const CallExpr& call, bool relative, Value& out) {
  if (!time_literal_value(call, out)) {
    if (call.nargs != 1 || call.args[0]->kind != ExprKind::kLiteral) return false;
    if (!as_literal(call.args[0])->value.is_string()) return false;
    out = Value::error();
    return true;
  }
  if (relative) out = Value::real(out.as_rel_time());
  return true;
}

// HTCONDOR: classad-builtin-functions "absTime", "relTime"
void conv_time(const CallExpr& call, EvalContext& ctx, Value& out, bool relative) {
  if (call.nargs == 0 && !relative) {
    fn_current_time(call, ctx, out);
    return;
  }
  if (call.nargs < 1 || call.nargs > 2) {
    out = Value::error();
    return;
  }
  if (fold_literal(call, relative, out)) return;
  Value arg;
  ctx.eval(call.args[0], arg);
  bool have_offset = call.nargs == 2;
  int32_t offset_arg = 0;
  if (have_offset) {
    Value z;
    ctx.eval(call.args[1], z);
    if (relative) {
      out = Value::error();
      return;
    }
    if (z.is_integer()) {
      offset_arg = static_cast<int32_t>(z.as_integer());
    } else if (z.is_real()) {
      offset_arg = double_to_int32(z.as_real());
    } else if (z.is_rel_time()) {
      offset_arg = static_cast<int32_t>(double_to_int64(z.as_rel_time()));
    } else {
      out = Value::error();
      return;
    }
  }
  auto make_abs = [&](int64_t secs) {
    int32_t offset = have_offset ? offset_arg : local_zone_offset(secs);
    return Value::abs_time(secs, offset);
  };
  switch (arg.type()) {
    case ValueType::kUndefined: out = Value::undefined(); return;
    case ValueType::kInteger: {
      // The reference reads the number as a C int.
      int32_t secs = static_cast<int32_t>(arg.as_integer());
      if (relative) {
        out = Value::rel_time(secs);
      } else {
        int32_t offset = have_offset ? offset_arg : local_zone_offset(secs);
        out = offset == -1 ? Value::error() : Value::abs_time(secs, offset);
      }
      return;
    }
    case ValueType::kReal:
      out = relative ? Value::rel_time(arg.as_real()) : make_abs(double_to_int32(arg.as_real()));
      return;
    case ValueType::kString:
      // A computed string is not parsed: relTime sees 0 seconds and absTime
      // hands the string back, as the reference does.
      out = relative ? Value::rel_time(0) : arg;
      return;
    case ValueType::kAbsTime:
      out = relative ? Value::rel_time(static_cast<double>(arg.as_abs_time().secs)) : arg;
      return;
    case ValueType::kRelTime:
      out = relative ? arg : make_abs(double_to_int64(arg.as_rel_time()));
      return;
    default:  // error, boolean, list, ad
      out = Value::error();
      return;
  }
}

void fn_abs_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  conv_time(call, ctx, out, false);
}
void fn_rel_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  conv_time(call, ctx, out, true);
}

// HTCONDOR: classad-builtin-functions "interval": days+hh:mm:ss, leading
// zero components omitted.
void fn_interval(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value arg;
  ctx.eval(call.args[0], arg);
  int64_t wide;
  if (!to_integer(arg, &wide)) {
    out = Value::error();
    return;
  }
  int32_t t = static_cast<int32_t>(wide);
  int32_t days = t / 86400;
  t %= 86400;
  int32_t hours = t / 3600;
  t %= 3600;
  int32_t mins = t / 60;
  int32_t secs = t % 60;
  char buf[40];
  if (days != 0) {
    snprintf(buf, sizeof buf, "%d+%02d:%02d:%02d", days, std::abs(hours), std::abs(mins),
             std::abs(secs));
  } else if (hours != 0) {
    snprintf(buf, sizeof buf, "%d:%02d:%02d", hours, std::abs(mins), std::abs(secs));
  } else if (mins != 0) {
    snprintf(buf, sizeof buf, "%d:%02d", mins, std::abs(secs));
  } else {
    snprintf(buf, sizeof buf, "%d", secs);
  }
  out = Value::string(buf);
}

ClassAd* abs_time_ad(int64_t secs, int32_t offset) {
  struct tm tms;
  utc_fields(secs + offset, &tms);
  ClassAd* ad = ClassAd::make();
  ad->insert_value("Type", Value::string("AbsoluteTime"));
  ad->insert_value("Year", Value::integer(tms.tm_year + 1900));
  ad->insert_value("Month", Value::integer(tms.tm_mon + 1));
  ad->insert_value("Day", Value::integer(tms.tm_mday));
  ad->insert_value("Hours", Value::integer(tms.tm_hour));
  ad->insert_value("Minutes", Value::integer(tms.tm_min));
  ad->insert_value("Seconds", Value::integer(tms.tm_sec));
  ad->insert_value("Offset", Value::integer(offset));
  return ad;
}

ClassAd* rel_time_ad(double rsecs) {
  bool negative = rsecs < 0;
  if (negative) rsecs = -rsecs;
  int32_t days = double_to_int32(rsecs);
  int32_t hrs = days % 86400;
  int32_t mins = hrs % 3600;
  double secs = (mins % 60) + (rsecs - std::floor(rsecs));
  days /= 86400;
  hrs /= 3600;
  mins /= 60;
  if (negative) {  // the sign goes on the first non-zero component
    if (days > 0) {
      days = -days;
    } else if (hrs > 0) {
      hrs = -hrs;
    } else if (mins > 0) {
      mins = -mins;
    } else {
      secs = -secs;
    }
  }
  ClassAd* ad = ClassAd::make();
  ad->insert_value("Type", Value::string("RelativeTime"));
  ad->insert_value("Days", Value::integer(days));
  ad->insert_value("Hours", Value::integer(hrs));
  ad->insert_value("Minutes", Value::integer(mins));
  ad->insert_value("Seconds", Value::real(secs));
  return ad;
}

// The reference's doSplitTime: numbers are epoch seconds in the local zone.
// Ads are accepted only by formatTime (as already-split times).
ClassAd* split_time(const Value& v) {
  switch (v.type()) {
    case ValueType::kInteger: {
      int32_t secs = static_cast<int32_t>(v.as_integer());
      return abs_time_ad(secs, local_zone_offset(secs));
    }
    case ValueType::kReal: {
      int32_t secs = double_to_int32(v.as_real());
      return abs_time_ad(secs, local_zone_offset(secs));
    }
    case ValueType::kAbsTime: return abs_time_ad(v.as_abs_time().secs, v.as_abs_time().offset);
    case ValueType::kRelTime: return rel_time_ad(v.as_rel_time());
    default: return nullptr;
  }
}

void fn_split_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value arg;
  ctx.eval(call.args[0], arg);
  if (arg.is_undefined()) {
    out = Value::undefined();
    return;
  }
  ClassAd* ad = split_time(arg);
  out = ad ? Value::adopt_classad(ad) : Value::error();
}

void format_tm(const struct tm& tms, std::string_view format, Value& out) {
  char buf[1024];
  std::string fmt(format);
  size_t n = strftime(buf, 1023, fmt.c_str(), &tms);
  out = Value::string(std::string_view(buf, n));
}

int ad_int(const ClassAd& ad, std::string_view name) {
  int64_t v = 0;
  return ad.evaluate_int(name, v) ? static_cast<int>(v) : 0;
}

// HTCONDOR: classad-builtin-functions "formatTime": strftime() of the time in
// its own zone; default format "%c"; relative times are an error.
void fn_format_time(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs == 0) {
    struct tm lt;
    local_fields(ctx.now(), &lt);
    format_tm(lt, "%c", out);
    return;
  }
  if (call.nargs > 2) {
    out = Value::error();
    return;
  }
  Value arg;
  ctx.eval(call.args[0], arg);
  if (arg.is_rel_time()) {
    out = Value::error();
    return;
  }
  ClassAd* split = arg.is_classad() ? arg.as_classad() : split_time(arg);
  if (!split) {
    out = Value::error();
    return;
  }
  if (!arg.is_classad()) arg = Value::adopt_classad(split);  // owns it now
  struct tm tms;
  std::memset(&tms, 0, sizeof tms);
  tms.tm_sec = ad_int(*split, "Seconds");
  tms.tm_min = ad_int(*split, "Minutes");
  tms.tm_hour = ad_int(*split, "Hours");
  tms.tm_mday = ad_int(*split, "Day");
  int64_t v;
  tms.tm_mon = split->evaluate_int("Month", v) ? static_cast<int>(v) - 1 : 0;
  tms.tm_year = split->evaluate_int("Year", v) ? static_cast<int>(v) - 1900 : 0;
  // Weekday and yearday come from the date itself, not from any zone.
  day_numbers(tms.tm_year + 1900, tms.tm_mon + 1, tms.tm_mday, &tms.tm_wday, &tms.tm_yday);
  if (call.nargs == 1) {
    format_tm(tms, "%c", out);
    return;
  }
  Value fmt;
  ctx.eval(call.args[1], fmt);
  if (!fmt.is_string()) {
    out = Value::error();
    return;
  }
  format_tm(tms, fmt.as_string(), out);
}

// getYear(t) ... getSeconds(t): fields of an absolute time in the local zone
// or of a relative time.
enum class Field {
  kYear,
  kMonth,
  kDayOfYear,
  kDayOfMonth,
  kDayOfWeek,
  kDays,
  kHours,
  kMinutes,
  kSeconds
};

template <Field F>
void fn_get_field(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value arg;
  ctx.eval(call.args[0], arg);
  if (arg.is_abs_time()) {
    struct tm tms;
    local_fields(arg.as_abs_time().secs, &tms);
    switch (F) {
      case Field::kYear: out = Value::integer(tms.tm_year + 1900); return;
      case Field::kMonth: out = Value::integer(tms.tm_mon + 1); return;
      case Field::kDayOfYear: out = Value::integer(tms.tm_yday); return;
      case Field::kDayOfMonth: out = Value::integer(tms.tm_mday); return;
      case Field::kDayOfWeek: out = Value::integer(tms.tm_wday); return;
      case Field::kHours: out = Value::integer(tms.tm_hour); return;
      case Field::kMinutes: out = Value::integer(tms.tm_min); return;
      case Field::kSeconds: out = Value::integer(tms.tm_sec); return;
      case Field::kDays: break;  // not meaningful for an absolute time
    }
  } else if (arg.is_rel_time()) {
    int64_t r = double_to_int64(arg.as_rel_time());
    switch (F) {
      case Field::kDays: out = Value::integer(r / 86400); return;
      case Field::kHours: out = Value::integer((r % 86400) / 3600); return;
      case Field::kMinutes: out = Value::integer((r % 3600) / 60); return;
      case Field::kSeconds: out = Value::integer(r % 60); return;
      default: break;  // calendar fields are not meaningful for a duration
    }
  }
  out = Value::error();
}

}  // namespace

bool time_literal_value(const CallExpr& call, Value& out) {
  if (!call.fn || call.nargs != 1 || call.args[0]->kind != ExprKind::kLiteral) return false;
  const Value& lit = as_literal(call.args[0])->value;
  if (!lit.is_string()) return false;
  if (call.fn->fn == fn_rel_time) {
    double secs;
    if (!parse_rel_time(lit.as_string(), &secs)) return false;
    out = Value::rel_time(secs);
    return true;
  }
  if (call.fn->fn != fn_abs_time) return false;
  int64_t secs;
  int32_t offset;
  if (!parse_abs_time(lit.as_string(), &secs, &offset)) return false;
  out = Value::abs_time(secs, offset);
  return true;
}

FunctionTable functions_time() {
  static const FunctionEntry k[] = {
      {"time", fn_time},
      {"currentTime", fn_current_time},
      {"timeZoneOffset", fn_time_zone_offset},
      {"dayTime", fn_day_time},
      {"absTime", fn_abs_time},
      {"relTime", fn_rel_time},
      {"interval", fn_interval},
      {"splitTime", fn_split_time},
      {"formatTime", fn_format_time},
      {"getYear", fn_get_field<Field::kYear>},
      {"getMonth", fn_get_field<Field::kMonth>},
      {"getDayOfYear", fn_get_field<Field::kDayOfYear>},
      {"getDayOfMonth", fn_get_field<Field::kDayOfMonth>},
      {"getDayOfWeek", fn_get_field<Field::kDayOfWeek>},
      {"getDays", fn_get_field<Field::kDays>},
      {"getHours", fn_get_field<Field::kHours>},
      {"getMinutes", fn_get_field<Field::kMinutes>},
      {"getSeconds", fn_get_field<Field::kSeconds>},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
