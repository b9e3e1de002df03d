// ClassAds as JSON, in HTCondor's convention (condor_q -json, condor_status
// -json): literals become JSON values (undefined is null, lists are arrays,
// nested ads are objects) and every other expression becomes the string
// "\/Expr(<unparsed expression>)\/". HTCONDOR: src/classad/jsonSink, jsonSource.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/parser.h"

namespace kite::classad {

// One ad as a JSON object, attributes in case-insensitive alphabetical order.
// `pretty`: one attribute per line, indented by two spaces, as HTCondor's
// tools print; otherwise HTCondor's one-line form `{"a": 1,"b": "x"}`.
// No trailing newline.
std::string classad_to_json(const ClassAd& ad, bool pretty);
// Appends the same text to `out`.
void classad_append_json(std::string& out, const ClassAd& ad, bool pretty);
// Several ads as a JSON array. Pretty: "[\n{...},\n{...}\n]" with each ad
// starting in column 1, as condor_q -json prints; no trailing newline.
std::string classads_to_json(std::span<const ClassAd* const> ads, bool pretty);

// Parses one JSON object into an ad. Null on error, with `err` naming what
// went wrong and where (line and column, 1-based). Accepts what HTCondor's
// JSON reader accepts: extra commas between attributes, `//` and `/* */`
// comments, case-insensitive true/false/null.
AdPtr classad_from_json(std::string_view text, ParseError* err = nullptr);
// One attribute of a JSON ad as classad_json_attrs reads it: the interned
// name as spelled and the parsed expression (a reference the caller owns).
struct JsonAttr {
  InternedName name;
  Expr* expr;
};
// Reads one JSON object's attributes in order (a repeated name appears
// twice) without building an ad, for a caller that merges them into an ad it
// holds. On error returns false, leaves `out` empty and fills `err`.
bool classad_json_attrs(std::string_view text, std::vector<JsonAttr>& out,
                        ParseError* err = nullptr);
// Inserts `a` into `ad` (taking over its reference), as the reader does.
void classad_insert_attr(ClassAd& ad, const JsonAttr& a);
// Parses a JSON array of objects (`[ {...}, {...} ]`). On error returns false,
// leaves `out` empty and fills `err`.
bool classads_from_json(std::string_view text, std::vector<AdPtr>& out, ParseError* err = nullptr);

}  // namespace kite::classad
