# Shared part of Kite's static/cross toolchain files (included by
# toolchains/TRIPLE.cmake after it sets KITE_TRIPLE and CMAKE_SYSTEM_PROCESSOR):
# Debian's TRIPLE-gcc/g++, every library found only in the static prefix that
# scripts/deps builds (build/deps/TRIPLE, override with -DKITE_DEPS_PREFIX=),
# fully static links, and qemu-user as the emulator for tests of foreign targets.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${KITE_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${KITE_TRIPLE}-g++)
set(CMAKE_AR ${KITE_TRIPLE}-gcc-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${KITE_TRIPLE}-gcc-ranlib CACHE FILEPATH "")
set(CMAKE_STRIP ${KITE_TRIPLE}-strip CACHE FILEPATH "")

if(NOT KITE_DEPS_PREFIX)
  if(DEFINED ENV{KITE_DEPS_PREFIX})
    set(KITE_DEPS_PREFIX "$ENV{KITE_DEPS_PREFIX}")
  else()
    get_filename_component(KITE_DEPS_PREFIX
      "${CMAKE_CURRENT_LIST_DIR}/../build/deps/${KITE_TRIPLE}" ABSOLUTE)
  endif()
endif()
# try_compile projects re-read this file: pass the prefix along.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES KITE_DEPS_PREFIX)

# Look for libraries, headers and packages only in the static prefix (plus the
# cross compiler's own sysroot); programs on the build host.
set(CMAKE_FIND_ROOT_PATH "${KITE_DEPS_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(ENV{PKG_CONFIG_LIBDIR} "${KITE_DEPS_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(PKG_CONFIG_EXECUTABLE pkg-config CACHE FILEPATH "")

# Fully static executables: no dynamic loader, no shared libraries. One section per function
# and object so the linker drops what nothing references (also what would drag glibc's NSS in,
# such as libuv's unused uv_os_get_passwd).
#
# Linked by lld, which packs the functions and data a starter uses (toolchains/starter.order,
# written by scripts/starter-order) at the front of .text and .rodata: the kernel maps pages
# around every fault, so a starter whose code is spread over the whole image maps most of it
# (the kite target adds toolchains/starter-layout.ld for the same reason).
# Debian's cross compilers look for TRIPLE-ld.lld, which lld does not install: a directory
# holding an ld.lld link, given with -B, lets every TRIPLE-gcc find it.
set(KITE_LLD_DIR "${KITE_DEPS_PREFIX}/lld")
if(NOT EXISTS "${KITE_LLD_DIR}/ld.lld")
  if(NOT EXISTS /usr/bin/ld.lld)
    message(FATAL_ERROR "no /usr/bin/ld.lld: run scripts/setup-cross (Debian package lld)")
  endif()
  file(MAKE_DIRECTORY "${KITE_LLD_DIR}")
  file(CREATE_LINK /usr/bin/ld.lld "${KITE_LLD_DIR}/ld.lld" SYMBOLIC)
endif()
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -Wl,--gc-sections -fuse-ld=lld -B${KITE_LLD_DIR}/ \
-Wl,--symbol-ordering-file=${CMAKE_CURRENT_LIST_DIR}/starter.order -Wl,--no-warn-symbol-ordering")
# No unwind tables where nothing unwinds: the product code is built -fno-exceptions and calls no
# pthread_cancel or backtrace, so its .eh_frame (about 0.15 MiB of the image) only served
# debuggers. Code built with exceptions (the tests) keeps its tables: -fexceptions implies them.
set(KITE_SIZE_FLAGS "-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables")
set(CMAKE_C_FLAGS_INIT "${KITE_SIZE_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${KITE_SIZE_FLAGS}")

# Foreign targets run under qemu-user (Debian's qemu-user-static); static
# binaries need no sysroot. CTest and gtest_discover_tests use this.
if(NOT CMAKE_HOST_SYSTEM_PROCESSOR STREQUAL CMAKE_SYSTEM_PROCESSOR)
  # -L: the cross compiler's glibc, for what a static binary still loads at
  # run time (dlopen of a shared library, as the NVML tests do).
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${KITE_QEMU_ARCH}-static -L /usr/${KITE_TRIPLE})
endif()

# Lets the project add the tests that only make sense for a static binary.
set(KITE_STATIC_TOOLCHAIN ON)
