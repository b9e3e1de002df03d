// The configuration language's function macros: $CHOICE, $SUBSTR, $INT, $REAL, $STRING,
// $EVAL, $DIRNAME, $BASENAME, $F[fpduwnxbqa]. Values are evaluated with Kite's ClassAd library.
#include "policy/config/macro_functions.h"

#include <strings.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/config/internal.h"

namespace kite::config::internal {
namespace {

// HTCondor splits a function macro's arguments at every comma (no nesting).
std::vector<std::string_view> split_commas(std::string_view s) {
  std::vector<std::string_view> v;
  size_t b = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ',') {
      v.push_back(s.substr(b, i - b));
      b = i + 1;
    }
  }
  return v;
}

classad::Value evaluate_text(std::string_view text) {
  classad::ExprPtr e = classad::parse_expr(text);
  if (!e) return classad::Value::error();
  return classad::evaluate(e.get());
}

// A literal integer, or an expression that evaluates to a number or a boolean.
bool to_integer(std::string_view text, long long* out) {
  std::string s(trim(text));
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);  // saturates on overflow, as HTCondor's does
  if (!s.empty() && end == s.c_str() + s.size()) {
    *out = v;
    return true;
  }
  classad::Value val = evaluate_text(s);
  if (val.is_integer()) {
    *out = val.as_integer();
  } else if (val.is_real()) {
    double r = val.as_real();
    if (!(r > -9.2e18 && r < 9.2e18)) return false;  // NaN or beyond a 64-bit integer
    *out = static_cast<long long>(r);
  } else if (val.is_boolean()) {
    *out = val.as_boolean() ? 1 : 0;
  } else {
    return false;
  }
  return true;
}

bool to_real(std::string_view text, double* out) {
  std::string s(trim(text));
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (!s.empty() && end == s.c_str() + s.size()) {
    *out = v;
    return true;
  }
  classad::Value val = evaluate_text(s);
  if (val.is_integer()) {
    *out = static_cast<double>(val.as_integer());
  } else if (val.is_real()) {
    *out = val.as_real();
  } else if (val.is_boolean()) {
    *out = val.as_boolean() ? 1 : 0;
  } else {
    return false;
  }
  return true;
}

enum class Conv { kInt, kReal, kString };

// Splits a printf format holding exactly one conversion of the wanted kind into the text
// before it, the conversion (flags, width, precision, without length modifiers) and the text
// after it ("%%" becomes "%"). False if there is no such conversion or there is another.
bool parse_format(std::string_view fmt, Conv kind, std::string* pre, std::string* spec,
                  std::string* post) {
  bool found = false;
  std::string* text = pre;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      *text += fmt[i];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      *text += '%';
      ++i;
      continue;
    }
    if (found) return false;
    size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) ++j;
    while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
    if (j < fmt.size() && fmt[j] == '.') {
      ++j;
      while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
    }
    std::string flags(fmt.substr(i, j - i));
    while (j < fmt.size() && std::strchr("hlLqjzt", fmt[j])) ++j;
    if (j >= fmt.size()) return false;
    char c = fmt[j];
    const char* allowed = kind == Conv::kInt ? "diouxXc" : kind == Conv::kReal ? "fFeEgGaA" : "s";
    if (!std::strchr(allowed, c)) return false;
    *spec = flags + (kind == Conv::kInt ? "ll" : "") + c;
    found = true;
    text = post;
    i = j;
  }
  return found;
}

// printf of one value; the expander's own size limit catches a runaway width.
// "name [, format]": the name, and the format (everything after the first comma, HTCondor's
// rule) split by parse_format. False with a message when the format does not fit `kind`.
struct NameAndFormat {
  std::string_view name;
  std::string pre, spec, post;  // spec empty: no format given
};
bool name_and_format(std::string_view args, Conv kind, const char* fn, NameAndFormat* nf,
                     std::string* err) {
  size_t comma = args.find(',');
  nf->name = trim(args.substr(0, comma));
  if (comma == std::string_view::npos) return true;
  std::string_view fmt = args.substr(comma + 1);
  if (parse_format(fmt, kind, &nf->pre, &nf->spec, &nf->post)) return true;
  *err = std::string(fn) + ": '" + std::string(fmt) + "' is not a valid format specifier";
  return false;
}

template <typename T>
std::string format_one(const std::string& spec, T value) {
  int n = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (n <= 0 || n > (1 << 20)) return std::string();
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), spec.c_str(), value);
  s.resize(static_cast<size_t>(n));
  return s;
}

// $INT(name [, format]), $REAL(name [, format]).
bool number_macro(bool integer, std::string_view args, MacroArgs& cfg, std::string* out,
                  std::string* err) {
  const char* fn = integer ? "$INT()" : "$REAL()";
  NameAndFormat f;
  if (!name_and_format(args, integer ? Conv::kInt : Conv::kReal, fn, &f, err)) return false;
  std::string value;
  if (!cfg.value(f.name, true, &value)) return false;
  if (integer) {
    long long v;
    if (!to_integer(value, &v)) {
      *err = std::string(fn) + ": " + value + " does not evaluate to an integer";
      return false;
    }
    *out += f.spec.empty() ? std::to_string(v) : f.pre + format_one(f.spec, v) + f.post;
    return true;
  }
  double v;
  if (!to_real(value, &v)) {
    *err = std::string(fn) + ": " + value + " does not evaluate to a real";
    return false;
  }
  if (f.spec.empty()) {
    *out += format_one("%.16G", v);
  } else {
    std::string s = f.pre + format_one(f.spec, v) + f.post;
    if (s.find('.') == std::string::npos) s += ".0";  // HTCondor makes it look like a real
    *out += s;
  }
  return true;
}

// $STRING(name [, format]): the value evaluated as a ClassAd string, or else as written.
bool string_macro(std::string_view args, MacroArgs& cfg, std::string* out, std::string* err) {
  NameAndFormat f;
  if (!name_and_format(args, Conv::kString, "$STRING()", &f, err)) return false;
  std::string value;
  if (!cfg.value(f.name, true, &value)) return false;
  classad::Value v = evaluate_text(value);
  if (v.is_string()) value = std::string(v.as_string());
  *out += f.spec.empty() ? value : f.pre + format_one(f.spec, value.c_str()) + f.post;
  return true;
}

// $EVAL(name): the value evaluated; a string bare, anything else unparsed; text that does not
// parse stays as written.
bool eval_macro(std::string_view args, MacroArgs& cfg, std::string* out) {
  std::string value;
  if (!cfg.value(trim(args), true, &value)) return false;
  classad::ExprPtr e = classad::parse_expr(value);
  if (!e) {
    *out += value;
    return true;
  }
  classad::Value v = classad::evaluate(e.get());
  *out += v.is_string() ? std::string(v.as_string()) : classad::to_string(v);
  return true;
}

// $CHOICE(index, name) or $CHOICE(index, item0, item1, ...).
bool choice_macro(std::string_view args, MacroArgs& cfg, std::string* out, std::string* err) {
  std::vector<std::string_view> a = split_commas(args);
  if (a.size() < 2) {
    *err = "$CHOICE(): no list";
    return false;
  }
  std::string index_text;
  if (!cfg.value(trim(a[0]), true, &index_text)) return false;
  long long index;
  if (!to_integer(index_text, &index) || index < 0) {
    *err = "$CHOICE(): '" + index_text + "' is an invalid index";
    return false;
  }
  std::string list_value;
  std::vector<std::string_view> items(a.begin() + 1, a.end());
  if (items.size() == 1) {
    std::string_view list_name = trim(items[0]);
    if (list_name.empty() || !cfg.value(list_name, false, &list_value)) {
      if (!cfg.failed()) *err = "$CHOICE(): no list named " + std::string(list_name);
      return false;
    }
    items = split_commas(list_value);
  }
  if (static_cast<size_t>(index) >= items.size()) {
    *err = "$CHOICE(): index " + std::to_string(index) + " is out of range";
    return false;
  }
  *out += trim(items[index]);
  return true;
}

// $SUBSTR(name, start [, length]): negative start counts from the end, negative length
// leaves that many characters off the end.
bool substr_macro(std::string_view args, MacroArgs& cfg, std::string* out, std::string* err) {
  std::vector<std::string_view> a = split_commas(args);
  if (a.size() < 2) {
    *err = "$SUBSTR(): no start index";
    return false;
  }
  std::string text, arg;
  long long start = 0, length = 0;
  if (!cfg.value(trim(a[1]), true, &arg)) return false;
  if (!to_integer(arg, &start)) {
    *err = "$SUBSTR(): " + arg + " is an invalid start index";
    return false;
  }
  bool has_length = a.size() >= 3;
  if (has_length) {
    arg.clear();
    if (!cfg.value(trim(a[2]), true, &arg)) return false;
    if (!to_integer(arg, &length)) {
      *err = "$SUBSTR(): " + arg + " is an invalid length";
      return false;
    }
  }
  if (!cfg.value(trim(a[0]), false, &text)) return !cfg.failed();
  long long n = static_cast<long long>(text.size());
  if (start < 0) start += n;
  if (start < 0) start = 0;
  if (start > n) start = n;
  long long rest = n - start;
  if (!has_length) length = rest;
  if (length < 0) length += rest;
  if (length < 0) length = 0;
  if (length > rest) length = rest;
  out->append(text, static_cast<size_t>(start), static_cast<size_t>(length));
  return true;
}

bool is_sep(char c) {
  return c == '/' || c == '\\';
}

// $F[fpduwnxbqa](name), $DIRNAME(name) = $Fp, $BASENAME(name) = $Fnx.
bool filename_macro(std::string_view fn, std::string_view args, MacroArgs& cfg, std::string* out) {
  enum { kExt = 1, kName = 2, kPath = 4, kDir = 8 };
  int parts = 0, dirs = 0;
  bool quoted = false, single = false, bare = false;
  char to_sep = 0;
  if (fn == "BASENAME") {
    parts = kName | kExt;
  } else if (fn == "DIRNAME") {
    parts = kPath;
  } else {
    for (char c : fn.substr(1)) {
      switch (c | 0x20) {
        case 'x': parts |= kExt; break;
        case 'n': parts |= kName; break;
        case 'p': parts |= kPath; break;
        case 'd':
          parts |= kDir;
          ++dirs;
          break;
        case 'a': single = true; break;
        case 'b': bare = true; break;
        case 'w': to_sep = '\\'; break;
        case 'u': to_sep = '/'; break;
        case 'q': quoted = true; break;
        default: break;  // 'f' (full path) applies to submit files only
      }
    }
  }
  // HTCONDOR: config.cpp: $BASENAME(name, suffix) strips a suffix that ends the file name,
  // as if it were the extension.
  std::string_view suffix;
  if (fn == "BASENAME") {
    size_t comma = args.rfind(',');
    if (comma != std::string_view::npos && args.find(')', comma) == std::string_view::npos) {
      suffix = args.substr(comma + 1);
      while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix[0]))) {
        suffix.remove_prefix(1);
      }
      args = args.substr(0, comma);
    }
  }
  // The argument is a macro name or, when no macro has that name, the text itself.
  std::string v;
  if (!cfg.value(trim(args), true, &v)) return !cfg.failed();
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  if (to_sep) {
    for (char& c : v) {
      if (is_sep(c)) c = to_sep;
    }
  }
  size_t end = v.size();
  size_t ixn = 0;  // start of the file name
  for (size_t i = 0; i < v.size(); ++i) {
    if (is_sep(v[i])) ixn = i + 1;
  }
  // The extension starts at the file name's last '.', but not at its first character
  // (".hidden" has none: condor_basename_extension_ptr).
  size_t ixx = v.rfind('.');
  if (ixx == std::string::npos || ixx <= ixn) ixx = end;
  if (!suffix.empty() && end - ixn >= suffix.size() &&
      strncasecmp(v.c_str() + end - suffix.size(), suffix.data(), suffix.size()) == 0) {
    ixx = end - suffix.size();
    parts &= ~kExt;
  }
  if (ixn == 0 && (parts & (kName | kExt))) parts &= ~(kPath | kDir);
  size_t begin = 0;
  switch (parts) {
    case kExt:
      begin = ixx;
      if (bare && ixx < end) ++begin;
      break;
    case kName | kExt: begin = ixn; break;
    case kName:
      begin = ixn;
      end = ixx;
      break;
    case 0:
    case kPath | kName | kExt:
    case kPath | kExt: break;
    case kPath:
      end = ixn;
      if (bare && ixn > 0) --end;
      break;
    case kPath | kName: end = ixx; break;
    default:  // with d: the last `dirs` directories
      if (ixn > 0) {
        // The file name and `dirs` directories before it: from just after the separator
        // `dirs` separators before the last one, or the whole path when there are not that
        // many (condor_basename_plus_dirs).
        std::vector<size_t> after_sep;
        for (size_t i = 0; i < v.size(); ++i) {
          if (is_sep(v[i])) after_sep.push_back(i + 1);
        }
        size_t n = after_sep.size();
        begin = static_cast<size_t>(dirs) < n ? after_sep[n - 1 - dirs] : 0;
        if ((parts & (kName | kExt)) == kName) {
          end = ixx;
        } else if ((parts & (kName | kExt)) == 0) {
          end = ixn;
          if (bare) --end;
        }
      } else {
        begin = end = 0;
      }
      break;
  }
  std::string r = v.substr(begin, end - begin);
  if (quoted) {
    char q = single ? '\'' : '"';
    r = q + r + q;
  }
  *out += r;
  return true;
}

bool is_filename_function(std::string_view fn) {
  if (fn.empty() || fn[0] != 'F') return false;
  for (char c : fn.substr(1)) {
    if (!std::strchr("fpduwnxbqaFPDUWNXBQA", c)) return false;
  }
  return true;
}

}  // namespace

bool is_macro_function(std::string_view fn) {
  return fn == "CHOICE" || fn == "SUBSTR" || fn == "INT" || fn == "REAL" || fn == "STRING" ||
         fn == "EVAL" || fn == "DIRNAME" || fn == "BASENAME" || is_filename_function(fn);
}

bool macro_function(std::string_view fn, std::string_view args, MacroArgs& cfg, std::string* out,
                    std::string* err) {
  if (fn == "INT" || fn == "REAL") return number_macro(fn == "INT", args, cfg, out, err);
  if (fn == "STRING") return string_macro(args, cfg, out, err);
  if (fn == "EVAL") return eval_macro(args, cfg, out);
  if (fn == "CHOICE") return choice_macro(args, cfg, out, err);
  if (fn == "SUBSTR") return substr_macro(args, cfg, out, err);
  return filename_macro(fn, args, cfg, out);
}

}  // namespace kite::config::internal
