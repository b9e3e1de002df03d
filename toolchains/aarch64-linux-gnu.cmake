# CMake toolchain: static cross build of Kite for 64-bit ARM (Debian's g++-aarch64-linux-gnu).
set(KITE_TRIPLE aarch64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(KITE_QEMU_ARCH aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/static-common.cmake)
