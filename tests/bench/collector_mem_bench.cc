// Memory of the collector's ad store per ad (not in CTest): 10,000 slot ads made from the real
// HTCondor 25 slot ad in the reference (185 attributes, ~5.9 kB of text), 1,250 machines x 8
// slots, each stored as the CM stores an agent's full ad (JSON text -> AdStore::update), then
// every ad merged once with the attributes that change between updates. Prints the process's
// RSS and heap growth per ad after the full ads (what a CM holds before the first merges) and
// after the merges, with PASS/FAIL against 2 kB per ad (10,000 ads in the CM's 20 MB goal of
// CM-ANCHORS.md, "collector memory holding 10,000 ads").
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

// The bytes glibc's malloc takes for a request of `n` (its header and 16-byte rounding).
double chunk(size_t n) {
  size_t c = (n + 8 + 15) & ~size_t{15};
  return static_cast<double>(c < 32 ? 32 : c);
}

// Bytes of the shared-expression table for `used` trees (8-byte slots, at most half full,
// at least 1,024).
double shared_table_bytes(size_t used) {
  size_t slots = 1024;
  while (used * 2 > slots) slots *= 2;
  return static_cast<double>(slots * sizeof(void*));
}

// Where a stored ad's heap bytes go, per ad: its ClassAd (refcount, generation, scopes, layout
// and values pointers) and its values block (bitmap, own values; integers packed in place), the
// trees only it holds (literals such as its Name, unpacked numbers, their strings, the rare
// expression), the store's records, key strings, indexes, flat key order and columns
// (AdStore::bookkeeping_bytes), the layouts and the shared-expression table shared by all, and
// what is left (malloc's slack, and anything not estimated).
void print_breakdown(const kite::collector::AdStore& store, double heap_per) {
  double n = static_cast<double>(store.size()), object = 0, block = 0, own_trees = 0;
  double unshared = 0, literals = 0, packed = 0;
  for (const auto& kv : store.ads()) {
    const kite::classad::ClassAd& ad = *kv.second.ad;
    object += chunk(sizeof(kite::classad::ClassAd));
    block += chunk(ad.own_bytes() - sizeof(kite::classad::ClassAd));
    for (size_t i = 0; i < ad.size(); ++i) {
      if (ad.packed_at(i)) {  // read without a lookup, which would unpack it
        ++packed;
        continue;
      }
      const kite::classad::Expr* e = ad.entries()[i].expr;
      if (e->refs > 1) continue;  // held with other ads (or a layout's base values)
      ++unshared;
      if (e->kind != kite::classad::ExprKind::kLiteral) {
        own_trees += 64;  // a guess for the rare expression only one ad holds
        continue;
      }
      ++literals;
      own_trees += sizeof(kite::classad::LiteralExpr);
      const kite::classad::Value& v = kite::classad::as_literal(e)->value;
      if (v.is_string())
        own_trees += (sizeof(kite::classad::StringObj) + v.as_string().size() + 7) / 8 * 8;
    }
  }
  kite::collector::StoreBytes b = store.bookkeeping_bytes();
  double layouts = static_cast<double>(kite::classad::AdLayout::interned_count() *
                                       kite::classad::AdLayout::block_bytes(184));
  double table = shared_table_bytes(kite::classad::expr_shared_count());
  double parts[] = {object / n,
                    block / n,
                    own_trees / n,
                    static_cast<double>(b.records) / n,
                    static_cast<double>(b.keys) / n,
                    static_cast<double>(b.indexes) / n,
                    static_cast<double>(b.order) / n,
                    static_cast<double>(b.columns) / n,
                    layouts / n,
                    table / n};
  const char* names[] = {"ClassAd object (incl. generation)",
                         "its values block (bitmap, own)",
                         "trees it alone holds",
                         "store records (map nodes)",
                         "store key strings",
                         "Name/Machine/State indexes",
                         "store flat key order",
                         "attribute columns (per slot)",
                         "shared layouts (estimate)",
                         "shared-expression table"};
  double sum = 0;
  std::printf("where a stored ad's %.0f heap bytes go:\n", heap_per);
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
    std::printf("  %-34s %6.0f B\n", names[i], parts[i]);
    sum += parts[i];
  }
  std::printf("  %-34s %6.0f B\n", "malloc slack and the rest", heap_per - sum);
  std::printf(
      "per ad: %.1f integers packed in place, %.1f trees only it holds (%.1f literals); shared: "
      "%zu layouts, %zu expression trees\n",
      packed / n, unshared / n, literals / n, kite::classad::AdLayout::interned_count(),
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
    const double n = static_cast<double>(store.size());
    // What a CM holds once its agents' full ads are in (bench-collector's holding figure).
    const double full_rss = static_cast<double>(kite::bench::self_rss_kib() - rss0) * 1024.0 / n;
    const double full_heap = (static_cast<double>(heap_bytes()) - static_cast<double>(heap0)) / n;
    std::printf("full_ads_rss_bytes_per_ad=%.0f\nfull_ads_heap_bytes_per_ad=%.0f\n", full_rss,
                full_heap);
    print_breakdown(store, full_heap);
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
    double rss_per = (static_cast<double>(rss1 - rss0) * 1024.0) / n;
    double heap_per = (static_cast<double>(heap1) - static_cast<double>(heap0)) / n;
    std::printf(
        "after one merge each:\nstore_rss_bytes_per_ad=%.0f\nstore_heap_bytes_per_ad=%.0f\n",
        rss_per, heap_per);
    print_breakdown(store, heap_per);
    // What reads cost: an evaluation makes a packed integer a node again, kept until the ad's
    // next update packs it (projections, JSON and the columns read it in place).
    int64_t sum = 0, v = 0;
    for (const auto& kv : store.ads()) {
      kv.second.ad->evaluate_int("MyCurrentTime", v);
      sum += v;
      kv.second.ad->evaluate_int("Memory", v);
      sum += v;
    }
    std::printf("two packed integers of every ad evaluated (sum %lld): +%.0f B heap per ad\n",
                static_cast<long long>(sum),
                (static_cast<double>(heap_bytes()) - static_cast<double>(heap1)) / n);
    std::printf("%-56s %10.0f B    (target <= 2000) %s\n",
                "ad store RSS per ad, full ads (HTCondor ~19,500 B)", full_rss,
                full_rss <= 2000 ? "PASS" : "FAIL");
    std::printf("%-56s %10.0f B    (target <= 2000) %s\n",
                "ad store RSS per ad, merged (HTCondor ~19,500 B)", rss_per,
                rss_per <= 2000 ? "PASS" : "FAIL");
  }
  return 0;
}
