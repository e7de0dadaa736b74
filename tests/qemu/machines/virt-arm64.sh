# Machine profile: QEMU's generic arm64 machine (virt) with Debian's arm64
# kernel (an uncompressed Image: no firmware needed). See x86.sh for the
# variables. -cpu max has the crypto extensions (AES, PMULL, SHA-1/2/512);
# pauth-impdef=on replaces the architected pointer-authentication algorithm
# (QARMA, slow to emulate) with QEMU's own: 5 s to /init instead of 10-27 s.
# virt has no isa-debug-exit: a virtio console's testdev chardev gives the
# same exit code (the guest writes "<rc>q" to /dev/hvc0; virtio_console and
# virtio_pci are built in, virtio_mmio is a module, so the PCI transport).
M_ARCH=arm64
M_META=linux-image-6.12-arm64
M_QEMU=qemu-system-aarch64
M_QEMU_USER=qemu-aarch64
M_MODDIRS="kernel/crypto kernel/arch/arm64/crypto kernel/lib/crypto"
M_MODULES="af_alg algif_skcipher algif_aead algif_hash algif_rng crypto_user gcm ghash-generic
    des_generic libdes gf128mul crypto_null cbc ctr ecb hmac md5 sha1_generic sha256_generic
    sha512_generic aes-ce-blk aes-ce-cipher aes-ce-ccm aes-neon-blk ghash-ce sha1-ce sha2-ce
    sha256-arm64 sha512-ce sha512-arm64 crypto_simd cryptd"
M_DTB=dump
M_EXIT=testdev
M_CONSOLE=ttyAMA0
# The reserved-memory region machine_dtb adds: 16 MiB at 0x70000000 (RAM of
# the 1 GiB guest starts at 0x40000000), no-map, as a board reserves memory
# for a device (Documentation/devicetree/bindings/reserved-memory).
M_RMEM_ADDR=0x70000000
M_RMEM_SIZE=0x1000000

machine_args() {
    echo "-M virt -m 1024 -nic none -accel tcg -cpu $cpu -device virtio-serial-pci
        -device virtconsole,chardev=ctd -chardev testdev,id=ctd"
}

machine_suite() {
    cpu=max,pauth-impdef=on
    extra=""
    case "$1" in
        kcapi-ce | mem | cli | shell | selftest-*) ;;
        *) return 1 ;;
    esac
}

# A reserved-memory node (the way a board's tree reserves memory for a
# device; memmap= is x86-only) that /dev/mem reaches: no-map keeps it out of
# the kernel's linear map, so STRICT_DEVMEM lets user space map it.
machine_dtb() {
    cp "$1" "$2"
    fdtput -c "$2" /reserved-memory
    fdtput -t x "$2" /reserved-memory '#address-cells' 2
    fdtput -t x "$2" /reserved-memory '#size-cells' 2
    fdtput "$2" /reserved-memory ranges
    fdtput -c "$2" "/reserved-memory/offload@${M_RMEM_ADDR#0x}"
    fdtput -t x "$2" "/reserved-memory/offload@${M_RMEM_ADDR#0x}" reg 0 "$M_RMEM_ADDR" 0 "$M_RMEM_SIZE"
    fdtput "$2" "/reserved-memory/offload@${M_RMEM_ADDR#0x}" no-map
}
