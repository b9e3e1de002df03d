// Template arguments and their substitution into a template's body (see template_args.h).
// HTCONDOR: introduction-to-configuration "Configuration Templates" (arguments of a `use`).
#include "policy/config/template_args.h"

#include "policy/config/internal.h"
#include "policy/config/text.h"

namespace kite::config::internal {

MetaArgs::MetaArgs(std::string_view text) : raw(trim(text)) {
  if (raw.empty()) return;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= raw.size(); ++i) {
    char c = i < raw.size() ? raw[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c == ',' && (depth == 0 || i == raw.size())) {
      std::string_view item(raw.data() + begin, i - begin);
      size_t lead = item.size() - ltrim(item).size();
      starts.push_back(begin + lead);
      items.emplace_back(trim(item));
      begin = i + 1;
    }
  }
}

std::string MetaArgs::from(size_t n) const {
  if (n < 1 || n > items.size()) return "";
  return std::string(trim(std::string_view(raw).substr(starts[n - 1])));
}

std::string meta_substitute(std::string_view body, const MetaArgs& args, int depth) {
  std::string out;
  size_t i = 0;
  while (i < body.size()) {
    if (body[i] == '$' && i + 2 < body.size() && body[i + 1] == '(' && is_digit(body[i + 2])) {
      size_t close = match_paren(body, i + 1);
      if (close != std::string_view::npos) {
        std::string_view in = body.substr(i + 2, close - i - 2);
        size_t k = 0;
        unsigned n = 0;
        while (k < in.size() && is_digit(in[k]) && n < 100) n = n * 10 + (in[k++] - '0');
        char mod = 0;
        if (k < in.size() && (in[k] == '?' || in[k] == '#' || in[k] == '+')) mod = in[k++];
        bool has_def = k < in.size() && in[k] == ':';
        if (k == in.size() || has_def) {
          std::string_view def = has_def ? in.substr(k + 1) : std::string_view();
          std::string val;
          if (mod == '?') {
            val = (n == 0 ? !args.raw.empty() : !args.item(n).empty()) ? "1" : "0";
          } else if (mod == '#') {
            val = std::to_string(args.items.size());
          } else if (n == 0 || mod == '+') {
            val = n == 0 ? args.raw : args.from(n);
          } else {
            val = args.item(n);
          }
          if (val.empty() && has_def && depth < 8) val = meta_substitute(def, args, depth + 1);
          out += val;
          i = close + 1;
          continue;
        }
      }
    }
    out += body[i++];
  }
  return out;
}

}  // namespace kite::config::internal
