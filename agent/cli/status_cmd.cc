// `kite status`: condor_status's options over ads read from a file (-ads FILE, old ClassAd
// syntax, a blank line between ads) or from this node's agent (--local).
#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "agent/cli/status_format.h"
#include "agent/cli/status_pool.h"
#include "agent/core/files.h"
#include "policy/classad/ad_files.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

namespace kite::cli {
namespace {

const char kUsage[] =
    "usage: kite status (-pool HOST[:PORT] | -ads[:long|json|new|xml|auto] FILE | --local "
    "[--socket PATH] [-c "
    "CONFIG])\n"
    "         [-l | -json | -xml] [-attributes A,B...] [-af[:hVlt,ngrjTY] EXPR...]\n"
    "         [-format FMT EXPR]... [-constraint EXPR] [-sort EXPR|none]... [-natural:off]\n"
    "         [-limit N] [-wide[:N]] [-avail] [-run] [-claimed] [-absent] [-offline] [-total]\n"
    "         [-compact] [-state] [-server] [-submitters] [-schedd] [-negotiator] [-collector]\n"
    "         [-master] [-any] [NAME]...\n"
    "  Options may be shortened as condor_status allows (-tot, -av, -cons, -l, ...).\n";

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

// -ads:new and -ads:xml files: the forms -long:new and -xml print.
bool read_new_or_xml_ads_file(const std::string& path, bool xml, std::vector<classad::AdPtr>* ads,
                              std::string* err) {
  std::string text;
  if (!core::read_file(path, &text, err, 1u << 30)) return false;
  classad::ParseError perr;
  bool ok = xml ? classad::classads_from_xml(text, *ads, &perr)
                : classad::classads_from_new_syntax(text, *ads, &perr);
  if (!ok) *err = path + ":" + std::to_string(perr.line) + ": " + perr.message;
  return ok;
}

// -ads:auto: the form guessed from the file's first character as condor_status guesses it:
// '<' XML, '[' then '{' JSON, '[' or '{' new syntax, else the long (old) form.
char guess_ads_form(const std::string& path) {
  std::string text, err;
  if (!core::read_file(path, &text, &err, 1u << 30)) return 'l';  // the reader reports it
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string::npos) return 'l';
  if (text[i] == '<') return 'x';
  if (text[i] == '{') return 'n';
  if (text[i] != '[') return 'l';
  size_t j = text.find_first_not_of(" \t\r\n", i + 1);
  return j != std::string::npos && text[j] == '{' ? 'j' : 'n';
}

// condor_status's options, in the order it tries them, each with the fewest letters that name
// it (so -tot is -totals, -av is -avail, -l is -long; condor_status.V6/status.cpp, firstPass).
struct OptionName {
  const char* name;
  int min;
};
const OptionName kOptions[] = {
    {"avail", 2},      {"pool", 1},       {"ads", 2},       {"format", 1},     {"autoformat", 5},
    {"af", 2},         {"wide", 3},       {"natural", 3},   {"constraint", 3}, {"help", 1},
    {"limit", 2},      {"long", 1},       {"xml", 1},       {"json", 2},       {"attributes", 2},
    {"claimed", 2},    {"run", 1},        {"absent", 2},    {"offline", 2},    {"slots", 2},
    {"compact", 3},    {"nocompact", 5},  {"server", 2},    {"state", 4},      {"startd", 4},
    {"schedd", 2},     {"negotiator", 1}, {"generic", 2},   {"any", 2},        {"sort", 2},
    {"submitters", 4}, {"master", 1},     {"collector", 3}, {"world", 1},      {"totals", 1},
    {"expert", 1},
};

// The option `arg` names ("-tot" -> "totals"), with what follows a ':' in `*colon`; null
// when it names none. One or two leading dashes, as condor_status takes.
const char* option_name(const char* arg, const char** colon) {
  *colon = nullptr;
  if (arg[0] != '-') return nullptr;
  const char* word = arg + 1;
  if (*word == '-') ++word;
  const char* c = std::strchr(word, ':');
  size_t len = c ? static_cast<size_t>(c - word) : std::strlen(word);
  if (len == 0) return nullptr;
  for (const OptionName& o : kOptions) {
    if (len < static_cast<size_t>(o.min) || len > std::strlen(o.name)) continue;
    if (std::strncmp(word, o.name, len) != 0) continue;
    *colon = c ? c + 1 : nullptr;
    return o.name;
  }
  return nullptr;
}

// condor_status's choice of mode (which ads, and the table they default to) and of table style
// (setflags.cpp): a second mode argument that differs is an error; a style moves only forward
// in normal < server < state < claimed (< the daemon tables), else condor_status says so on
// stderr and keeps the style it has.
struct ModeChoice {
  StatusMode mode = StatusMode::kSlots;
  int mode_arg = 0;
  std::string mode_text;
  int style = 0;  // 1 normal, 2 server, 3 state, 4 claimed, 10 a daemon table
  int style_arg = 0;
  std::string style_text;

  void set_style(int st, int i, const char* a) {
    if (style_arg == 0 || style <= st) {
      style = st;
      style_arg = i;
      style_text = a;
    } else {
      std::fprintf(stderr, "Error:  arg %d (%s) contradicts arg %d (%s)\n", i, a, style_arg,
                   style_text.c_str());
    }
  }
  // False (after saying why) when `a` contradicts the mode already chosen.
  bool set_mode(StatusMode m, int i, const char* a) {
    if (mode_arg != 0) {
      if (mode_text == a) return true;
      std::fprintf(stderr, "Error:  Arg %d (%s) contradicts arg %d (%s)\n", i, a, mode_arg,
                   mode_text.c_str());
      return false;
    }
    mode = m;
    mode_arg = i;
    mode_text = a;
    bool slots = m == StatusMode::kSlots || m == StatusMode::kAvail;
    set_style(slots ? 1 : m == StatusMode::kClaimed ? 4 : 10, i, a);
    return true;
  }
  bool reset_mode(StatusMode m, int i, const char* a) {
    mode_arg = 0;
    return set_mode(m, i, a);
  }
};

}  // namespace

int status_main(int argc, char** argv) {
  LocalTarget t;
  bool local = false;
  std::string ads_file;
  std::string pool;  // -pool HOST[:PORT]: the central manager's collector
  // -ads:FORM FILE: 'l' long (old syntax, the default), 'j' a JSON array as -json prints,
  // 'n' new syntax as -long:new prints, 'x' XML as -xml prints, 'a' guessed from the file.
  char ads_form = 'l';
  StatusOptions o;
  ModeChoice mc;
  bool absent = false, offline = false;
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
    if (a[0] != '-') {
      o.names.push_back(a);
      continue;
    }
    const char* colon = nullptr;
    const char* name = option_name(a, &colon);
    std::string opt = name ? name : "";
    if (!name || (colon && opt != "ads" && opt != "af" && opt != "autoformat" && opt != "wide" &&
                  opt != "natural" && opt != "long")) {
      std::fprintf(stderr, "kite status: unknown argument '%s'\n%s", a, kUsage);
      return 2;
    }
    if (opt == "help") {
      std::printf("%s", kUsage);
      return 0;
    } else if (opt == "ads") {
      if (!need(i, "a file name")) return 2;
      static const char* const kForms[] = {"long", "json", "new", "xml", "auto"};
      ads_form = colon ? '\0' : 'l';
      for (const char* f : kForms)
        if (colon && std::strcmp(colon, f) == 0) ads_form = f[0] == 'j' ? 'j' : f[0];
      if (!ads_form) {
        std::fprintf(stderr,
                     "kite status: %s: the ads file forms are long (the default), json, new, xml "
                     "and auto\n",
                     a);
        return 2;
      }
      ads_file = argv[++i];
    } else if (opt == "pool") {
      if (!need(i, "HOST[:PORT]")) return 2;
      pool = argv[++i];
    } else if (opt == "long") {
      // -long:json is -json, -long:xml -xml, -long:new the new ClassAd syntax; -long:nosort is
      // taken (attributes still print sorted).
      if (colon && std::strcmp(colon, "json") == 0)
        o.json = true;
      else if (colon && std::strcmp(colon, "xml") == 0)
        o.xml = true;
      else if (colon && std::strcmp(colon, "new") == 0)
        o.longform = o.new_ads = true;  // the long form's ads, in another syntax
      else
        o.longform = true;
    } else if (opt == "json") {
      o.json = true;
    } else if (opt == "xml") {
      o.xml = true;
    } else if (opt == "attributes") {
      if (!need(i, "a list of attributes")) return 2;
      std::string list = argv[++i];
      size_t pos = 0;
      while (pos <= list.size()) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        std::string attr = list.substr(pos, comma - pos);
        attr.erase(0, attr.find_first_not_of(" \t"));
        attr.erase(attr.find_last_not_of(" \t") + 1);
        if (!attr.empty()) o.attributes.push_back(attr);
        pos = comma + 1;
      }
    } else if (opt == "af" || opt == "autoformat") {
      o.have_af = true;
      if (colon) o.af_opts = colon;
      if (i + 1 >= argc || argv[i + 1][0] == '-') {
        std::fprintf(stderr, "kite status: %s requires at least one attribute\n", a);
        return 2;
      }
      while (i + 1 < argc && argv[i + 1][0] != '-') o.af.push_back(argv[++i]);
      // A lone "-" ends the list.
      if (i + 1 < argc && std::strcmp(argv[i + 1], "-") == 0) ++i;
    } else if (opt == "format") {
      if (i + 2 >= argc) {
        std::fprintf(stderr, "kite status: -format requires a format and an attribute\n");
        return 2;
      }
      o.formats.push_back({argv[i + 1], argv[i + 2]});
      i += 2;
    } else if (opt == "wide") {
      o.wide = true;
      if (colon) {
        // -wide:N: lines are cut to N-1 columns; N of 100 or less is not wide.
        o.width = std::atoi(colon);
        if (o.width <= 100) o.wide = false;
      }
    } else if (opt == "natural") {
      o.natural = !(colon && std::strcmp(colon, "off") == 0);
    } else if (opt == "limit") {
      if (!need(i, "a number")) return 2;
      o.limit = std::atoi(argv[++i]);
    } else if (opt == "constraint") {
      if (!need(i, "an expression")) return 2;
      std::string c = argv[++i];
      o.constraint = o.constraint.empty() ? c : "(" + o.constraint + ") && (" + c + ")";
    } else if (opt == "sort") {
      if (!need(i, "an expression")) return 2;
      const char* k = argv[++i];
      if (strcasecmp(k, "false") == 0 || strcasecmp(k, "0") == 0 || strcasecmp(k, "no") == 0 ||
          strcasecmp(k, "none") == 0) {
        o.no_sort = true;
      } else {
        o.sort.push_back(k);
      }
    } else if (opt == "avail") {
      if (!mc.set_mode(StatusMode::kAvail, i, a)) return 1;
    } else if (opt == "claimed") {
      if (!mc.set_mode(StatusMode::kClaimed, i, a)) return 1;
    } else if (opt == "run") {
      // condor_status 8.5.7+: a bare -run shows the schedds running jobs; after -slots or
      // -claimed it means the claimed slots, after -schedd the schedds running jobs.
      bool ok = true;
      if (mc.mode_arg && (mc.mode == StatusMode::kSlots || mc.mode == StatusMode::kClaimed))
        ok = mc.reset_mode(StatusMode::kClaimed, i, a);
      else if (mc.mode_arg && mc.mode == StatusMode::kSchedd)
        ok = mc.reset_mode(StatusMode::kScheddRun, i, a);
      else
        ok = mc.set_mode(StatusMode::kScheddRun, i, a);
      if (!ok) return 1;
    } else if (opt == "absent") {
      absent = true;
    } else if (opt == "offline") {
      offline = true;
    } else if (opt == "totals") {
      o.total_only = true;
    } else if (opt == "compact") {
      o.compact = true;
    } else if (opt == "nocompact") {
      o.compact = false;
    } else if (opt == "slots") {
      if (!mc.set_mode(StatusMode::kSlots, i, a)) return 1;
      o.compact = false;
    } else if (opt == "state") {
      mc.set_style(3, i, a);
    } else if (opt == "server") {
      mc.set_style(2, i, a);
    } else if (opt == "submitters") {
      if (!mc.set_mode(StatusMode::kSubmitters, i, a)) return 1;
    } else if (opt == "schedd") {
      // -claimed -schedd and -run -schedd both mean the schedds running jobs.
      bool ok = true;
      if (mc.mode_arg && mc.mode == StatusMode::kClaimed)
        ok = mc.reset_mode(StatusMode::kScheddRun, i, a);
      else if (!(mc.mode_arg &&
                 (mc.mode == StatusMode::kSchedd || mc.mode == StatusMode::kScheddRun)))
        ok = mc.set_mode(StatusMode::kSchedd, i, a);
      if (!ok) return 1;
    } else if (opt == "negotiator") {
      if (!mc.set_mode(StatusMode::kNegotiator, i, a)) return 1;
    } else if (opt == "collector" || opt == "world") {
      if (!mc.set_mode(StatusMode::kCollector, i, a)) return 1;
    } else if (opt == "master") {
      if (!mc.set_mode(StatusMode::kMaster, i, a)) return 1;
    } else if (opt == "any" || opt == "generic") {
      if (!mc.set_mode(StatusMode::kAny, i, a)) return 1;
    } else if (opt == "expert") {
      // Longer error messages only; nothing to change here.
    } else {
      std::fprintf(stderr, "kite status: %s is not supported\n", a);
      return 2;
    }
  }
  if (!ads_file.empty()) o.typed = false;
  // The table: the mode's own, or -server / -state over the slots -avail (or all) selects.
  o.mode = mc.mode;
  if (mc.mode == StatusMode::kSlots || mc.mode == StatusMode::kAvail) {
    o.select = mc.mode;
    if (mc.style == 2) o.mode = StatusMode::kServer;
    if (mc.style == 3) o.mode = StatusMode::kState;
  }
  // -absent and -offline are views of the slots (their own tables in the normal style).
  if (o.mode == StatusMode::kSlots && absent) o.mode = StatusMode::kAbsent;
  if (o.mode == StatusMode::kSlots && offline) o.mode = StatusMode::kOffline;
  if (o.compact && o.total_only) {
    // As condor_status: the totals are the plain slot totals of the slots -compact shows.
    std::fprintf(stderr, "Warning: ignoring -compact option because -total option is also set\n");
  }

  std::vector<classad::AdPtr> ads;
  std::vector<uint64_t> counts;  // from the CM: how many ads each stands for
  if (!ads_file.empty()) {
    std::string err;
    if (ads_form == 'a') ads_form = guess_ads_form(ads_file);
    bool ok = ads_form == 'j'   ? read_json_ads_file(ads_file, &ads, &err)
              : ads_form == 'l' ? read_ads_file(ads_file, &ads, &err)
                                : read_new_or_xml_ads_file(ads_file, ads_form == 'x', &ads, &err);
    if (!ok) {
      std::fprintf(stderr, "kite status: %s\n", err.c_str());
      return 1;
    }
  } else if (!pool.empty()) {
    std::string err;
    o.filtered = true;  // the CM applies the whole constraint
    // The default table is drawn from the rows as they came, without an ad per row.
    std::vector<RowChunk> chunks;
    bool rows = rows_table_applies(o);
    RowsTableStream stream(o);
    if (!query_pool(pool, o, &ads, &counts, &err, rows ? &chunks : nullptr, &stream)) {
      std::fprintf(stderr, "kite status: %s\n", err.c_str());
      return 1;
    }
    if (!chunks.empty()) {
      std::string out;
      RowsFlush flush = [](std::string* part) {
        std::fwrite(part->data(), 1, part->size(), stdout);
        part->clear();
      };
      // Drawn as the rows came when they came in order; else from all of them (whose values
      // the stream did not keep).
      RowsTable drawn = RowsTable::kDone;
      if (!stream.finish(&out, flush)) {
        for (RowChunk& chunk : chunks)
          if (chunk.plain && chunk.values.empty()) read_chunk_values(&chunk);
        drawn = render_rows_table(o, chunks, &out, &err, flush);
      }
      if (drawn == RowsTable::kNotPlain)
        drawn =
            read_row_chunks(chunks, &ads, &counts, &err) ? RowsTable::kNotPlain : RowsTable::kError;
      if (drawn == RowsTable::kError) {
        std::fprintf(stderr, "kite status: the central manager's reply: %s\n", err.c_str());
        return 1;
      }
      if (drawn == RowsTable::kDone) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
      }
    }
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
