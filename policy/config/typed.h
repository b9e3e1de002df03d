// The one typed reader of configuration values: booleans, integers and reals as HTCondor reads
// them, with errors naming the macro, its value and the file and line that defined it.
// HTCONDOR: introduction-to-configuration ("values that are expected to be numeric or boolean
// constants can be any valid ClassAd expression of operators on constants"; `if` accepts
// True/yes/1 and False/no/0).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/expr.h"
#include "policy/config/config.h"

namespace kite::config {

/// A boolean word, case-insensitive: true/false, yes/no, t/f, 1/0 (surrounding blanks allowed).
/// False when `text` is not one of them.
bool parse_bool_word(std::string_view text, bool* out);

/// A boolean value: a boolean word, else a ClassAd expression of constants that evaluates to a
/// boolean or a number (non-zero is true). False with the reason in *why otherwise.
bool parse_bool(std::string_view text, bool* out, std::string* why);
/// An integer: a ClassAd expression of constants evaluating to an integer, or to a finite real
/// (truncated toward zero) that fits in 64 bits. Literals too large for 64 bits are errors.
bool parse_int(std::string_view text, int64_t* out, std::string* why);
/// A real: a ClassAd expression of constants evaluating to a finite number.
bool parse_real(std::string_view text, double* out, std::string* why);

/// Reads macro `name` (with `<SUBSYS>.` overrides, then built-in defaults). When it is undefined
/// or its value is blank, *out is left as it is (the caller's default) and *found (if given) is
/// false. A value that does not read gives an error "<file>, line N: NAME = value: reason".
Status read_bool(const Config& cfg, std::string_view name, bool* out, bool* found = nullptr);
Status read_int(const Config& cfg, std::string_view name, int64_t* out, bool* found = nullptr,
                int64_t min = std::numeric_limits<int64_t>::min(),
                int64_t max = std::numeric_limits<int64_t>::max());
Status read_real(const Config& cfg, std::string_view name, double* out, bool* found = nullptr);
/// An expression macro (DEFRAG_RANK, ...): parsed; when undefined or blank, `dflt` is parsed
/// instead (a null `dflt` leaves *out as it is).
Status read_expr(const Config& cfg, std::string_view name, const char* dflt, classad::ExprPtr* out);

/// The same for an entry already looked up (lookup_slot/lookup_vanilla): reads `entry.name`.
Status read_bool(const Config& cfg, const Entry& entry, bool* out, bool* found = nullptr);
Status read_int(const Config& cfg, const Entry& entry, int64_t* out, bool* found = nullptr,
                int64_t min = std::numeric_limits<int64_t>::min(),
                int64_t max = std::numeric_limits<int64_t>::max());

/// A list value (STARTD_ATTRS, MACHINE_RESOURCE_NAMES, ALLOW_READ, ...): items separated by
/// commas and/or blanks, empty items dropped.
std::vector<std::string> split_list(std::string_view value);

}  // namespace kite::config
