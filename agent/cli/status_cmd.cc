// `kite status`: condor_status's options over ads read from a file (-ads FILE, old ClassAd
// syntax, a blank line between ads) or from this node's agent (--local).
#include <strings.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "agent/cli/status_format.h"
#include "agent/cli/status_pool.h"
#include "agent/core/files.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace kite::cli {
namespace {

const char kUsage[] =
    "usage: kite status (-pool HOST[:PORT] | -ads[:json] FILE | --local [--socket PATH] [-c "
    "CONFIG])\n"
    "         [-l] [-json] [-af[:hVlt,n] ATTR...] [-format FMT ATTR]... [-constraint EXPR]\n"
    "         [-avail] [-run] [-claimed] [-absent] [-offline] [-total] [-compact] [-state]\n"
    "         [-server] [-sort EXPR]... [-submitters] [-schedd] [-negotiator] [-collector] [-any] "
    "[NAME]...\n";

// Reads ads separated by blank lines; false with "FILE:LINE: message" in `err`.
bool read_ads_file(const std::string& path, std::vector<classad::AdPtr>* ads, std::string* err) {
  std::string text;
  if (!core::read_file(path, &text, err, 1u << 30)) return false;
  size_t pos = 0;
  int line = 1;
  while (pos < text.size()) {
    // One block: up to the next blank (or whitespace-only) line.
    size_t start = pos;
    int start_line = line;
    size_t end = pos;
    while (end < text.size()) {
      size_t nl = text.find('\n', end);
      size_t stop = nl == std::string::npos ? text.size() : nl;
      bool blank = text.find_first_not_of(" \t\r", end) >= stop;
      if (blank) break;
      end = nl == std::string::npos ? text.size() : nl + 1;
      ++line;
    }
    std::string_view block(text.data() + start, end - start);
    // Skip the blank line(s).
    pos = end;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      size_t stop = nl == std::string::npos ? text.size() : nl;
      if (text.find_first_not_of(" \t\r", pos) < stop) break;
      pos = nl == std::string::npos ? text.size() : nl + 1;
      ++line;
    }
    if (block.find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
    classad::ParseError perr;
    classad::AdPtr ad = classad::parse_classad_any(block, &perr);
    if (!ad) {
      *err = path + ":" + std::to_string(start_line + (perr.line > 0 ? perr.line - 1 : 0)) + ": " +
             perr.message;
      return false;
    }
    ads->push_back(std::move(ad));
  }
  return true;
}

bool read_json_ads_file(const std::string& path, std::vector<classad::AdPtr>* ads,
                        std::string* err) {
  std::string text;
  if (!core::read_file(path, &text, err, 1u << 30)) return false;
  classad::ParseError perr;
  if (!classad::classads_from_json(text, *ads, &perr)) {
    *err = path + ":" + std::to_string(perr.line) + ": " + perr.message;
    return false;
  }
  return true;
}

bool is(const char* arg, const char* name) {
  return arg[0] == '-' && std::strcmp(arg + 1, name) == 0;
}

}  // namespace

int status_main(int argc, char** argv) {
  LocalTarget t;
  bool local = false;
  std::string ads_file;
  std::string pool;       // -pool HOST[:PORT]: the central manager's collector
  bool ads_json = false;  // -ads:json FILE: a JSON array of ads, as -json prints
  StatusOptions o;
  auto need = [&](int i, const char* what) {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "kite status: %s requires %s\n", argv[i], what);
      return false;
    }
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (local_option(argc, argv, &i, &t, &local)) continue;
    if (is(a, "h") || is(a, "help") || std::strcmp(a, "--help") == 0) {
      std::printf("%s", kUsage);
      return 0;
    } else if (is(a, "ads") || std::strncmp(a, "-ads:", 5) == 0) {
      if (!need(i, "a file name")) return 2;
      ads_json = std::strcmp(a, "-ads:json") == 0;
      if (a[4] == ':' && !ads_json && std::strcmp(a + 5, "long") != 0) {
        std::fprintf(stderr,
                     "kite status: %s: the ads file forms are long (the default) and json\n", a);
        return 2;
      }
      ads_file = argv[++i];
    } else if (is(a, "pool")) {
      if (!need(i, "HOST[:PORT]")) return 2;
      pool = argv[++i];
    } else if (is(a, "l") || is(a, "long")) {
      o.longform = true;
    } else if (is(a, "json") || std::strcmp(a, "--json") == 0) {
      o.json = true;
    } else if (std::strncmp(a, "-af", 3) == 0 || std::strncmp(a, "-autoformat", 11) == 0) {
      const char* colon = std::strchr(a, ':');
      std::string head(a, colon ? static_cast<size_t>(colon - a) : std::strlen(a));
      if (head != "-af" && head != "-autoformat") {
        std::fprintf(stderr, "kite status: unknown argument '%s'\n%s", a, kUsage);
        return 2;
      }
      o.have_af = true;
      if (colon) o.af_opts = colon + 1;
      while (i + 1 < argc && argv[i + 1][0] != '-') o.af.push_back(argv[++i]);
      if (o.af.empty()) {
        std::fprintf(stderr, "kite status: %s requires at least one attribute\n", a);
        return 2;
      }
    } else if (is(a, "format")) {
      if (i + 2 >= argc) {
        std::fprintf(stderr, "kite status: -format requires a format and an attribute\n");
        return 2;
      }
      o.formats.push_back({argv[i + 1], argv[i + 2]});
      i += 2;
    } else if (is(a, "constraint")) {
      if (!need(i, "an expression")) return 2;
      std::string c = argv[++i];
      o.constraint = o.constraint.empty() ? c : "(" + o.constraint + ") && (" + c + ")";
    } else if (is(a, "sort")) {
      if (!need(i, "an expression")) return 2;
      o.sort.push_back(argv[++i]);
    } else if (is(a, "avail") || is(a, "available")) {
      o.mode = StatusMode::kAvail;
    } else if (is(a, "claimed")) {
      o.mode = StatusMode::kClaimed;
    } else if (is(a, "run")) {
      // condor_status 8.5.7+: a bare -run shows the schedds running jobs.
      if (o.mode != StatusMode::kClaimed) o.mode = StatusMode::kScheddRun;
    } else if (is(a, "absent")) {
      o.mode = StatusMode::kAbsent;
    } else if (is(a, "offline")) {
      o.mode = StatusMode::kOffline;
    } else if (is(a, "total")) {
      o.total_only = true;
    } else if (is(a, "compact")) {
      o.compact = true;
    } else if (is(a, "state")) {
      o.mode = StatusMode::kState;
    } else if (is(a, "server")) {
      o.mode = StatusMode::kServer;
    } else if (is(a, "submitters")) {
      o.mode = StatusMode::kSubmitters;
    } else if (is(a, "schedd")) {
      o.mode = StatusMode::kSchedd;
    } else if (is(a, "negotiator")) {
      o.mode = StatusMode::kNegotiator;
    } else if (is(a, "collector")) {
      o.mode = StatusMode::kCollector;
    } else if (is(a, "any")) {
      o.mode = StatusMode::kAny;
    } else if (a[0] != '-') {
      o.names.push_back(a);
    } else {
      std::fprintf(stderr, "kite status: unknown argument '%s'\n%s", a, kUsage);
      return 2;
    }
  }

  std::vector<classad::AdPtr> ads;
  std::vector<uint64_t> counts;  // from the CM: how many ads each stands for
  if (!ads_file.empty()) {
    std::string err;
    bool ok =
        ads_json ? read_json_ads_file(ads_file, &ads, &err) : read_ads_file(ads_file, &ads, &err);
    if (!ok) {
      std::fprintf(stderr, "kite status: %s\n", err.c_str());
      return 1;
    }
  } else if (!pool.empty()) {
    std::string err;
    if (!query_pool(pool, o, &ads, &counts, &err)) {
      std::fprintf(stderr, "kite status: %s\n", err.c_str());
      return 1;
    }
    o.filtered = true;  // the CM applied the whole constraint
  } else if (local) {
    core::Json req = core::Json::message("status");
    req.set_bool("long", true);  // the tables need more than the short ads hold
    core::Json reply;
    if (local_request("status", &t, req, &reply) != 0) return 1;
    const cJSON* item = nullptr;
    // The agent plays the collector's part here: it stamps the time the ads were heard from.
    int64_t now = std::time(nullptr);
    cJSON_ArrayForEach(item, reply.child("ads")) {
      // Each ad travels as its JSON text (agent/core/ad_json.h).
      if (!cJSON_IsString(item)) continue;
      classad::AdPtr ad = classad::classad_from_json(item->valuestring);
      if (!ad) continue;
      if (!ad->lookup("LastHeardFrom") && !ad->lookup("MyCurrentTime")) {
        ad->insert_value("LastHeardFrom", classad::Value::integer(now));
      }
      ads.push_back(std::move(ad));
    }
  } else {
    std::fprintf(stderr,
                 "kite status: give -pool HOST[:PORT] (the central manager), -ads FILE or "
                 "--local (this node's agent)\n");
    return 2;
  }
  std::string out, err;
  if (!render_status(o, ads, counts, &out, &err)) {
    std::fprintf(stderr, "kite status: %s\n", err.c_str());
    return 1;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace kite::cli
