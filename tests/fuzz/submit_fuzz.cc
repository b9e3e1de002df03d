// libFuzzer target for the submit description language: arbitrary text as a submit file, run in
// a scratch submit directory (job.sh, items.txt, inc.sub, sub/). It must never crash, hang or
// leak, and every value it writes must read back as a ClassAd expression.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "policy/classad/parser.h"
#include "policy/submit/submit.h"

namespace {

void put(const std::string& path, const char* text, int mode) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) std::abort();
  std::fputs(text, f);
  std::fclose(f);
  chmod(path.c_str(), mode);
}

std::string scratch_dir;

// The submit language only reads, so the scratch tree holds just what scratch() wrote.
void remove_scratch() {
  for (const char* f : {"/job.sh", "/items.txt", "/inc.sub"}) unlink((scratch_dir + f).c_str());
  rmdir((scratch_dir + "/sub").c_str());
  rmdir(scratch_dir.c_str());
}

const std::string& scratch() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/kite-submit-fuzz-XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    std::string d = tmpl;
    put(d + "/job.sh", "#!/bin/sh\n", 0755);
    put(d + "/items.txt", "a 1\nb 2\n# c\n\nd 4\n", 0644);
    put(d + "/inc.sub", "request_cpus = 2\n+FromInclude = true\n", 0644);
    mkdir((d + "/sub").c_str(), 0755);
    scratch_dir = d;
    std::atexit(remove_scratch);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  kite::submit::Options opts;
  opts.cwd = scratch();
  opts.user = "fuzz";
  opts.filesystem_domain = "example.org";
  opts.max_procs = 200;
  kite::submit::Result r;
  kite::submit::Status st = kite::submit::submit_text(text, "fuzz.sub", opts, &r);
  if (!st.ok && st.message.empty()) __builtin_trap();  // every error says what went wrong
  for (size_t i = 0; i < r.procs.size(); ++i) {
    for (const kite::submit::Attr& a : r.merged(i)) {
      kite::classad::ParseError err;
      if (!kite::classad::parse_expr(a.value, &err)) {
        std::fprintf(stderr, "unreadable value %s = %s (%s)\n", a.name.c_str(), a.value.c_str(),
                     err.to_string().c_str());
        __builtin_trap();
      }
    }
  }
  return 0;
}
