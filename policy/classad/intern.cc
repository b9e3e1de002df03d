// The process-wide attribute-name table (case-insensitive ids, exact spellings).
#include "policy/classad/intern.h"

#include <string>
#include <unordered_map>

namespace kite::classad {
namespace {

struct Table {
  std::unordered_map<std::string, uint32_t> ids;           // lower-case name -> id
  std::unordered_map<std::string, StringObj*> spellings;   // exact name -> string
  uint32_t next_id = 1;
};

Table& table() {
  static Table* t = [] {
    auto* tbl = new Table();  // never destroyed: names outlive every ad
    tbl->ids.emplace("my", kIdMy);
    tbl->ids.emplace("target", kIdTarget);
    tbl->next_id = 3;
    return tbl;
  }();
  return *t;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

InternedName intern_name(std::string_view name) {
  Table& t = table();
  std::string key = lower(name);
  uint32_t id;
  auto it = t.ids.find(key);
  if (it == t.ids.end()) {
    id = t.next_id++;
    t.ids.emplace(std::move(key), id);
  } else {
    id = it->second;
  }
  std::string exact(name);
  auto sit = t.spellings.find(exact);
  StringObj* s;
  if (sit == t.spellings.end()) {
    s = StringObj::make(name);
    t.spellings.emplace(std::move(exact), s);
  } else {
    s = sit->second;
  }
  return {id, s};
}

uint32_t intern_find(std::string_view name) {
  Table& t = table();
  auto it = t.ids.find(lower(name));
  return it == t.ids.end() ? 0 : it->second;
}

}  // namespace kite::classad
