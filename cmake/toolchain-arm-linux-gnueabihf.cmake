# Cross build for 32-bit ARM (Debian armhf: ARMv7-A, hard float) with Debian's
# gcc-arm-linux-gnueabihf:
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-arm-linux-gnueabihf.cmake
# See DebianCross.cmake for the sysroot and the qemu-user emulator.
set(OFFLOAD_CROSS_TRIPLET arm-linux-gnueabihf)
set(OFFLOAD_CROSS_PROCESSOR armv7l)
set(OFFLOAD_CROSS_DEBIAN_ARCH armhf)
set(OFFLOAD_CROSS_QEMU arm)
include(${CMAKE_CURRENT_LIST_DIR}/DebianCross.cmake)
