// Macro expansion of the configuration language (see expand.h).
// HTCONDOR: introduction-to-configuration "Macros", "Function Macros in Configuration".
#include "policy/config/expand.h"

#include <cctype>
#include <cstdlib>

#include "policy/config/internal.h"
#include "policy/config/macro_functions.h"
#include "policy/config/random.h"
#include "policy/config/template_args.h"
#include "policy/config/text.h"

namespace kite::config::internal {

bool Expander::expand_name(std::string_view name, std::string_view def, bool has_def,
                           std::string& out, int depth) {
  Entry e;
  // HTCONDOR: config.cpp evaluate_macro_func: the default also replaces a macro whose
  // value is empty (as written, before expansion).
  if (cfg.lookup(name, &e) && !(has_def && e.value.empty())) return expand_entry(e, out, depth);
  if (has_def) return expand(def, out, depth + 1);
  return true;
}

// A defined macro's value, expanded, with reference cycles reported.
bool Expander::expand_entry(const Entry& e, std::string& out, int depth) {
  std::string key = upper(e.name);
  for (const std::string& s : stack) {
    if (s == key) {
      std::string chain;
      for (const std::string& t : stack) chain += t + " -> ";
      return fail("macro " + e.name + " refers to itself (" + chain + key + ")");
    }
  }
  stack.push_back(key);
  bool ok = expand(e.value, out, depth + 1);
  stack.pop_back();
  return ok;
}

namespace {

// The function macros' view of the configuration (policy/config/macro_functions.h).
class ExpanderArgs final : public MacroArgs {
 public:
  ExpanderArgs(Expander& ex, int depth) : ex_(ex), depth_(depth) {}
  bool value(std::string_view text, bool or_literal, std::string* out) override {
    std::string_view name = trim(text);
    Entry e;
    if (valid_name(name) && ex_.cfg.lookup(name, &e)) return ex_.expand_entry(e, *out, depth_ + 1);
    return or_literal && ex_.expand(text, *out, depth_ + 1);
  }
  bool failed() const override { return !ex_.err.ok; }

 private:
  Expander& ex_;
  int depth_;
};

}  // namespace

bool Expander::expand_function(std::string_view fn, std::string_view args, std::string& out,
                               int depth) {
  if (is_macro_function(fn)) {
    // As HTCondor reads them: each argument is a macro name or literal text, expanded once by
    // the function itself (formats are not expanded).
    ExpanderArgs view(*this, depth);
    std::string msg;
    if (macro_function(fn, args, view, &out, &msg)) return true;
    if (!msg.empty()) return fail(msg);
    return err.ok ? fail("$" + std::string(fn) + "(" + std::string(args) + ") failed") : false;
  }
  std::string a;
  if (!expand(args, a, depth + 1)) return false;
  if (fn == "ENV") {
    size_t colon = a.find(':');
    std::string var(trim(std::string_view(a).substr(0, colon)));
    const char* v = var.empty() ? nullptr : std::getenv(var.c_str());
    if (v) {
      out += v;
    } else if (colon != std::string::npos) {
      out += a.substr(colon + 1);
    } else {
      out += "UNDEFINED";
    }
    return true;
  }
  MetaArgs list(a);
  if (fn == "RANDOM_CHOICE") {
    if (!list.items.empty()) out += list.items[random_below(list.items.size())];
    return true;
  }
  // RANDOM_INTEGER(min, max [, step])
  long long lo = std::strtoll(list.item(1).c_str(), nullptr, 10);
  long long hi = std::strtoll(list.item(2).c_str(), nullptr, 10);
  long long step = list.items.size() >= 3 ? std::strtoll(list.item(3).c_str(), nullptr, 10) : 1;
  if (step <= 0) step = 1;
  if (hi < lo) std::swap(lo, hi);
  // Number of values lo, lo + step, ... <= hi; 0 stands for 2^64 (the whole range, step 1).
  uint64_t span = (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) / step + 1;
  long long v = static_cast<long long>(static_cast<uint64_t>(lo) + random_below(span) * step);
  out += std::to_string(v);
  return true;
}

bool Expander::expand(std::string_view text, std::string& out, int depth) {
  if (depth > kMaxExpandDepth) return fail("macro expansion nested too deeply");
  size_t i = 0;
  while (i < text.size()) {
    if (out.size() > kMaxExpandBytes) return fail("macro expansion larger than 1 MiB");
    if (++work > work_limit) return fail("macro expansion too costly (more than 16M steps)");
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    if (text[i + 1] == '$') {  // $$(...) is for the startd/submit side: left as written
      out += "$$";
      i += 2;
      continue;
    }
    if (text[i + 1] == '(') {
      size_t close = match_paren(text, i + 1);
      if (close == std::string_view::npos) {
        out += c;
        ++i;
        continue;
      }
      std::string_view body = text.substr(i + 2, close - i - 2);
      size_t colon = body.find(':');
      std::string_view name = body.substr(0, colon);
      bool has_def = colon != std::string_view::npos;
      std::string_view def = has_def ? body.substr(colon + 1) : std::string_view();
      if (!has_def && iequals(name, "DOLLAR")) {
        // HTCONDOR: config.cpp expand_macro: $(DOLLAR) is always a literal '$', put in
        // after every other expansion (so its result is never expanded again).
        out += '$';
      } else if (valid_name(name)) {
        if (!expand_name(name, def, has_def, out, depth)) return false;
      } else if (name.find("$(") != std::string_view::npos) {
        // $($(X)): expand the inner reference, then look up the name it produced.
        std::string inner;
        if (!expand(body, inner, depth + 1)) return false;
        std::string ref = "$(" + inner + ")";
        std::string_view rb(inner);
        size_t c2 = rb.find(':');
        if (valid_name(rb.substr(0, c2))) {
          if (!expand_name(rb.substr(0, c2), c2 == std::string_view::npos ? "" : rb.substr(c2 + 1),
                           c2 != std::string_view::npos, out, depth)) {
            return false;
          }
        } else {
          out += ref;
        }
      } else {
        out.append(text.data() + i, close + 1 - i);
      }
      i = close + 1;
      continue;
    }
    // $FUNC(...): ENV, RANDOM_INTEGER, RANDOM_CHOICE and macro_functions.h's; other names are
    // left as written.
    size_t k = i + 1;
    while (k < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_')) {
      ++k;
    }
    std::string_view fn = text.substr(i + 1, k - i - 1);
    if (k < text.size() && text[k] == '(' &&
        (fn == "ENV" || fn == "RANDOM_INTEGER" || fn == "RANDOM_CHOICE" || is_macro_function(fn))) {
      size_t close = match_paren(text, k);
      if (close != std::string_view::npos) {
        if (!expand_function(fn, text.substr(k + 1, close - k - 1), out, depth)) return false;
        i = close + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return true;
}

}  // namespace kite::config::internal
