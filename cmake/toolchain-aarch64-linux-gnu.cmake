# Cross build for 64-bit ARM (Debian arm64) with Debian's gcc-aarch64-linux-gnu:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
# See DebianCross.cmake for the sysroot and the qemu-user emulator.
set(OFFLOAD_CROSS_TRIPLET aarch64-linux-gnu)
set(OFFLOAD_CROSS_PROCESSOR aarch64)
set(OFFLOAD_CROSS_DEBIAN_ARCH arm64)
set(OFFLOAD_CROSS_QEMU aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/DebianCross.cmake)
