// Parsing SLOT_TYPE_<N> shares and the per-resource rules of the slot layout (see slot_share.h).
#include "policy/startd/slot_share.h"

#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/startd/text_util.h"

namespace kite::startd::layout_detail {

namespace {

// An amount with an optional unit suffix (K, M, G, T; megabytes by default); never negative.
bool parse_number(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  std::string rest = trim(end);
  double mult = 1;
  if (!rest.empty()) {
    if (rest.size() > 2) return false;
    switch (rest[0]) {
      case 'k':
      case 'K': mult = 1.0 / 1024; break;
      case 'm':
      case 'M': mult = 1; break;
      case 'g':
      case 'G': mult = 1024; break;
      case 't':
      case 'T': mult = 1024.0 * 1024; break;
      default: return false;
    }
  }
  if (!std::isfinite(v) || v < 0) return false;
  *out = v * mult;
  return true;
}

// "auto", "25%", "1/4" or an amount, with an optional ": constraint".
bool parse_share(const std::string& text, Share* out, std::string* err) {
  std::string v = text;
  size_t colon = v.find(':');
  if (colon != std::string::npos) {
    out->constraint = trim(v.substr(colon + 1));
    v = trim(v.substr(0, colon));
  }
  if (strcasecmp(v.c_str(), "auto") == 0) {
    out->kind = ShareKind::kAuto;
    return true;
  }
  if (!v.empty() && v.back() == '%') {
    double p;
    if (!parse_number(trim(v.substr(0, v.size() - 1)), &p) || p > 100) {
      *err = "bad percentage '" + v + "'";
      return false;
    }
    out->kind = ShareKind::kFraction;
    out->value = p / 100;
    return true;
  }
  size_t slash = v.find('/');
  if (slash != std::string::npos) {
    double a, b;
    if (!parse_number(trim(v.substr(0, slash)), &a) ||
        !parse_number(trim(v.substr(slash + 1)), &b) || b == 0 || a > b) {
      *err = "bad fraction '" + v + "'";
      return false;
    }
    out->kind = ShareKind::kFraction;
    out->value = a / b;
    return true;
  }
  double n;
  if (!parse_number(v, &n)) {
    *err = "bad amount '" + v + "'";
    return false;
  }
  out->kind = ShareKind::kAbsolute;
  out->value = n;
  return true;
}

// The resource a SLOT_TYPE_<N> item names: a custom resource by its name, else a standard one
// by its first letter; -1 when none.
int resource_index(const std::string& name, const std::vector<CustomResource>& custom) {
  for (size_t i = 0; i < custom.size(); ++i) {
    if (strcasecmp(custom[i].name.c_str(), name.c_str()) == 0)
      return static_cast<int>(kFirstCustom + i);
  }
  if (name.empty()) return -1;
  // HTCONDOR: ep-policy "the first letter of the attribute name distinguishes"
  switch (name[0]) {
    case 'c':
    case 'C': return kCpus;
    case 'r':
    case 'R':
    case 'm':
    case 'M': return kMemory;
    case 'd':
    case 'D': return kDisk;
    case 's':
    case 'S':
    case 'v':
    case 'V': return kSwap;
  }
  return -1;
}

// Comma-separated items, trimmed, empty ones dropped (blanks stay inside an item: "cpus = 2").
std::vector<std::string> split_on_commas(const std::string& line) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= line.size()) {
    size_t c = line.find(',', p);
    std::string it = trim(line.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (!it.empty()) out.push_back(it);
    if (c == std::string::npos) break;
    p = c + 1;
  }
  return out;
}

// The items of a slot type's text: one per line when a line holds a constraint (which may
// contain commas), else comma-separated.
std::vector<std::string> type_items(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string line =
        trim(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (line.find(':') != std::string::npos) {
      items.push_back(line);
    } else if (!line.empty()) {
      for (const std::string& it : split_on_commas(line)) items.push_back(it);
    }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return items;
}

}  // namespace

std::vector<ResourceRule> resource_rules(const std::vector<CustomResource>& custom) {
  std::vector<ResourceRule> rules(kFirstCustom);
  rules[kCpus] = {"cpus", 1, true, true, "CPUs"};
  rules[kMemory] = {"memory", 1, true, false, "MB"};
  rules[kDisk] = {"disk", 1024, false, false, nullptr};
  rules[kSwap] = {"swap", 1024, false, false, nullptr};
  for (const CustomResource& r : custom) rules.push_back({r.name, 1, true, false, nullptr});
  return rules;
}

bool type_shares_parse(const std::string& text, int type_id,
                       const std::vector<CustomResource>& custom, TypeSpec* out, std::string* err) {
  out->shares.assign(kFirstCustom + custom.size(), Share{});
  Share blanket;
  char where[64];
  std::snprintf(where, sizeof where, "SLOT_TYPE_%d: ", type_id);
  for (const std::string& it : type_items(text)) {
    size_t eq = it.find('=');
    std::string e;
    if (eq == std::string::npos || (it.find(':') != std::string::npos && it.find(':') < eq)) {
      if (!parse_share(it, &blanket, &e)) {
        *err = where + e;
        return false;
      }
      continue;
    }
    std::string name = trim(it.substr(0, eq));
    int idx = resource_index(name, custom);
    if (idx < 0) {
      *err = std::string(where) + "unknown resource '" + name + "'";
      return false;
    }
    Share s;
    if (!parse_share(trim(it.substr(eq + 1)), &s, &e)) {
      *err = std::string(where) + name + ": " + e;
      return false;
    }
    out->shares[static_cast<size_t>(idx)] = s;
  }
  for (Share& s : out->shares) {
    if (s.kind != ShareKind::kUnset) continue;
    s.kind = blanket.kind == ShareKind::kUnset ? ShareKind::kAuto : blanket.kind;
    s.value = blanket.value;
  }
  return true;
}

bool device_matches(const std::string& constraint, const std::string& id,
                    const std::string& props) {
  if (constraint.empty()) return true;
  classad::ExprPtr e = classad::parse_expr(constraint);
  if (!e) return false;
  if (constraint[0] == '"') {
    classad::Value v = classad::evaluate(e.get());
    if (!v.is_string()) return false;
    // A literal names the device by id; the short form ("GPU-6a96bd13") names the full id too.
    std::string want(v.as_string());
    return strncasecmp(want.c_str(), id.c_str(), want.size()) == 0 &&
           (id.size() == want.size() || id[want.size()] == '-');
  }
  classad::AdPtr ad = classad::parse_classad_old(props);
  if (!ad) ad = classad::AdPtr(classad::ClassAd::make());
  ad->insert_value("Id", classad::Value::string(id));
  classad::Value v = ad->evaluate_expr(e.get());
  return classad::value_is_true(v);
}

}  // namespace kite::startd::layout_detail
