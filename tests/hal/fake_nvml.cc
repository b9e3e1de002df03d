// A fake NVML for the GPU tests: exports the NVML entry points Kite binds (hal/nvml_api.h)
// and describes two GPUs, an A100-SXM4-80GB and a T4, with values as NVML reports them for
// those boards (memory in bytes, compute capability, ECC, utilization, PCI ids).
// With KITE_FAKE_NVML_FILE set, the GPUs come from that file instead, re-read at every call
// so a test can change a GPU's load while a monitor samples it: one GPU a line,
// `UUID UTIL_PCT USED_MIB TOTAL_MIB NAME...`.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "hal/nvml_api.h"

namespace {

struct FakeGpu {
  const char* name;
  const char* uuid;
  int major, minor;
  unsigned long long total, used;
  int ecc;
  unsigned util;
  unsigned domain, bus, device;
  unsigned max_clock;
};

const FakeGpu kGpus[] = {
    {"NVIDIA A100-SXM4-80GB", "GPU-8d4c2a1e-5b3f-4e1d-9a7c-6f0b2e8d3c41", 8, 0, 85899345920ull,
     4294967296ull, 1, 37, 0, 0x07, 0, 1410},
    {"Tesla T4", "GPU-6a96bd13-70bc-6494-6d62-1b77a9a7f29f", 7, 5, 16106127360ull, 0ull, 0, 0, 0,
     0x86, 0, 1590},
};
int g_inits = 0;

// The GPUs of KITE_FAKE_NVML_FILE (their strings live in g_text).
constexpr int kMaxFileGpus = 8;
FakeGpu g_file[kMaxFileGpus];
char g_text[kMaxFileGpus][2][96];
int g_file_n = -1;  // -1: no file, use kGpus

// Re-reads KITE_FAKE_NVML_FILE (handles stay valid: the entries are rewritten in place).
void reload() {
  const char* path = std::getenv("KITE_FAKE_NVML_FILE");
  if (!path || !*path) return;
  FILE* f = std::fopen(path, "r");
  if (!f) return;
  int n = 0;
  char line[256];
  while (n < kMaxFileGpus && std::fgets(line, sizeof line, f)) {
    char uuid[96], name[96];
    unsigned util = 0;
    unsigned long long used = 0, total = 0;
    if (std::sscanf(line, "%95s %u %llu %llu %95[^\n]", uuid, &util, &used, &total, name) != 5)
      continue;
    std::strcpy(g_text[n][0], uuid);
    std::strcpy(g_text[n][1], name);
    g_file[n] = FakeGpu{g_text[n][1],
                        g_text[n][0],
                        8,
                        0,
                        total << 20,
                        used << 20,
                        1,
                        util,
                        0,
                        static_cast<unsigned>(0x10 + n),
                        0,
                        1410};
    ++n;
  }
  std::fclose(f);
  g_file_n = n;
}

int gpu_count() {
  return g_file_n >= 0 ? g_file_n : 2;
}
const FakeGpu* table() {
  return g_file_n >= 0 ? g_file : kGpus;
}

const FakeGpu* gpu(nvmlDevice_t d) {
  reload();
  for (int i = 0; i < gpu_count(); ++i) {
    const FakeGpu& g = table()[i];
    if (reinterpret_cast<const void*>(&g) == reinterpret_cast<const void*>(d)) return &g;
  }
  return nullptr;
}

nvmlReturn_t copy(char* out, unsigned len, const char* s) {
  if (std::strlen(s) + 1 > len) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::strcpy(out, s);
  return 0;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  reload();
  ++g_inits;
  return 0;
}
nvmlReturn_t nvmlShutdown(void) {
  if (g_inits == 0) return 1;  // NVML_ERROR_UNINITIALIZED
  --g_inits;
  return 0;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char* v, unsigned len) {
  return copy(v, len, "535.129.03");
}
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  *v = 12020;
  return 0;
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  if (g_inits == 0) return 1;
  *n = static_cast<unsigned>(gpu_count());
  return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* d) {
  if (i >= static_cast<unsigned>(gpu_count())) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *d = reinterpret_cast<nvmlDevice_t>(const_cast<FakeGpu*>(&table()[i]));
  return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* n, unsigned len) {
  return copy(n, len, gpu(d)->name);
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* u, unsigned len) {
  return copy(u, len, gpu(d)->uuid);
}
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) {
  *major = gpu(d)->major;
  *minor = gpu(d)->minor;
  return 0;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  m->total = gpu(d)->total;
  m->used = gpu(d)->used;
  m->free = m->total - m->used;
  return 0;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, nvmlEnableState_t* cur, nvmlEnableState_t* pend) {
  *cur = *pend = gpu(d)->ecc;
  return 0;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  u->gpu = gpu(d)->util;
  u->memory = gpu(d)->util / 2;
  return 0;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* p) {
  std::memset(p, 0, sizeof *p);
  p->domain = gpu(d)->domain;
  p->bus = gpu(d)->bus;
  p->device = gpu(d)->device;
  std::snprintf(p->busId, sizeof p->busId, "%08X:%02X:%02X.0", p->domain, p->bus, p->device);
  return 0;
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int, unsigned* clock) {
  *clock = gpu(d)->max_clock;
  return 0;
}
}
