// Absent and offline ads on disk (COLLECTOR_PERSISTENT_AD_LOG's job): one record per ad, a
// `#ad TYPE absent=A offline=O updated=U expires=E` line, then the ad in old ClassAd syntax,
// then a blank line. Written atomically (temp file, fsync, rename) and read back at start.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "agent/collector/ad_store.h"
#include "agent/core/files.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::collector {
namespace {

constexpr const char* kMagic = "# kite collector persistent ads v1\n";

}  // namespace

bool AdStore::save(const std::string& path, std::string* err) {
  std::string out = kMagic;
  for (const auto& kv : ads_) {
    const StoredAd& s = kv.second;
    if (!s.absent && !s.offline) continue;
    char head[160];
    std::snprintf(head, sizeof head,
                  " absent=%d offline=%d updated=%" PRId64 " expires=%" PRId64 "\n",
                  s.absent ? 1 : 0, s.offline ? 1 : 0, s.updated, s.expires);
    out += "#ad ";
    out += s.type;
    out += head;
    for (const classad::ClassAd::Entry& e : s.ad->sorted_entries()) {
      classad::unparse_attr_name(out, e.name->view());
      out += " = ";
      classad::unparse_expr(out, e.expr);
      out += '\n';
    }
    out += '\n';
  }
  if (!core::write_file_atomic(path, out, 0600, err)) return false;
  persistent_dirty_ = false;
  return true;
}

bool AdStore::load(const std::string& path, int64_t now, std::string* err) {
  std::string text;
  if (!core::read_file(path, &text, err, 256u << 20)) return false;
  if (text.compare(0, std::strlen(kMagic), kMagic) != 0) {
    *err = path + ":1: not a kite collector persistent ad file";
    return false;
  }
  size_t pos = std::strlen(kMagic);
  int line = 2;
  while (pos < text.size()) {
    size_t end = text.find("\n\n", pos);
    if (end == std::string::npos) end = text.size();
    std::string_view rec(text.data() + pos, end - pos);
    int rec_line = line;
    for (char c : rec) line += c == '\n';
    line += 2;
    pos = end + 2;
    if (rec.find_first_not_of(" \t\n") == std::string_view::npos) continue;
    size_t nl = rec.find('\n');
    std::string head(rec.substr(0, nl));
    char type[128];
    int absent = 0, offline = 0;
    int64_t updated = 0, expires = 0;
    if (std::sscanf(head.c_str(),
                    "#ad %127s absent=%d offline=%d updated=%" SCNd64 " expires=%" SCNd64, type,
                    &absent, &offline, &updated, &expires) != 5) {
      *err = path + ":" + std::to_string(rec_line) + ": bad record header '" + head + "'";
      return false;
    }
    classad::ParseError perr;
    classad::AdPtr ad = classad::parse_classad_old(
        nl == std::string_view::npos ? std::string_view() : rec.substr(nl + 1), &perr);
    if (!ad) {
      *err = path + ":" + std::to_string(rec_line + perr.line) + ": " + perr.message;
      return false;
    }
    if (expires != 0 && expires <= now) continue;  // ran out while the CM was down
    std::string name;
    if (!ad->evaluate_string("Name", name)) {
      *err = path + ":" + std::to_string(rec_line) + ": ad has no Name";
      return false;
    }
    StoredAd s;
    s.type = type;
    compact(ad.get());
    s.ad = std::move(ad);
    s.updated = updated;
    s.expires = expires;
    s.absent = absent != 0;
    s.offline = offline != 0;
    std::string key = key_of(s.type, name);
    auto old = ads_.find(key);
    if (old != ads_.end()) erase(old);
    added(ads_.emplace(std::move(key), std::move(s)).first);
  }
  persistent_dirty_ = false;
  return true;
}

}  // namespace kite::collector
