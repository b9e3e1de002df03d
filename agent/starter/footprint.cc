// Dropping the read-only segments of the running binary from the page tables.
#include "agent/starter/footprint.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace kite::starter {

void footprint_trim() {
  const auto* phdr = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
  unsigned long n = getauxval(AT_PHNUM);
  if (!phdr || n == 0) return;
  // The load bias: AT_PHDR minus the PT_PHDR address (0 for a non-PIE binary).
  uintptr_t bias = 0;
  for (unsigned long i = 0; i < n; ++i) {
    if (phdr[i].p_type == PT_PHDR) bias = reinterpret_cast<uintptr_t>(phdr) - phdr[i].p_vaddr;
  }
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (unsigned long i = 0; i < n; ++i) {
    const ElfW(Phdr)& p = phdr[i];
    if (p.p_type != PT_LOAD || (p.p_flags & PF_W)) continue;
    // Whole pages only: a page shared with a writable segment is left alone.
    uintptr_t start = (bias + p.p_vaddr + page - 1) & ~(page - 1);
    uintptr_t end = (bias + p.p_vaddr + p.p_filesz) & ~(page - 1);
    if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
  }
}

}  // namespace kite::starter
