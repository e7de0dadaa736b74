# Machine profile: QEMU's raspi3b (BCM2837, Cortex-A53) with Debian's arm64
# kernel and the package's bcm2837-rpi-3-b.dtb. Its BCM2835 DMA controller
# (QEMU hw/dma/bcm2835_dma.c) is memcpy-capable under Linux's bcm2835-dma
# (CONFIG_DMA_BCM2835=y): the kernel's dmatest runs on it. See x86.sh for
# the variables. The board's reset (the PM watchdog) does not end qemu 7.2
# ("Reboot failed -- System halted"): the host stops qemu after the verdict.
# The kernel cache is virt-arm64's: the same module directories.
M_ARCH=arm64
M_META=linux-image-6.12-arm64
M_QEMU=qemu-system-aarch64
M_QEMU_USER=qemu-aarch64
M_MODDIRS="kernel/crypto kernel/arch/arm64/crypto kernel/lib/crypto"
M_MODULES=""
M_DTB=broadcom/bcm2837-rpi-3-b.dtb
M_EXIT=marker
M_CONSOLE=ttyAMA0

machine_args() {
    # raspi3b has exactly 1 GiB.
    echo "-M raspi3b -m 1024 -accel tcg"
}

machine_suite() {
    cpu=""
    extra=""
    case "$1" in
        # dmatest kmallocs its buffers: Debian's arm64 kernel (4 KiB pages,
        # CONFIG_ARCH_FORCE_MAX_ORDER=10) serves at most 4 MiB (PAGE_SIZE <<
        # MAX_PAGE_ORDER), so the K3 procedure's 8000000 bytes fail with
        # -ENOMEM (seen: "summary 0 tests ... (-12)"); 4 MiB is the most it takes.
        dma) extra="offload.dmatest_buf=4194304" ;;
        # The offload_dma module on bcm2835-dma (kmod-test.sh).
        kmod) extra="offload.kmod_fuzz=12" ;;
        shell) ;;
        *) return 1 ;;
    esac
}
