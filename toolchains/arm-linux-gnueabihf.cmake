# CMake toolchain: static cross build of Kite for 32-bit ARMv7 hard-float (Debian's g++-arm-linux-gnueabihf).
set(KITE_TRIPLE arm-linux-gnueabihf)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(KITE_QEMU_ARCH arm)
include(${CMAKE_CURRENT_LIST_DIR}/static-common.cmake)
