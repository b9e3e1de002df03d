// The submit macro table and its $(...) expander (see macros.h). Function macros are the
// configuration language's (policy/config/macro_functions.h), read through a MacroArgs view.
#include "policy/submit/macros.h"

#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "policy/config/internal.h"
#include "policy/config/macro_functions.h"

namespace kite::submit {
namespace {

constexpr int kMaxDepth = 32;
constexpr size_t kMaxBytes = 1 << 20;
constexpr size_t kMaxWork = 1 << 24;

void upper_into(std::string_view s, std::string* out) {
  out->assign(s.data(), s.size());
  for (char& c : *out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');  // ASCII only, no locale
  }
}

// Index of the ')' closing the '(' at `open`, or npos.
size_t closing_paren(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

bool valid_macro_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!is_name_char(c) && c != '.') return false;
  }
  return true;
}

Macros::Macro* Macros::find(std::string_view name) {
  upper_into(name, &key_);
  auto it = index_.find(key_);
  return it == index_.end() ? nullptr : &macros_[it->second];
}

// "foo = snap $(foo)": a macro's references to itself stand for its value so far (or the
// reference's default), as HTCondor reads them.
std::string Macros::self_substituted(std::string_view name, std::string_view value) {
  std::string out;
  size_t i = 0;
  while (i < value.size()) {
    size_t at = value.find("$(", i);
    if (at == std::string_view::npos || (at > 0 && value[at - 1] == '$')) {
      size_t stop = at == std::string_view::npos ? value.size() : at + 2;
      out.append(value.substr(i, stop - i));
      i = stop;
      continue;
    }
    size_t close = closing_paren(value, at + 1);
    std::string_view body =
        close == std::string_view::npos ? std::string_view() : value.substr(at + 2, close - at - 2);
    size_t colon = body.find(':');
    std::string_view ref = body.substr(0, colon);
    if (close == std::string_view::npos || ref.size() != name.size() ||
        strncasecmp(ref.data(), name.data(), name.size()) != 0) {
      out.append(value.substr(i, at + 2 - i));
      i = at + 2;
      continue;
    }
    out.append(value.substr(i, at - i));
    if (const Macro* cur = find(name)) {
      out += cur->value;
    } else if (colon != std::string_view::npos) {
      out.append(body.substr(colon + 1));
    } else {
      out.append(value.substr(at, close + 1 - at));  // no base case: an error when expanded
    }
    i = close + 1;
  }
  return out;
}

void Macros::set(std::string_view name, std::string value, const std::string& file, int line) {
  if (value.find("$(") != std::string::npos) value = self_substituted(name, value);
  Macro* m = find(name);
  if (!m) {
    index_.emplace(key_, macros_.size());
    macros_.push_back(Macro{std::string(name), {}, {}, 0, false, false});
    m = &macros_.back();
  }
  m->value = std::move(value);
  m->file = file;
  m->line = line;
  m->item = false;
}

void Macros::set_item(std::string_view name, std::string_view value) {
  Macro* m = find(name);
  if (!m) {
    index_.emplace(key_, macros_.size());
    macros_.push_back(Macro{std::string(name), {}, {}, 0, true, true});
    m = &macros_.back();
  }
  m->value.assign(value.data(), value.size());
  m->item = true;
  m->used = true;
}

void Macros::erase(std::string_view name) {
  if (!find(name)) return;
  size_t at = index_[key_];
  index_.erase(key_);
  macros_.erase(macros_.begin() + static_cast<long>(at));
  for (auto& kv : index_) {
    if (kv.second > at) --kv.second;
  }
}

const std::string* Macros::raw(std::string_view name) {
  Macro* m = find(name);
  if (!m) return nullptr;
  m->used = true;
  return &m->value;
}

namespace {

bool is(std::string_view name, const char* word) {
  return name.size() == std::strlen(word) && strncasecmp(name.data(), word, name.size()) == 0;
}

#if defined(__aarch64__)
constexpr const char* kArch = "aarch64";
#else
constexpr const char* kArch = "X86_64";
#endif

}  // namespace

bool Macros::builtin(std::string_view name, std::string* out) const {
  int v = 0;
  if (is(name, "Cluster") || is(name, "ClusterId")) {
    v = cluster;
  } else if (is(name, "Process") || is(name, "ProcId")) {
    v = process;
  } else {
    return false;
  }
  out->append(std::to_string(v));
  return true;
}

// HTCONDOR: submit_utils.cpp SubmitMacroDefaults: these defaults are macro text.
const char* Macros::default_text(std::string_view name) {
  static const struct {
    const char* name;
    const char* text;
  } kDefaults[] = {
      {"JobId", "$(ClusterId).$(ProcId)"}, {"JobListId", "$(ClusterId)"},
      {"Request_CPUs", "$(RequestCPUs)"},  {"Request_Memory", "$(RequestMemory)"},
      {"VM_MEMORY", "$(Request_Memory)"},  {"VM_VCPUS", "$(Request_CPUs)"},
  };
  for (const auto& d : kDefaults) {
    if (is(name, d.name)) return d.text;
  }
  return nullptr;
}

bool Macros::automatic(std::string_view name, std::string* out) const {
  const char* text = nullptr;
  if (is(name, "Step")) {
    out->append(std::to_string(step));
  } else if (is(name, "ItemIndex") || is(name, "Row")) {
    out->append(std::to_string(item_index));
  } else if (is(name, "Node")) {
    // Empty outside the parallel universe.
  } else if (is(name, "TaskId")) {
    text = "0";
  } else if (is(name, "ARCH")) {
    text = kArch;
  } else if (is(name, "OPSYS")) {
    text = "LINUX";
  } else if (is(name, "IsLinux")) {
    text = "1";  // condor_submit's defaults: "1" and "0", not the configuration's booleans
  } else if (is(name, "IsWindows")) {
    text = "0";
  } else if (is(name, "SUBMIT_FILE")) {
    out->append(submit_file);
  } else if (is(name, "DOLLAR")) {
    text = "$";
  } else {
    return false;
  }
  if (text) out->append(text);
  return true;
}

// One expansion: the cycle guard and budget shared by every nested reference.
struct Expansion {
  Macros& m;
  Status err;
  size_t work = 0;
  std::vector<const Macros::Macro*> stack;

  bool fail(std::string msg) {
    if (err.ok) err = Status::Error(std::move(msg));
    return false;
  }
  bool run(std::string_view text, std::string& out, int depth);
  bool reference(std::string_view name, std::string& out, int depth);
};

// The function macros' view of the submit table (policy/config/macro_functions.h).
class SubmitArgs final : public config::internal::MacroArgs {
 public:
  SubmitArgs(Expansion& ex, int depth) : ex_(ex), depth_(depth) {}
  bool value(std::string_view text, bool or_literal, std::string* out) override {
    std::string_view name = config::internal::trim(text);
    if (valid_macro_name(name) && ex_.reference(name, *out, depth_ + 1)) return ex_.err.ok;
    return ex_.err.ok && or_literal && ex_.run(text, *out, depth_ + 1);
  }
  bool failed() const override { return !ex_.err.ok; }

 private:
  Expansion& ex_;
  int depth_;
};

// A defined macro's expanded value appended to out; false when `name` is not defined (or on
// an error, which err records).
bool Expansion::reference(std::string_view name, std::string& out, int depth) {
  if (m.builtin(name, &out)) return true;
  const std::string* raw = m.raw(name);
  if (!raw) {
    if (const char* text = Macros::default_text(name)) return run(text, out, depth + 1);
    return m.automatic(name, &out);
  }
  const Macros::Macro* self = m.find(name);
  for (const Macros::Macro* s : stack) {
    if (s == self) return fail("macro " + self->name + " refers to itself");
  }
  stack.push_back(self);
  std::string value = *raw;  // the table may grow while this expands
  bool ok = run(value, out, depth + 1);
  stack.pop_back();
  return ok;
}

bool Expansion::run(std::string_view text, std::string& out, int depth) {
  if (depth > kMaxDepth) return fail("macro expansion nested too deeply");
  size_t i = 0;
  while (i < text.size()) {
    if (out.size() > kMaxBytes) return fail("macro expansion larger than 1 MiB");
    if (++work > kMaxWork) return fail("macro expansion too costly");
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    if (text[i + 1] == '$') {  // $$(...) is expanded at match time: kept as written
      out += "$$";
      i += 2;
      continue;
    }
    if (text[i + 1] == '(') {
      size_t close = closing_paren(text, i + 1);
      if (close == std::string_view::npos) {
        out += c;
        ++i;
        continue;
      }
      std::string_view body = text.substr(i + 2, close - i - 2);
      std::string inner;
      if (body.find("$(") != std::string_view::npos) {  // $($(X)): the name is computed
        if (!run(body, inner, depth + 1)) return false;
        body = inner;
      }
      size_t colon = body.find(':');
      std::string_view name = body.substr(0, colon);
      const std::string* defined = nullptr;
      if (!valid_macro_name(name)) {
        out.append(text.data() + i, close + 1 - i);
      } else if (colon != std::string_view::npos && (defined = m.raw(name)) && defined->empty()) {
        // HTCONDOR: config.cpp evaluate_macro_func: the default also replaces a macro
        // defined as nothing.
        if (!run(body.substr(colon + 1), out, depth + 1)) return false;
      } else if (!reference(name, out, depth)) {
        if (!err.ok) return false;
        if (colon != std::string_view::npos && !run(body.substr(colon + 1), out, depth + 1)) {
          return false;
        }
      }
      i = close + 1;
      continue;
    }
    size_t k = i + 1;
    while (k < text.size() && is_name_char(text[k])) ++k;
    std::string_view fn = text.substr(i + 1, k - i - 1);
    if (k < text.size() && text[k] == '(' && fn == "ENV") {  // $ENV(NAME[:default])
      size_t close = closing_paren(text, k);
      if (close != std::string_view::npos) {
        std::string arg;
        if (!run(text.substr(k + 1, close - k - 1), arg, depth + 1)) return false;
        size_t colon = arg.find(':');
        std::string var(config::internal::trim(std::string_view(arg).substr(0, colon)));
        const char* v = var.empty() ? nullptr : std::getenv(var.c_str());
        if (v) {
          out += v;
        } else if (colon != std::string::npos) {
          out += arg.substr(colon + 1);
        } else {
          out += "UNDEFINED";  // as the configuration language's $ENV
        }
        i = close + 1;
        continue;
      }
    }
    if (k < text.size() && text[k] == '(' && config::internal::is_macro_function(fn)) {
      size_t close = closing_paren(text, k);
      if (close != std::string_view::npos) {
        SubmitArgs view(*this, depth);
        std::string msg;
        if (!config::internal::macro_function(fn, text.substr(k + 1, close - k - 1), view, &out,
                                              &msg)) {
          if (!err.ok) return false;
          if (msg.empty()) msg.append("$").append(fn).append("() failed");
          return fail(std::move(msg));
        }
        i = close + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return true;
}

Status Macros::expand(std::string_view text, std::string* out) {
  out->clear();
  if (text.find('$') == std::string_view::npos) {
    out->assign(text.data(), text.size());
    return Status::Ok();
  }
  Expansion ex{*this, Status::Ok(), 0, {}};
  if (!ex.run(text, *out, 0)) {
    out->clear();
    return ex.err;
  }
  return Status::Ok();
}

bool Macros::get(std::string_view name, std::string* out, Status* err) {
  out->clear();
  const std::string* r = raw(name);
  if (!r) return false;
  std::string value = *r;
  Status st = expand(value, out);
  if (!st.ok && err) *err = st;
  return true;
}

}  // namespace kite::submit
