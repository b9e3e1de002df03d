// Unparsing: values and expressions back to canonical ClassAd text, exactly
// as HTCondor's unparser writes them.
#pragma once

#include <string>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/classad/value.h"

namespace kite::classad {

void unparse_value(std::string& out, const Value& v);
void unparse_expr(std::string& out, const Expr* e);
// The same with reals as old ClassAd syntax (`A = 1.25` lines, condor_submit -dry-run,
// condor_status -l) prints them: %.16G, ".0" added to an integral value.
void unparse_expr_old(std::string& out, const Expr* e);
void unparse_real_old(std::string& out, double r);
// `[ a = 1; b = 2 ]` in HTCondor's attribute order.
void unparse_classad(std::string& out, const ClassAd& ad);
// The pretty form HTCondor's unparse() builtin uses (lists and ads on
// indented lines).
void unparse_pretty(std::string& out, const Expr* e);
// A string literal with HTCondor's escapes, including the quotes.
void unparse_string(std::string& out, std::string_view s);
// An attribute name, quoted with '...' when it is not a plain identifier.
void unparse_attr_name(std::string& out, std::string_view name);
// Real number formatting (`%.15E`, `0.0`, `real("INF")`, ...).
void unparse_real(std::string& out, double r);
// Relative/absolute time text as in `relTime("01:00")` / `absTime("...")`,
// without the function wrapper.
void format_rel_time(std::string& out, double secs);
void format_abs_time(std::string& out, int64_t secs, int32_t offset);

std::string to_string(const Value& v);
std::string to_string(const Expr* e);

}  // namespace kite::classad
