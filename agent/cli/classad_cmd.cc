// `kite classad`: evaluate expressions (`eval`) and run conformance vector
// files (`batch`, the format of tests/conformance/classad/README.md).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

using namespace kite::classad;

bool read_file(const char* path, std::string& out) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return true;
}

// AD is new-syntax text, or @file holding either syntax.
AdPtr load_ad(const char* arg, const char* what) {
  std::string text;
  ParseError err;
  AdPtr ad;
  if (arg[0] == '@') {
    if (!read_file(arg + 1, text)) {
      std::fprintf(stderr, "kite classad: cannot read %s file '%s'\n", what, arg + 1);
      return AdPtr();
    }
    ad = parse_classad_any(text, &err);
  } else {
    ad = parse_classad(arg, &err);
  }
  if (!ad) std::fprintf(stderr, "kite classad: bad %s ad: %s\n", what, err.to_string().c_str());
  return ad;
}

// Evaluates `expr` with `left` as MY and `right` as TARGET (either may be null).
std::string evaluate_text(ClassAd* left, ClassAd* right, Expr* expr) {
  Value v;
  if (left && right) {
    expr_set_parent_scope(expr, left);
    MatchPair pair(*left, *right);
    v = pair.evaluate_left(expr);
  } else if (left) {
    expr_set_parent_scope(expr, left);
    v = left->evaluate_expr(expr);
  } else {
    v = evaluate(expr);
  }
  return to_string(v);
}

int eval_main(int argc, char** argv) {
  AdPtr my, target;
  const char* expr_text = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--my") == 0 && i + 1 < argc) {
      my = load_ad(argv[++i], "--my");
      if (!my) return 2;
    } else if (std::strcmp(argv[i], "--target") == 0 && i + 1 < argc) {
      target = load_ad(argv[++i], "--target");
      if (!target) return 2;
    } else if (!expr_text) {
      expr_text = argv[i];
    } else {
      std::fprintf(stderr, "kite classad eval: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!expr_text) {
    std::fprintf(stderr, "usage: kite classad eval [--my AD] [--target AD] EXPR\n");
    return 2;
  }
  ParseError err;
  ExprPtr expr = parse_expr(expr_text, &err);
  if (!expr) {
    std::fprintf(stderr, "kite classad eval: %s\n", err.to_string().c_str());
    return 2;
  }
  if (target && !my) my = AdPtr(ClassAd::make());
  std::string out = evaluate_text(my.get(), target.get(), expr.get());
  std::printf("%s\n", out.c_str());
  return 0;
}

std::string unescape_field(std::string_view f) {
  std::string out;
  out.reserve(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '\\' && i + 1 < f.size()) {
      char c = f[++i];
      if (c == 't') {
        out += '\t';
      } else if (c == 'n') {
        out += '\n';
      } else if (c == '\\') {
        out += '\\';
      } else {
        out += '\\';
        out += c;
      }
    } else {
      out += f[i];
    }
  }
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    if (tab == std::string::npos) {
      fields.push_back(unescape_field(std::string_view(line).substr(start)));
      break;
    }
    fields.push_back(unescape_field(std::string_view(line).substr(start, tab - start)));
    start = tab + 1;
  }
  return fields;
}

int batch_main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kite classad batch FILE.tsv\n");
    return 2;
  }
  std::string text;
  if (!read_file(argv[1], text)) {
    std::fprintf(stderr, "kite classad batch: cannot read '%s'\n", argv[1]);
    return 2;
  }
  int passed = 0, failed = 0, lineno = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || lineno == 1) continue;  // header
    std::vector<std::string> f = split_tabs(line);
    if (f.size() != 6) {
      std::printf("%s:%d: malformed line (%zu fields)\n", argv[1], lineno, f.size());
      ++failed;
      continue;
    }
    const std::string& id = f[0];
    const std::string& kind = f[1];
    std::string actual;
    ParseError err;
    ExprPtr expr = parse_expr(f[4], &err);
    if (!expr) {
      actual = "<parse error: " + err.to_string() + ">";
    } else if (kind == "match") {
      AdPtr left = f[2].empty() ? AdPtr(ClassAd::make()) : parse_classad(f[2], &err);
      AdPtr right = left && !f[3].empty() ? parse_classad(f[3], &err) : AdPtr(ClassAd::make());
      if (!left || !right) {
        actual = "<ad parse error: " + err.to_string() + ">";
      } else {
        actual = evaluate_text(left.get(), right.get(), expr.get());
      }
    } else {
      actual = evaluate_text(nullptr, nullptr, expr.get());
    }
    if (actual == f[5]) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n  expected: %s\n  actual:   %s\n", id.c_str(), f[4].c_str(),
                  f[5].c_str(), actual.c_str());
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int classad_main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "eval") == 0) return eval_main(argc - 1, argv + 1);
  if (argc >= 2 && std::strcmp(argv[1], "batch") == 0) return batch_main(argc - 1, argv + 1);
  std::fprintf(stderr,
               "usage: kite classad eval [--my AD] [--target AD] EXPR\n"
               "       kite classad batch FILE.tsv\n");
  return 2;
}

}  // namespace kite::cli
