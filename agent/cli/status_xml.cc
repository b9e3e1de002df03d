// condor_status -xml (see status_xml.h). The layout is HTCondor's ClassAdXMLUnParser without
// compact spacing (classad/xmlSink.cpp): literals as typed elements, anything else as the
// expression's text in <e>, '&', '<' and '>' as entities.
#include "agent/cli/status_xml.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include "policy/classad/unparse.h"

namespace kite::cli {

const char kXmlHeader[] =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";
const char kXmlFooter[] = "</classads>\n";

namespace {

void append_escaped(std::string* out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&': *out += "&amp;"; break;
      case '<': *out += "&lt;"; break;
      case '>': *out += "&gt;"; break;
      default: *out += c;
    }
  }
}

// A string's characters as the new-syntax unparser escapes them, without quotes (quotes are
// not escaped inside <s>).
void append_string(std::string* out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '\a': *out += "\\a"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\v': *out += "\\v"; break;
      case '\\': *out += "\\\\"; break;
      default:
        if (c != '"' && c != '\'' && !std::isprint(static_cast<unsigned char>(c))) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned char>(c));
          *out += buf;
        } else {
          append_escaped(out, std::string_view(&c, 1));
        }
    }
  }
}

void append_ad(std::string* out, const std::vector<classad::ClassAd::Entry>& entries,
               size_t indent);

void append_expr(std::string* out, const classad::Expr* e, size_t indent) {
  if (e->kind != classad::ExprKind::kLiteral) {
    *out += "<e>";
    append_escaped(out, classad::to_string(e));
    *out += "</e>";
    return;
  }
  const classad::Value& v = classad::as_literal(e)->value;
  char buf[64];
  switch (v.type()) {
    case classad::ValueType::kString:
      *out += "<s>";
      append_string(out, v.as_string());
      *out += "</s>";
      return;
    case classad::ValueType::kInteger:
      std::snprintf(buf, sizeof buf, "<i>%lld</i>", static_cast<long long>(v.as_integer()));
      *out += buf;
      return;
    case classad::ValueType::kReal: {
      double r = v.as_real();
      if (r == 0.0)
        std::snprintf(buf, sizeof buf, "<r>%s</r>", std::signbit(r) ? "-0.0" : "0.0");
      else if (std::isnan(r))
        std::snprintf(buf, sizeof buf, "<r>NaN</r>");
      else if (std::isinf(r))
        std::snprintf(buf, sizeof buf, "<r>%s</r>", r < 0 ? "-INF" : "INF");
      else
        std::snprintf(buf, sizeof buf, "<r>%1.15E</r>", r);
      *out += buf;
      return;
    }
    case classad::ValueType::kBoolean:
      *out += v.as_boolean() ? "<b v=\"t\"/>" : "<b v=\"f\"/>";
      return;
    case classad::ValueType::kUndefined: *out += "<un/>"; return;
    case classad::ValueType::kError: *out += "<er/>"; return;
    case classad::ValueType::kList:
      *out += "<l>";
      for (const classad::Expr* item : v.as_list()->items) append_expr(out, item, indent);
      *out += "</l>";
      return;
    case classad::ValueType::kClassAd: {
      append_ad(out, v.as_classad()->entry_list(), indent);
      return;
    }
    default: {
      // Times: the text between the quotes of absTime("...") / relTime("...").
      std::string text = classad::to_string(v);
      size_t open = text.find('"'), close = text.rfind('"');
      const char* tag = v.type() == classad::ValueType::kAbsTime ? "at" : "rt";
      *out += std::string("<") + tag + ">";
      if (open != std::string::npos && close > open)
        *out += text.substr(open + 1, close - open - 1);
      *out += std::string("</") + tag + ">";
      return;
    }
  }
}

void append_ad(std::string* out, const std::vector<classad::ClassAd::Entry>& entries,
               size_t indent) {
  *out += "<c>\n";
  for (const auto& en : entries) {
    out->append(indent + 4, ' ');
    *out += "<a n=\"";
    append_escaped(out, en.name->view());
    *out += "\">";
    append_expr(out, en.expr, indent + 4);
    *out += "</a>\n";
  }
  out->append(indent, ' ');
  *out += "</c>";
  if (indent == 0) *out += '\n';
}

}  // namespace

void append_xml_ad(std::string* out, const classad::ClassAd& ad) {
  std::vector<classad::ClassAd::Entry> entries = ad.entry_list();
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    std::string x(a.name->view()), y(b.name->view());
    return strcasecmp(x.c_str(), y.c_str()) < 0;
  });
  append_ad(out, entries, 0);
  *out += '\n';
}

}  // namespace kite::cli
