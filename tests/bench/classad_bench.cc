// ClassAd benchmark: the workloads of tests/conformance/classad/BENCH.md
// (START, job Requirements, symmetric match over 10,000 machines, parsing in
// both syntaxes), timed like the reference: 1 s warm-up, then batches until
// at least 2 s have elapsed. Prints rate, reference rate and ratio per
// workload and the peak RSS; `--json` prints one JSON object per workload.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"

using namespace kite::classad;

namespace {

const char* kStart =
    "((KeyboardIdle > 15 * 60) && (((LoadAvg - CondorLoadAvg) <= 0.3) || (State != "
    "\"Unclaimed\" && State != \"Owner\")))";
const char* kJobRequirements =
    "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Memory >= "
    "RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.Disk >= RequestDisk)";

std::string job_ad_text() {
  return std::string(
             "[ MyType = \"Job\"; TargetType = \"Machine\"; Owner = \"alice\"; User = "
             "\"alice@example.org\"; ClusterId = 1234; ProcId = 0; JobUniverse = 5; Department = "
             "\"physics\"; RequestMemory = 2048; RequestCpus = 4; RequestDisk = 1000000; "
             "ImageSize = 100000; Requirements = ") +
         kJobRequirements + "; Rank = TARGET.Memory / 1024 + TARGET.Cpus ]";
}

// The 40 attributes of machine i, as (name, value text) in BENCH.md's order.
std::vector<std::pair<std::string, std::string>> machine_attrs(long i) {
  static const char* states[] = {"Claimed", "Unclaimed", "Owner", "Matched"};
  static const char* activities[] = {"Busy", "Idle", "Idle", "Idle"};
  static const char* depts[] = {"cs", "physics", "chem", "bio"};
  char buf[128];
  std::vector<std::pair<std::string, std::string>> a;
  auto add = [&a](const char* n, std::string v) { a.emplace_back(n, std::move(v)); };
  auto quote = [](const std::string& s) { return "\"" + s + "\""; };
  long memory = 1024 * (1 + (i * 7) % 256);
  long cpus = 1 + (i * 13) % 64;
  long kbd = (i * 37 + 1200) % 3600;
  double load = ((i * 11 + 60) % 100) / 100.0;
  long entered = 1700000000 - (i * 17) % 86400;
  add("MyType", quote("Machine"));
  add("TargetType", quote("Job"));
  std::snprintf(buf, sizeof buf, "slot%ld@node%ld.example.org", i % 8 + 1, i / 8);
  add("Name", quote(buf));
  std::snprintf(buf, sizeof buf, "node%ld.example.org", i / 8);
  add("Machine", quote(buf));
  add("SlotID", std::to_string(i % 8 + 1));
  add("Arch", quote(i % 10 == 9 ? "aarch64" : "X86_64"));
  add("OpSys", quote(i % 20 == 19 ? "WINDOWS" : "LINUX"));
  add("OpSysAndVer", quote(i % 20 == 19 ? "Windows10" : "AlmaLinux9"));
  add("Memory", std::to_string(memory));
  add("Cpus", std::to_string(cpus));
  add("Disk", std::to_string(1000000 + (i * 7919) % 100000000));
  add("TotalMemory", std::to_string(memory * 8));
  add("TotalCpus", std::to_string(cpus * 8));
  add("KeyboardIdle", std::to_string(kbd));
  add("ConsoleIdle", std::to_string(kbd));
  std::snprintf(buf, sizeof buf, "%.2f", load);
  add("LoadAvg", buf);
  std::snprintf(buf, sizeof buf, "%.2f", ((i * 3) % 50) / 100.0);
  add("CondorLoadAvg", buf);
  std::snprintf(buf, sizeof buf, "%.2f", load * 8);
  add("TotalLoadAvg", buf);
  add("State", quote(states[i % 4]));
  add("Activity", quote(activities[i % 4]));
  add("EnteredCurrentState", std::to_string(entered));
  add("EnteredCurrentActivity", std::to_string(entered));
  add("LastHeardFrom", "1700000000");
  add("Mips", std::to_string(20000 + (i * 31) % 10000));
  add("KFlops", std::to_string(1000000 + (i * 101) % 1000000));
  add("HasFileTransfer", "true");
  add("HasDocker", i % 3 == 0 ? "true" : "false");
  add("CondorVersion", quote("$CondorVersion: 25.0.0 2025-01-01 BuildID: 1 $"));
  add("CondorPlatform", quote("$CondorPlatform: x86_64_AlmaLinux9 $"));
  add("UidDomain", quote("example.org"));
  add("FileSystemDomain", quote("example.org"));
  add("IsDesktop", i % 5 == 0 ? "true" : "false");
  add("SlotType", quote("Static"));
  add("Department", quote(depts[i % 4]));
  add("Rank", "(TARGET.Department =?= MY.Department) * 10");
  add("START", kStart);
  add("Requirements", "START");
  add("PREEMPT", "(Activity == \"Suspended\") && (LastHeardFrom - EnteredCurrentActivity > 600)");
  add("SUSPEND", "(KeyboardIdle < 60) || ((LoadAvg - CondorLoadAvg) > 0.3)");
  add("MaxJobRetirementTime", "0");
  return a;
}

std::string machine_new(long i) {
  std::string s = "[ ";
  auto attrs = machine_attrs(i);
  for (size_t k = 0; k < attrs.size(); ++k) {
    if (k) s += "; ";
    s += attrs[k].first + " = " + attrs[k].second;
  }
  return s + " ]";
}

std::string machine_old(long i) {
  std::string s;
  for (auto& [n, v] : machine_attrs(i)) s += n + " = " + v + "\n";
  return s;
}

AdPtr must_parse(const std::string& text) {
  ParseError err;
  AdPtr ad = parse_classad_any(text, &err);
  if (!ad) {
    std::fprintf(stderr, "bench: parse error: %s\n", err.to_string().c_str());
    std::exit(2);
  }
  return ad;
}

ExprPtr must_parse_expr(const char* text) {
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) {
    std::fprintf(stderr, "bench: parse error: %s\n", err.to_string().c_str());
    std::exit(2);
  }
  return e;
}

using Clock = std::chrono::steady_clock;

// Runs `batch` (which performs `per_batch` operations) for a 1 s warm-up, then
// until >= 2 s; returns operations per second.
template <typename F>
double measure(F&& batch, double per_batch) {
  auto start = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - start).count() < 1.0) batch();
  double ops = 0;
  start = Clock::now();
  double elapsed = 0;
  do {
    batch();
    ops += per_batch;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < 2.0);
  return ops / elapsed;
}

volatile long g_sink;

struct Result {
  const char* id;
  const char* what;
  double rate;
  double reference;
  double goal;
};

}  // namespace

int main(int argc, char** argv) {
  bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
  std::vector<Result> results;

  // (a) START, local evaluation.
  {
    AdPtr m0 = must_parse(machine_new(0));
    ExprPtr start = must_parse_expr(kStart);
    Value check = m0->evaluate_expr(start.get());
    if (!(check.is_boolean() && check.as_boolean())) {
      std::fprintf(stderr, "bench: (a) START should be true\n");
      return 1;
    }
    double rate = measure(
        [&] {
          long t = 0;
          for (int k = 0; k < 10000; ++k) {
            EvalContext ctx(m0.get());
            Value v;
            ctx.eval(start.get(), v);
            t += v.is_boolean() && v.as_boolean();
          }
          g_sink = t;
        },
        10000);
    results.push_back({"a", "START, local evaluation", rate, 2095000, 5});
  }

  // (b) job Requirements in a match.
  AdPtr job = must_parse(job_ad_text());
  {
    AdPtr m1 = must_parse(machine_new(1));
    ExprPtr req = must_parse_expr(kJobRequirements);
    MatchPair pair(*job, *m1);
    Value check = pair.evaluate_left(req.get());
    if (!(check.is_boolean() && check.as_boolean())) {
      std::fprintf(stderr, "bench: (b) Requirements should be true\n");
      return 1;
    }
    double rate = measure(
        [&] {
          long t = 0;
          for (int k = 0; k < 10000; ++k) {
            EvalContext ctx(job.get());
            Value v;
            ctx.eval(req.get(), v);
            t += v.is_boolean() && v.as_boolean();
          }
          g_sink = t;
        },
        10000);
    results.push_back({"b", "job Requirements in a match", rate, 1135000, 5});
  }

  // (c) symmetric match + both Ranks, 1 job x 10,000 machines.
  {
    std::vector<AdPtr> machines;
    machines.reserve(10000);
    for (long i = 0; i < 10000; ++i) machines.push_back(must_parse(machine_new(i)));
    long matches = 0;
    double rank_sum = 0;
    auto pass = [&] {
      matches = 0;
      rank_sum = 0;
      for (AdPtr& m : machines) {
        MatchPair pair(*job, *m);
        if (pair.left_accepts() && pair.right_accepts()) {
          ++matches;
          rank_sum += pair.left_rank() + pair.right_rank();
        }
      }
    };
    pass();
    if (matches != 5026 || rank_sum != 827648.0) {
      std::fprintf(stderr, "bench: (c) check failed: %ld matches, rank sum %.1f\n", matches,
                   rank_sum);
      return 1;
    }
    double rate = measure(pass, 10000);
    results.push_back(
        {"c", "symmetric match + both Ranks, 1 job x 10,000 machines", rate, 330500, 3});
  }

  // (d) parse, new syntax; (d-old) parse, old line syntax.
  {
    std::string text = machine_new(0);
    double rate = measure(
        [&] {
          for (int k = 0; k < 1000; ++k) {
            AdPtr ad = parse_classad(text);
            g_sink = static_cast<long>(ad->size());
          }
        },
        1000);
    results.push_back({"d", "parse the 40-attribute machine ad, new syntax", rate, 56400, 3});
    std::string old_text = machine_old(0);
    rate = measure(
        [&] {
          for (int k = 0; k < 1000; ++k) {
            AdPtr ad = parse_classad_old(old_text);
            g_sink = static_cast<long>(ad->size());
          }
        },
        1000);
    results.push_back({"d-old", "parse the same ad, old line syntax", rate, 71700, 3});
  }

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mb = ru.ru_maxrss / 1024.0;
  const double ref_rss_mb = 76.0;

  if (json) {
    for (const Result& r : results) {
      std::printf("{\"workload\": \"%s\", \"rate\": %.0f}\n", r.id, r.rate);
    }
    std::printf("{\"peak_rss_mb\": %.1f}\n", rss_mb);
    return 0;
  }
  std::printf("%-6s %-55s %14s %14s %7s %6s\n", "id", "workload", "kite/s", "htcondor/s", "ratio",
              "goal");
  for (const Result& r : results) {
    double ratio = r.rate / r.reference;
    std::printf("%-6s %-55s %14.0f %14.0f %6.2fx %5.0fx %s\n", r.id, r.what, r.rate, r.reference,
                ratio, r.goal, ratio >= r.goal ? "PASS" : "FAIL");
  }
  std::printf("peak RSS %.1f MB (HTCondor: about %.0f MB; goal under %.1f MB) %s\n", rss_mb,
              ref_rss_mb, ref_rss_mb / 3, rss_mb < ref_rss_mb / 3 ? "PASS" : "FAIL");
  return 0;
}
