# Shared part of the cross toolchain files (toolchain-*.cmake): Debian's cross
# compiler for OFFLOAD_CROSS_TRIPLET, a sysroot of Debian's packages for
# OFFLOAD_CROSS_DEBIAN_ARCH, pkg-config confined to it, and qemu-user as
# CMAKE_CROSSCOMPILING_EMULATOR so that ctest runs the whole suite.
#
# The sysroot: -DOFFLOAD_SYSROOT=DIR (or -DCMAKE_SYSROOT=DIR) for one you
# have; otherwise <build>/sysroot-<arch>, made (and kept up to date) at
# configure time by scripts/cross-sysroot.sh from `apt-get download` +
# `dpkg-deb -x` of the target's packages -- never installed: libfdt-dev is
# not Multi-Arch in Debian 12 and conflicts with the host's.
#
# This file is read again for every try_compile; OFFLOAD_SYSROOT is passed
# on to those (CMAKE_TRY_COMPILE_PLATFORM_VARIABLES).

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${OFFLOAD_CROSS_PROCESSOR})

# gcc by default; CC=clang (or -DCMAKE_C_COMPILER=clang) cross-compiles with
# clang for the same triplet, with the same sysroot and Debian's cross
# binutils and libgcc.
if(NOT CMAKE_C_COMPILER)
  if("$ENV{CC}" MATCHES "clang")
    set(CMAKE_C_COMPILER $ENV{CC})
  else()
    set(CMAKE_C_COMPILER ${OFFLOAD_CROSS_TRIPLET}-gcc)
  endif()
endif()
if(CMAKE_C_COMPILER MATCHES "clang")
  set(CMAKE_C_COMPILER_TARGET ${OFFLOAD_CROSS_TRIPLET})
  # Debian's cross gcc (gcc-<triplet>) provides crtbegin.o and libgcc under
  # /usr/lib/gcc-cross, which clang finds from the toolchain prefix /usr.
  set(CMAKE_C_FLAGS_INIT "--gcc-toolchain=/usr")
endif()

if(NOT OFFLOAD_SYSROOT)
  if(CMAKE_SYSROOT)
    set(OFFLOAD_SYSROOT ${CMAKE_SYSROOT})
  else()
    set(OFFLOAD_SYSROOT ${CMAKE_BINARY_DIR}/sysroot-${OFFLOAD_CROSS_DEBIAN_ARCH})
    execute_process(
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/../scripts/cross-sysroot.sh
              ${OFFLOAD_CROSS_DEBIAN_ARCH} ${OFFLOAD_SYSROOT}
      RESULT_VARIABLE _offload_sysroot_rc)
    if(NOT _offload_sysroot_rc EQUAL 0)
      message(FATAL_ERROR "cannot make the ${OFFLOAD_CROSS_DEBIAN_ARCH} sysroot "
        "(scripts/cross-sysroot.sh); run scripts/setup-debian.sh, or pass -DOFFLOAD_SYSROOT=DIR")
    endif()
  endif()
  set(OFFLOAD_SYSROOT ${OFFLOAD_SYSROOT} CACHE PATH "Target sysroot of the cross build")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES OFFLOAD_SYSROOT)
set(CMAKE_SYSROOT ${OFFLOAD_SYSROOT})

set(CMAKE_FIND_ROOT_PATH ${OFFLOAD_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE ${OFFLOAD_CROSS_TRIPLET})

# pkg-config reads only the target's .pc files and prefixes their paths.
set(ENV{PKG_CONFIG_LIBDIR}
  "${OFFLOAD_SYSROOT}/usr/lib/${OFFLOAD_CROSS_TRIPLET}/pkgconfig:${OFFLOAD_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${OFFLOAD_SYSROOT})
set(ENV{PKG_CONFIG_PATH} "")

# qemu-user runs the target's programs: ctest prefixes every test program
# with this; QEMU_LD_PREFIX (rather than -L) is inherited by the programs a
# test starts, which the tests run through the same emulator.
find_program(OFFLOAD_QEMU_USER qemu-${OFFLOAD_CROSS_QEMU})
if(OFFLOAD_QEMU_USER)
  set(CMAKE_CROSSCOMPILING_EMULATOR env QEMU_LD_PREFIX=${OFFLOAD_SYSROOT} ${OFFLOAD_QEMU_USER})
endif()
