// Memory of the collector's ad store per ad (not in CTest): 10,000 slot ads made from the real
// HTCondor 25 slot ad in the reference (185 attributes, ~5.9 kB of text), 1,250 machines x 8
// slots, each stored as the CM stores an agent's full ad (JSON text -> AdStore::update), then
// every ad merged once with the attributes that change between updates. Prints the process's
// RSS and heap growth per ad with PASS/FAIL against 2 kB per ad (10,000 ads in the CM's
// 20 MB goal of CM-ANCHORS.md, "collector memory holding 10,000 ads").
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/collector/ad_store.h"
#include "policy/classad/expr_share.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "tests/bench/realistic_slots.h"
#include "tests/bench/self_rss.h"

namespace {

size_t heap_bytes() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Where a stored ad's heap bytes go, per ad: its ClassAd and values (ClassAd::own_bytes), the
// trees only it holds (literals such as numbers and its Name, their strings, the rare
// expression; the shared-expression table's slots for them are in the rest), the store's records,
// key and name strings, indexes and columns (AdStore::bookkeeping_bytes), the layouts and trees
// shared by all, and what is left (malloc's overhead for the ads' own blocks, and anything not
// estimated).
void print_breakdown(const kite::collector::AdStore& store, double heap_per) {
  double n = static_cast<double>(store.size()), own = 0, own_trees = 0, unshared = 0, literals = 0;
  for (const auto& kv : store.ads()) {
    const kite::classad::ClassAd& ad = *kv.second.ad;
    own += static_cast<double>(ad.own_bytes());
    for (const kite::classad::ClassAd::Entry& en : ad.entries()) {
      if (en.expr->refs > 1) continue;  // held with other ads (or a layout's base values)
      ++unshared;
      if (en.expr->kind != kite::classad::ExprKind::kLiteral) {
        own_trees += 64;  // a guess for the rare expression only one ad holds
        continue;
      }
      ++literals;
      own_trees += sizeof(kite::classad::LiteralExpr);
      const kite::classad::Value& v = kite::classad::as_literal(en.expr)->value;
      if (v.is_string())
        own_trees += (sizeof(kite::classad::StringObj) + v.as_string().size() + 7) / 8 * 8;
    }
  }
  kite::collector::StoreBytes b = store.bookkeeping_bytes();
  double shared = static_cast<double>(kite::classad::AdLayout::interned_count() *
                                      kite::classad::AdLayout::block_bytes(184));
  double parts[] = {own / n,
                    own_trees / n,
                    static_cast<double>(b.records) / n,
                    static_cast<double>(b.strings) / n,
                    static_cast<double>(b.indexes) / n,
                    static_cast<double>(b.columns) / n,
                    shared / n};
  const char* names[] = {"ClassAd and its values",     "trees it alone holds",
                         "store records (map nodes)",  "store key/name/index strings",
                         "Name/Machine/State indexes", "attribute columns",
                         "shared layouts (estimate)"};
  double sum = 0;
  std::printf("where a stored ad's %.0f heap bytes go:\n", heap_per);
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
    std::printf("  %-34s %6.0f B\n", names[i], parts[i]);
    sum += parts[i];
  }
  std::printf("  %-34s %6.0f B\n", "malloc overhead and the rest", heap_per - sum);
  std::printf(
      "trees only one ad holds, per ad %.1f (%.1f literals); shared: %zu layouts, %zu expression "
      "trees\n",
      unshared / n, literals / n, kite::classad::AdLayout::interned_count(),
      kite::classad::expr_shared_count());
}

}  // namespace

int main(int argc, char** argv) {
  std::string path =
      argc > 1 ? argv[1] : kite::bench::RealisticSlots::default_path(KITE_SOURCE_DIR);
  std::string err;
  kite::bench::RealisticSlots slots;
  if (!slots.load(path, &err)) {
    std::fprintf(stderr, "collector_mem_bench: %s (give a slot ad file as the argument)\n",
                 err.c_str());
    return 1;
  }
  const int kMachines = 1250, kSlots = 8;
  // The agents' JSON texts, made before measuring.
  std::vector<std::string> full, merges;
  full.reserve(kMachines * kSlots);
  for (int m = 0; m < kMachines; ++m) {
    char name[32];
    std::snprintf(name, sizeof name, "node%04d.example.org", m);
    for (int s = 1; s <= kSlots; ++s) {
      full.push_back(slots.full(name, s, 1000 + m * 97));
      merges.push_back(slots.delta(name, s, 1000 + m * 97));
    }
  }
  std::printf("ads=%zu attributes=%zu json_bytes_each=%zu\n", full.size(),
              kite::classad::classad_from_json(full[0])->size(), full[0].size());

  malloc_trim(0);
  long rss0 = kite::bench::self_rss_kib();
  size_t heap0 = heap_bytes();
  {
    kite::collector::AdStore store{kite::collector::StoreConfig{}};
    for (const std::string& j : full) {  // the texts stay: their memory is not the store's
      kite::classad::AdPtr ad = kite::classad::classad_from_json(j);
      if (!ad || !store.update("Machine", std::move(ad), 1000, false, &err)) {
        std::fprintf(stderr, "collector_mem_bench: update: %s\n", err.c_str());
        return 1;
      }
    }
    kite::classad::ParseError perr;
    std::vector<kite::classad::JsonAttr> attrs;
    std::string name;
    for (const std::string& j : merges) {
      if (!kite::classad::classad_json_attrs(j, attrs, &perr)) return 1;
      for (const kite::classad::JsonAttr& a : attrs)  // the text is in alphabetical order
        if (a.name.name->view() == "Name")
          name.assign(kite::classad::as_literal(a.expr)->value.as_string());
      store.merge("Machine", name, &attrs, 1001);
    }
    long rss1 = kite::bench::self_rss_kib();
    size_t heap1 = heap_bytes();
    double n = static_cast<double>(store.size());
    double rss_per = (static_cast<double>(rss1 - rss0) * 1024.0) / n;
    double heap_per = (static_cast<double>(heap1) - static_cast<double>(heap0)) / n;
    std::printf("store_rss_bytes_per_ad=%.0f\nstore_heap_bytes_per_ad=%.0f\n", rss_per, heap_per);
    print_breakdown(store, heap_per);
    std::printf("%-56s %10.0f B    (target <= 2000) %s\n",
                "ad store RSS per ad (HTCondor ~19,500 B)", rss_per,
                rss_per <= 2000 ? "PASS" : "FAIL");
  }
  return 0;
}
