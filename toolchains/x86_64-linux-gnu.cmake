# CMake toolchain: static x86_64 Linux build of Kite against build/deps/x86_64-linux-gnu.
set(KITE_TRIPLE x86_64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(KITE_QEMU_ARCH x86_64)
include(${CMAKE_CURRENT_LIST_DIR}/static-common.cmake)
