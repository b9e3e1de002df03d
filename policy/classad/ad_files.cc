// Reading files of several ads (see ad_files.h). The XML form is turned into new-syntax text
// ad by ad and given to the ClassAd parser, so both forms share its checks.
#include "policy/classad/ad_files.h"

#include <cstring>
#include <string>

#include "policy/classad/unparse.h"

namespace kite::classad {

namespace {

int line_at(std::string_view text, size_t pos) {
  int line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

bool fail(ParseError* err, std::string_view text, size_t pos, const std::string& message) {
  if (err) {
    err->line = line_at(text, pos);
    err->column = 0;
    err->message = message;
  }
  return false;
}

// A block's parse error, moved to the block's place in the whole text.
bool fail_block(ParseError* err, std::string_view text, size_t start, const ParseError& e) {
  if (err) {
    *err = e;
    err->line = line_at(text, start) + (e.line > 0 ? e.line - 1 : 0);
  }
  return false;
}

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The end of the `[` ... `]` block starting at `pos` (one past its `]`), skipping brackets in
// string literals and quoted names; npos when it never closes.
size_t block_end(std::string_view t, size_t pos) {
  int depth = 0;
  for (size_t i = pos; i < t.size(); ++i) {
    char c = t[i];
    if (c == '"' || c == '\'') {
      for (++i; i < t.size() && t[i] != c; ++i)
        if (t[i] == '\\') ++i;
      if (i >= t.size()) return std::string_view::npos;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

// The XML reader: a cursor over the document that writes each value as new-syntax text.
struct Xml {
  std::string_view t;
  size_t pos = 0;
  std::string error;
  size_t error_at = 0;

  bool bad(const std::string& message) {
    if (error.empty()) {
      error = message;
      error_at = pos;
    }
    return false;
  }
  void skip_blanks() {
    while (pos < t.size() && is_blank(t[pos])) ++pos;
  }
  // Skips blanks, <?...?>, <!...> and comments between elements.
  void skip_misc() {
    for (;;) {
      skip_blanks();
      if (t.compare(pos, 4, "<!--") == 0) {
        size_t e = t.find("-->", pos + 4);
        pos = e == std::string_view::npos ? t.size() : e + 3;
      } else if (t.compare(pos, 2, "<?") == 0 || t.compare(pos, 2, "<!") == 0) {
        size_t e = t.find('>', pos);
        pos = e == std::string_view::npos ? t.size() : e + 1;
      } else {
        return;
      }
    }
  }
  // Reads a start tag: its name, its attributes' text, and whether it closes itself (`/>`).
  bool start_tag(std::string* name, std::string* attrs, bool* empty) {
    skip_misc();
    if (pos >= t.size() || t[pos] != '<' || t.compare(pos, 2, "</") == 0)
      return bad("expected an element");
    size_t e = t.find('>', pos);
    if (e == std::string_view::npos) return bad("an element that never closes");
    std::string_view inner = t.substr(pos + 1, e - pos - 1);
    *empty = !inner.empty() && inner.back() == '/';
    if (*empty) inner.remove_suffix(1);
    size_t n = 0;
    while (n < inner.size() && !is_blank(inner[n])) ++n;
    name->assign(inner.substr(0, n));
    attrs->assign(inner.substr(n));
    pos = e + 1;
    return true;
  }
  bool end_tag(const std::string& name) {
    skip_misc();
    std::string want = "</" + name;
    if (t.compare(pos, want.size(), want) != 0) return bad("expected </" + name + ">");
    size_t e = t.find('>', pos);
    if (e == std::string_view::npos) return bad("expected </" + name + ">");
    pos = e + 1;
    return true;
  }
  // The text up to the next '<', entities decoded.
  bool text(std::string* out) {
    size_t e = t.find('<', pos);
    if (e == std::string_view::npos) return bad("text that never ends");
    return decode(t.substr(pos, e - pos), out) && (pos = e, true);
  }
  bool decode(std::string_view s, std::string* out) {
    static const struct {
      const char* name;
      char c;
    } kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '&') {
        *out += s[i];
        continue;
      }
      bool known = false;
      for (const auto& en : kEntities) {
        size_t n = std::strlen(en.name);
        if (s.compare(i, n, en.name) == 0) {
          *out += en.c;
          i += n - 1;
          known = true;
          break;
        }
      }
      if (!known) return bad("an unknown entity in '" + std::string(s) + "'");
    }
    return true;
  }
  // The value of an attribute `key="..."` in a start tag's attribute text.
  bool attribute(const std::string& attrs, const char* key, std::string* out) {
    std::string want = std::string(key) + "=\"";
    size_t at = attrs.find(want);
    if (at == std::string::npos) return bad(std::string("an element without its ") + key);
    size_t from = at + want.size(), e = attrs.find('"', from);
    if (e == std::string::npos) return bad(std::string("an unclosed ") + key);
    return decode(std::string_view(attrs).substr(from, e - from), out);
  }

  // One value element, appended to `out` as new-syntax text.
  bool value(std::string* out, int depth) {
    if (depth > 64) return bad("values nested too deeply");
    std::string name, attrs;
    bool empty = false;
    if (!start_tag(&name, &attrs, &empty)) return false;
    if (name == "c") return ad_body(out, empty, depth);
    if (name == "l") {
      *out += "{ ";
      if (!empty) {
        bool first = true;
        for (;;) {
          skip_misc();
          if (t.compare(pos, 2, "</") == 0) break;
          if (!first) *out += ", ";
          first = false;
          if (!value(out, depth + 1)) return false;
        }
        if (!end_tag("l")) return false;
      }
      *out += " }";
      return true;
    }
    if (name == "b") {
      std::string v;
      if (!attribute(attrs, "v", &v)) return false;
      if (v != "t" && v != "f") return bad("a boolean that is neither t nor f");
      *out += v == "t" ? "true" : "false";
      return empty || end_tag("b");
    }
    if (name == "un" || name == "er") {
      *out += name == "un" ? "undefined" : "error";
      return empty || end_tag(name);
    }
    std::string body;
    if (!empty && !text(&body)) return false;
    if (name == "s") {
      // The string's characters come escaped as the new syntax escapes them, quotes bare.
      *out += '"';
      for (char c : body) {
        if (c == '"') *out += '\\';
        *out += c;
      }
      *out += '"';
    } else if (name == "i" || name == "e") {
      if (body.empty()) return bad("an empty <" + name + ">");
      *out += body;
    } else if (name == "r") {
      if (body == "NaN" || body == "INF" || body == "-INF")
        *out += "real(\"" + body + "\")";
      else if (!body.empty())
        *out += body;
      else
        return bad("an empty <r>");
    } else if (name == "at" || name == "rt") {
      *out += (name == "at" ? "absTime(\"" : "relTime(\"") + body + "\")";
    } else {
      return bad("an unknown value element <" + name + ">");
    }
    return empty || end_tag(name);
  }

  // The attributes of a <c> whose start tag was read, as `[ name = value; ... ]`.
  bool ad_body(std::string* out, bool empty, int depth) {
    *out += "[ ";
    if (!empty) {
      for (;;) {
        skip_misc();
        if (t.compare(pos, 2, "</") == 0) break;
        std::string name, attrs, attr_name;
        bool self_closed = false;
        if (!start_tag(&name, &attrs, &self_closed)) return false;
        if (name != "a") return bad("expected <a n=\"...\"> in an ad, not <" + name + ">");
        if (!attribute(attrs, "n", &attr_name)) return false;
        if (self_closed) return bad("attribute " + attr_name + " has no value");
        unparse_attr_name(*out, attr_name);
        *out += " = ";
        if (!value(out, depth + 1) || !end_tag("a")) return false;
        *out += "; ";
      }
      if (!end_tag("c")) return false;
    }
    *out += "]";
    return true;
  }
};

}  // namespace

bool classads_from_new_syntax(std::string_view text, std::vector<AdPtr>& out, ParseError* err) {
  bool in_list = false;
  for (size_t pos = 0; pos < text.size();) {
    char c = text[pos];
    if (is_blank(c) || c == ',') {
      ++pos;
    } else if (c == '{' && !in_list) {
      in_list = true;
      ++pos;
    } else if (c == '}' && in_list) {
      in_list = false;
      ++pos;
    } else if (c == '[') {
      size_t end = block_end(text, pos);
      if (end == std::string_view::npos) return fail(err, text, pos, "an ad that never closes");
      ParseError e;
      AdPtr ad = parse_classad(text.substr(pos, end - pos), &e);
      if (!ad) return fail_block(err, text, pos, e);
      out.push_back(std::move(ad));
      pos = end;
    } else {
      return fail(err, text, pos, std::string("expected '[' to start an ad, not '") + c + "'");
    }
  }
  if (in_list) return fail(err, text, text.size(), "the list of ads never closes ('}')");
  return true;
}

bool classads_from_xml(std::string_view text, std::vector<AdPtr>& out, ParseError* err) {
  Xml x;
  x.t = text;
  bool in_doc = false;
  for (;;) {
    x.skip_misc();
    if (x.pos >= text.size()) break;
    if (text.compare(x.pos, 11, "</classads>") == 0 && in_doc) {
      in_doc = false;
      x.pos += 11;
      continue;
    }
    const size_t start = x.pos;
    std::string name, attrs;
    bool empty = false;
    if (!x.start_tag(&name, &attrs, &empty)) break;
    if (name == "classads" && !in_doc && !empty) {
      in_doc = true;
      continue;
    }
    if (name != "c") {
      x.pos = start;
      x.bad("expected <c> to start an ad, not <" + name + ">");
      break;
    }
    std::string ad_text;
    if (!x.ad_body(&ad_text, empty, 0)) break;
    ParseError e;
    AdPtr ad = parse_classad(ad_text, &e);
    if (!ad) return fail(err, text, start, "the ad here does not parse: " + e.message);
    out.push_back(std::move(ad));
  }
  if (!x.error.empty()) return fail(err, text, x.error_at, x.error);
  if (in_doc) return fail(err, text, text.size(), "the document never closes (</classads>)");
  return true;
}

}  // namespace kite::classad
