// `kite gpu-utilization`: the GPUs monitor of `use FEATURE : GPUs` (HTCondor's
// condor_gpu_utilization, run by the agent as a WaitForExit startd cron job): samples every
// NVIDIA GPU through NVML and prints, every interval, one record per GPU with its busy seconds
// and memory peak of that interval, flushed at once. Exit status: 0 after -count reports,
// 1 when NVML is missing or fails, 2 usage.
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agent/cli/commands.h"
#include "hal/gpu_usage.h"
#include "policy/config/config.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(
      stderr,
      "usage: kite gpu-utilization [-c FILE] [-nvml LIBRARY] [-interval SECONDS]\n"
      "                            [-sample-ms MS] [-count N]\n"
      "  -c FILE          configuration file for NVML_LIBRARY (default $KITE_CONFIG,\n"
      "                   else /etc/kite/kite.conf)\n"
      "  -nvml LIBRARY    the NVML library (default NVML_LIBRARY, else libnvidia-ml.so.1)\n"
      "  -interval N      seconds between reports (default 10)\n"
      "  -sample-ms MS    milliseconds between samples (default 1000)\n"
      "  -count N         exit after N reports (default 0: run until killed)\n");
  return 2;
}

bool parse_positive(const char* text, long max, long* out) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 0 || v > max) return false;
  *out = v;
  return true;
}

double mono_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// NVML_LIBRARY from the configuration, "" if unset.
bool configured_library(const char* file, std::string* lib) {
  config::Config cfg("STARTD");
  config::Status st;
  if (file) {
    st = cfg.load_file(file);
    if (st.ok) st = cfg.finish();
  } else {
    const char* env = std::getenv("KITE_CONFIG");
    st = env && env[0] ? cfg.load_file(env) : cfg.load_main("/etc/kite/kite.conf", false);
    if (st.ok && env && env[0]) st = cfg.finish();
  }
  if (!st.ok) {
    std::fprintf(stderr, "kite gpu-utilization: configuration error: %s\n", st.message.c_str());
    return false;
  }
  std::string v;
  if (cfg.get("NVML_LIBRARY", &v)) *lib = v;
  return true;
}

}  // namespace

int gpu_utilization_main(int argc, char** argv) {
  const char* file = nullptr;
  std::string library;
  long interval = 10, sample_ms = 1000, count = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    bool ok = v != nullptr;
    if (std::strcmp(a, "-c") == 0) {
      file = v;
    } else if (std::strcmp(a, "-nvml") == 0) {
      if (v) library = v;
    } else if (std::strcmp(a, "-interval") == 0) {
      ok = ok && parse_positive(v, 86400, &interval) && interval > 0;
    } else if (std::strcmp(a, "-sample-ms") == 0) {
      ok = ok && parse_positive(v, 60000, &sample_ms) && sample_ms > 0;
    } else if (std::strcmp(a, "-count") == 0) {
      ok = ok && parse_positive(v, 1000000, &count);
    } else if (std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "kite gpu-utilization: unknown option '%s'\n", a);
      return usage();
    }
    if (!ok) {
      std::fprintf(stderr, "kite gpu-utilization: %s needs %s\n", a,
                   v ? "a whole number in range" : "a value");
      return usage();
    }
    ++i;
  }
  if (library.empty()) {
    if (!configured_library(file, &library)) return 2;
    if (library.empty()) library = "libnvidia-ml.so.1";
  }
  hal::NvmlSession nvml;
  if (hal::Status st = nvml.open(library); !st.ok) {
    std::fprintf(stderr, "kite gpu-utilization: %s\n", st.message.c_str());
    return 1;
  }
  // The first sample only starts the clock: a GPU's load before the monitor began is not
  // counted.
  hal::GpuUsageMeter meter;
  std::vector<hal::GpuUsageSample> samples;
  if (hal::Status st = nvml.sample(&samples); !st.ok) {
    std::fprintf(stderr, "kite gpu-utilization: %s\n", st.message.c_str());
    return 1;
  }
  meter.add(samples, 0);
  if (meter.gpus() == 0) {
    std::fprintf(stderr, "kite gpu-utilization: NVML (%s) reports no GPUs\n", library.c_str());
    return 1;
  }
  double last = mono_seconds(), report_at = last + static_cast<double>(interval);
  for (long reports = 0; count == 0 || reports < count;) {
    sleep_ms(std::min<long>(sample_ms, interval * 1000));
    if (hal::Status st = nvml.sample(&samples); !st.ok) {
      std::fprintf(stderr, "kite gpu-utilization: %s\n", st.message.c_str());
      return 1;
    }
    double now = mono_seconds();
    meter.add(samples, now - last);
    last = now;
    if (now + 1e-3 < report_at) continue;
    std::string text = meter.report();
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) return 1;  // the agent is gone
    report_at += static_cast<double>(interval);
    if (report_at < now) report_at = now + static_cast<double>(interval);
    ++reports;
  }
  return 0;
}

}  // namespace kite::cli
