// HTCondor's argument and environment string syntaxes (V1 "old" and V2 "new"), shared by the
// ClassAd functions that convert them (envV1ToV2, mergeEnvironment, argsToList, listToArgs)
// and by the starter, which builds a job's argv and environment from them.
// HTCONDOR: condor_submit "arguments" and "environment"; classad-builtin-functions
// "envV1ToV2", "mergeEnvironment".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kite::classad {

/// V2 arguments: blanks separate words, '...' quotes (a doubled '' inside is one '), quoting
/// may start mid-word, '' alone is an empty word. False with a message on an unbalanced quote.
bool args_split_v2(std::string_view s, std::vector<std::string>* out, std::string* err);
/// V1 arguments: split on blanks, no quoting.
std::vector<std::string> args_split_v1(std::string_view s);
/// Appends `arg` to a V2 string, a blank before it when `out` is not empty; blanks and ' are
/// quoted one run at a time (a'b c' stays one quoted run), an empty word is ''.
void args_append_v2(std::string_view arg, std::string* out);
/// V1 arguments joined by blanks; false (naming the word) when a word holds a blank.
bool args_join_v1(const std::vector<std::string>& args, std::string* out, std::string* err);

/// A set of environment variables, kept sorted by name (bytewise) as HTCondor keeps them;
/// setting a name again replaces its value.
class Environment {
 public:
  struct Var {
    std::string name;
    std::string value;
    bool has_value = true;  // false: an unexpanded $$() entry kept verbatim, with no '='
  };

  void set(std::string_view name, std::string_view value);
  /// Sets only if `name` is not there yet.
  void set_default(std::string_view name, std::string_view value);
  const std::string* get(std::string_view name) const;
  const std::vector<Var>& vars() const { return vars_; }
  /// "NAME=value" strings in name order (entries without a value are left out).
  std::vector<std::string> entries() const;

  /// One "NAME=value" entry; a name holding "$$" with no '=' is kept as is. False with a
  /// message for an empty entry, a missing '=' or an empty name.
  bool set_entry(std::string_view entry, std::string* err);
  /// V2 environment: entries as V2 arguments.
  bool merge_v2(std::string_view s, std::string* err);
  /// V1 environment: entries separated by ';' or a newline, leading blanks dropped, empty
  /// entries skipped. A first character that is one of HTCondor's permitted delimiters
  /// (!#$%&*+,-/:;<>?@^`|~ or 0x1f) names the delimiter instead.
  bool merge_v1(std::string_view s, std::string* err);
  /// The non-empty entries of a V1 environment string, split as merge_v1 splits them.
  static std::vector<std::string_view> split_v1(std::string_view s);
  /// The V2 string: entries in name order, each quoted as args_append_v2 does.
  std::string to_v2() const;

 private:
  /// Index of `name`, or where it would go.
  size_t position(std::string_view name) const;
  void put(std::string_view name, std::string_view value, bool has_value);
  std::vector<Var> vars_;
};

}  // namespace kite::classad
