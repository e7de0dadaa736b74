# Machine profile: QEMU's nuri (Samsung Exynos4210, Cortex-A9) with Debian's
# armmp kernel and the package's exynos4210-universal_c210.dtb (Nuri is the
# Universal C210 board). Its three PL330 DMA controllers (QEMU hw/dma/pl330.c)
# are memcpy-capable dmaengine channels under Linux's pl330
# (CONFIG_PL330_DMA=y): the second DMA controller of issue #17. See x86.sh.
# The console is UART2 (the tree's stdout-path serial2), qemu's third serial
# port. No exit device: the host stops qemu after the verdict. The kernel
# cache is sabrelite's: the same module directories.
M_ARCH=armhf
M_META=linux-image-6.12-armmp
M_QEMU=qemu-system-arm
M_QEMU_USER=qemu-arm
M_MODDIRS="kernel/drivers/spi"
M_MODULES=""
M_DTB=exynos4210-universal_c210.dtb
M_EXIT=marker
M_CONSOLE=ttySAC2

machine_args() {
    echo "-M nuri -accel tcg -serial null -serial null -serial mon:stdio"
}

machine_suite() {
    cpu=""
    extra=""
    case "$1" in
        # One CPU: with both, cpu1's timer stops firing under qemu 7.2 a few
        # seconds after boot (rcu_sched stall, "Possible timer handling issue
        # on cpu=1", then a hard lockup), whatever the guest runs. dmatest on
        # the PL330 is slow to emulate: small buffers, a few iterations.
        dma) extra="nosmp offload.dmatest_buf=65536 offload.dmatest_iter=5" ;;
        # The offload_dma module on the PL330 (kmod-test.sh): one CPU as
        # above; the PL330 model moves a few MB/s, so no 64 MiB copies and
        # the short copy table on the second controller (--quick).
        kmod) extra="nosmp offload.kmod_fuzz=6 offload.kmod_quick=1" ;;
        shell) ;;
        *) return 1 ;;
    esac
}
