// `kite status|vacate|drain|off|reconfig|set --local`: admin commands for this node's agent,
// printing what HTCondor's condor_status/condor_vacate/condor_drain/condor_off print.
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "agent/cli/commands.h"
#include "agent/cli/local_client.h"
#include "policy/classad/json.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

std::string activity_time(int64_t secs) {
  if (secs < 0) secs = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld+%02lld:%02lld:%02lld", static_cast<long long>(secs / 86400),
                static_cast<long long>(secs / 3600 % 24), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  return buf;
}

std::string attr_text(const classad::ClassAd& ad, const char* name) {
  std::string s;
  if (ad.evaluate_string(name, s)) return s;
  return "";
}

// condor_status's default table and its totals.
void print_table(const std::vector<classad::AdPtr>& ads) {
  size_t state_w = 5;
  for (const auto& ad : ads) state_w = std::max(state_w, attr_text(*ad, "State").size());
  std::printf("%-34s %-10s %-8s %-*s %-8s %-6s %-7s %s\n\n", "Name", "OpSys", "Arch",
              static_cast<int>(state_w), "State", "Activity", "LoadAv", "Mem", "ActvtyTime");
  int64_t now = std::time(nullptr);
  struct Totals {
    std::string label;
    int total = 0, owner = 0, claimed = 0, unclaimed = 0, matched = 0, preempting = 0, drain = 0,
        backfill = 0, bkidle = 0;
  };
  std::vector<Totals> groups;
  Totals all;
  all.label = "Total";
  for (const auto& ad : ads) {
    double load = 0;
    int64_t mem = 0, entered = now;
    ad->evaluate_real("LoadAvg", load);
    ad->evaluate_int("Memory", mem);
    ad->evaluate_int("EnteredCurrentActivity", entered);
    std::string state = attr_text(*ad, "State"), act = attr_text(*ad, "Activity");
    std::printf("%-34s %-10s %-8s %-*s %-8s %6.3f %6lld %11s\n", attr_text(*ad, "Name").c_str(),
                attr_text(*ad, "OpSys").c_str(), attr_text(*ad, "Arch").c_str(),
                static_cast<int>(state_w), state.c_str(), act.c_str(), load,
                static_cast<long long>(mem), activity_time(now - entered).c_str());
    std::string label = attr_text(*ad, "Arch") + "/" + attr_text(*ad, "OpSys");
    Totals* g = nullptr;
    for (Totals& t : groups) {
      if (t.label == label) g = &t;
    }
    if (!g) {
      groups.push_back(Totals{});
      g = &groups.back();
      g->label = label;
    }
    for (Totals* t : {g, &all}) {
      t->total++;
      if (state == "Owner") t->owner++;
      if (state == "Claimed") t->claimed++;
      if (state == "Unclaimed") t->unclaimed++;
      if (state == "Matched") t->matched++;
      if (state == "Preempting") t->preempting++;
      if (state == "Drained") t->drain++;
      if (state == "Backfill") (act == "Idle" ? t->bkidle : t->backfill)++;
    }
  }
  std::printf("\n%14s %5s %5s %7s %9s %7s %10s %6s %8s %6s\n\n", "", "Total", "Owner", "Claimed",
              "Unclaimed", "Matched", "Preempting", "Drain", "Backfill", "BkIdle");
  auto row = [](const Totals& t) {
    std::printf("%14s %5d %5d %7d %9d %7d %10d %6d %8d %6d\n", t.label.c_str(), t.total, t.owner,
                t.claimed, t.unclaimed, t.matched, t.preempting, t.drain, t.backfill, t.bkidle);
  };
  for (const Totals& t : groups) row(t);
  std::printf("\n");
  row(all);
}

int simple(const char* cmd, int argc, char** argv, core::Json req, const char* usage_text,
           bool (*option)(const char* arg, core::Json* req)) {
  LocalTarget t;
  bool local = false;
  for (int i = 1; i < argc; ++i) {
    if (local_option(argc, argv, &i, &t, &local)) continue;
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", usage_text);
      return 0;
    }
    if (!option || !option(argv[i], &req)) {
      std::fprintf(stderr, "kite %s: unknown argument '%s'\n%s", cmd, argv[i], usage_text);
      return 2;
    }
  }
  if (!local) return needs_local(cmd);
  core::Json reply;
  int rc = local_request(cmd, &t, req, &reply);
  if (rc == 0 && reply.has("message")) std::printf("%s\n", reply.str("message").c_str());
  return rc;
}

}  // namespace

int status_main(int argc, char** argv) {
  LocalTarget t;
  bool local = false, longform = false, json = false;
  for (int i = 1; i < argc; ++i) {
    if (local_option(argc, argv, &i, &t, &local)) continue;
    if (std::strcmp(argv[i], "-l") == 0 || std::strcmp(argv[i], "-long") == 0) {
      longform = true;
    } else if (std::strcmp(argv[i], "-json") == 0 || std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else {
      std::fprintf(stderr, "usage: kite status --local [-l] [-json] [--socket PATH] [-c CONFIG]\n");
      return 2;
    }
  }
  if (!local) return needs_local("status");
  core::Json req = core::Json::message("status");
  req.set_bool("long", longform);
  core::Json reply;
  if (local_request("status", &t, req, &reply) != 0) return 1;
  std::vector<classad::AdPtr> ads;
  const cJSON* arr = reply.child("ads");
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, arr) {
    // Each ad travels as its JSON text (agent/core/ad_json.h).
    if (!cJSON_IsString(item)) continue;
    classad::AdPtr ad = classad::classad_from_json(item->valuestring);
    if (ad) ads.push_back(std::move(ad));
  }
  if (json) {
    std::vector<const classad::ClassAd*> ptrs;
    for (const auto& a : ads) ptrs.push_back(a.get());
    std::printf("%s\n", classad::classads_to_json(ptrs, true).c_str());
  } else if (longform) {
    for (size_t i = 0; i < ads.size(); ++i) {
      std::string out;
      for (const classad::ClassAd::Entry* e : ads[i]->sorted_entries()) {
        out.append(e->name->view());
        out += " = ";
        classad::unparse_expr(out, e->expr);
        out += '\n';
      }
      std::printf("%s%s", i ? "\n" : "", out.c_str());
    }
  } else {
    print_table(ads);
  }
  return 0;
}

int vacate_main(int argc, char** argv) {
  core::Json req = core::Json::message("vacate");
  return simple("vacate", argc, argv, std::move(req), "usage: kite vacate --local [-fast] [SLOT]\n",
                [](const char* a, core::Json* r) {
                  if (std::strcmp(a, "-fast") == 0) {
                    r->set_bool("fast", true);
                  } else if (a[0] != '-') {
                    r->set("slot", a);
                  } else {
                    return false;
                  }
                  return true;
                });
}

int drain_main(int argc, char** argv) {
  core::Json req = core::Json::message("drain");
  return simple("drain", argc, argv, std::move(req),
                "usage: kite drain --local [-graceful|-quick|-fast] [-resume-on-completion] | "
                "-cancel\n",
                [](const char* a, core::Json* r) {
                  if (std::strcmp(a, "-graceful") == 0) {
                    r->set("mode", "graceful");
                  } else if (std::strcmp(a, "-quick") == 0) {
                    r->set("mode", "quick");
                  } else if (std::strcmp(a, "-fast") == 0) {
                    r->set("mode", "fast");
                  } else if (std::strcmp(a, "-resume-on-completion") == 0) {
                    r->set_bool("resume", true);
                  } else if (std::strcmp(a, "-cancel") == 0) {
                    r->set("type", "cancel-drain");
                  } else {
                    return false;
                  }
                  return true;
                });
}

int off_main(int argc, char** argv) {
  core::Json req = core::Json::message("off");
  return simple("off", argc, argv, std::move(req),
                "usage: kite off --local [-graceful|-fast|-peaceful]\n",
                [](const char* a, core::Json* r) {
                  for (const char* m : {"graceful", "fast", "peaceful"}) {
                    if (a[0] == '-' && std::strcmp(a + 1, m) == 0) {
                      r->set("mode", m);
                      return true;
                    }
                  }
                  return false;
                });
}

int reconfig_main(int argc, char** argv) {
  return simple("reconfig", argc, argv, core::Json::message("reconfig"),
                "usage: kite reconfig --local\n", nullptr);
}

int set_main(int argc, char** argv) {
  core::Json req = core::Json::message("set");
  req.set_json("attrs", core::Json(cJSON_CreateArray()));
  return simple("set", argc, argv, std::move(req),
                "usage: kite set --local [SLOT] Attr=expression...\n",
                [](const char* a, core::Json* r) {
                  const char* eq = std::strchr(a, '=');
                  if (!eq) {
                    if (a[0] == '-') return false;
                    r->set("slot", a);
                    return true;
                  }
                  cJSON* pair = cJSON_CreateArray();
                  std::string name(a, static_cast<size_t>(eq - a));
                  while (!name.empty() && name.back() == ' ') name.pop_back();
                  cJSON_AddItemToArray(pair, cJSON_CreateString(name.c_str()));
                  cJSON_AddItemToArray(pair, cJSON_CreateString(eq + 1));
                  cJSON_AddItemToArray(const_cast<cJSON*>(r->child("attrs")), pair);
                  return true;
                });
}

}  // namespace kite::cli
