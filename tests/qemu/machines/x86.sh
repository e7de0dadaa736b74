# Machine profile (sourced by ../kernel-test.sh): the x86-64 PC with Debian's
# amd64 kernel. The variables and functions every profile defines:
#   M_ARCH      Debian architecture of the kernel package and the busybox
#   M_META      meta-package naming the current ABI package of the kernel
#   M_QEMU      qemu-system binary;  M_QEMU_USER  qemu-user for its programs
#               (empty: the host's own architecture)
#   M_MODDIRS   module directories (under lib/modules/<kver>/) to unpack
#   M_MODULES   modules to put in the initramfs, with their dependencies
#   M_DTB       device tree: "" none, "dump" the machine's own (-machine
#               dumpdtb), or a path under usr/lib/linux-image-<kver>/
#   M_EXIT      how the guest ends qemu: isa-debug-exit (exit code from the
#               guest), testdev (a virtio console's testdev chardev, the same
#               code) or marker (no exit device: the host stops qemu once the
#               verdict line is out; qemu's code means nothing then)
#   machine_args     qemu arguments for the machine (kernel, initrd, dtb added)
#   machine_suite SUITE  sets cpu, extra (kernel parameters) for SUITE, or
#               returns 1 for a suite this machine does not run
#   machine_dtb IN OUT   (optional) edits the device tree for the suites
M_ARCH=amd64
M_META=${OFFLOAD_QEMU_KERNEL_META:-linux-image-6.12-amd64}
M_QEMU=qemu-system-x86_64
M_QEMU_USER=
M_MODDIRS="kernel/crypto kernel/arch/x86/crypto kernel/lib/crypto kernel/drivers/crypto/virtio"
M_MODULES="af_alg algif_skcipher algif_aead algif_hash algif_rng crypto_user gcm ghash-generic
    des_generic libdes gf128mul crypto_null cbc ctr ecb hmac md5 sha1_generic sha256_generic
    sha512_generic aesni-intel sha1-ssse3 sha256-ssse3 sha512-ssse3 ghash-clmulni-intel
    des3_ede-x86_64 crypto_simd cryptd virtio_crypto crypto_engine"
M_DTB=""
M_EXIT=isa-debug-exit
M_CONSOLE=ttyS0

machine_args() {
    echo "-m 1024 -nic none -accel tcg -cpu $cpu -device isa-debug-exit,iobase=0xf4,iosize=0x04"
    # An off-CPU crypto engine for AF_ALG: QEMU's virtio-crypto with its
    # built-in backend (Linux: virtio_crypto, CONFIG_CRYPTO_DEV_VIRTIO=m).
    [ "${suite:-}" != kcapi-virtio ] ||
        echo "-object cryptodev-backend-builtin,id=cryptodev0 -device virtio-crypto-pci,id=crypto0,cryptodev=cryptodev0"
}

machine_suite() {
    cpu=qemu64
    extra=""
    case "$1" in
        # Only the generic C drivers: the x86 SIMD and assembler drivers are
        # refused (des3_ede-x86_64 would otherwise be auto-loaded for cbc(des3_ede)).
        kcapi-generic)
            extra="module_blacklist=aesni_intel,ghash_clmulni_intel,sha1_ssse3,sha256_ssse3,sha512_ssse3,des3_ede_x86_64"
            ;;
        # 16 MiB of RAM at 768 MiB turned into a region no driver claims
        # (e820 type 12), which /dev/mem maps: the reserved-memory provider's
        # stand-in for a device-tree reserved-memory node.
        dmabuf) extra="memmap=16M!0x30000000" ;;
        # TCG emulates AES-NI, PCLMULQDQ and AVX2 with -cpu max. des_generic is
        # refused so that ecb(des) is missing from this kernel (the backend must
        # then say so) while des3_ede-x86_64 still serves cbc(des3_ede).
        kcapi-accel) cpu=max; extra="module_blacklist=des_generic" ;;
        # virtio-crypto's cbc(aes) (priority 150) under AES-NI's (400).
        kcapi-virtio) cpu=max ;;
        # The offload_dma module on the test engine (kmod-test.sh): 12 s of
        # the random ioctl loop on the default engine, 3 s on the others.
        kmod) extra="offload.kmod_fuzz=12" ;;
        shell | selftest-*) ;;
        *) return 1 ;;
    esac
}
