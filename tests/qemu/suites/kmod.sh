# Suite "kmod" (sourced by the guest's /init, with its step functions): the
# offload_dma module (kmod/) on the guest's kernel. Machines whose kernel
# drives a memcpy-capable DMA controller (raspi3b's bcm2835-dma, nuri's
# pl330) run guest_offload_dma on it, then the library on it (guest_lib_dma);
# the others (the PC, arm64 virt) check
# that the module lists no channel and refuses copies, then run it all on
# the test engine offload_dma_fake (kmod/tests/fake): with the default
# geometry, with copy_align 8 and 4 KiB segments, and as a driver that
# cannot stop a channel.
kv=$(uname -r)
ko=/lib/modules/$kv/extra/offload_dma.ko
fuzz=30
small=10
quick=""
# The machine's choices (machines/*.sh, kmod): offload.kmod_fuzz= seconds of
# the random ioctl loop (a quarter of it, at least 2, for each run on the
# test engine's other configurations), offload.kmod_quick=1 the short copy
# table.
for w in $(cat /proc/cmdline); do
    case "$w" in
        offload.kmod_fuzz=*) fuzz=${w#*=}; small=$(( fuzz / 4 > 2 ? fuzz / 4 : 2 )) ;;
        offload.kmod_quick=1) quick=--quick ;;
    esac
done
params=""
drv=$(basename "$(readlink /sys/class/dma/dma0chan0/device/driver 2>/dev/null)" 2>/dev/null)
# QEMU 7.2's BCM2835 DMA model (hw/dma/bcm2835_dma.c, bcm2835_dma_update())
# moves 4 bytes per step and counts the length down by 4 in a uint32_t: any
# other length runs on through memory. The hardware takes byte lengths, so
# Linux states no copy_align; here the module is told to keep to 4.
[ "$drv" = bcm2835-dma ] && params="align_min=4"
step "modprobe offload_dma $params" modprobe offload_dma $params
if [ -n "$(ls /sys/class/dma 2>/dev/null)" ]; then
    echo "DMA channels of this kernel: $(ls /sys/class/dma | tr '\n' ' ')"
    step "guest_offload_dma on the kernel's DMA engines" \
        guest_offload_dma --module "$ko" --fuzz "$fuzz" $quick
    # The library on the module (its dmaengine backend; the CPU, with its
    # checks skipped and saying so, in a library without it), on the live
    # device tree; then the timeout with the module's default at 1 ms and
    # one descriptor per round (a copy then takes many rounds).
    if command -v guest_lib_dma >/dev/null; then
        step_may_skip "guest_lib_dma: liboffload on the kernel's DMA engines" \
            guest_lib_dma $quick
        step "offload_dma again with timeout_ms=1 round_descs=1" \
            sh -c "rmmod offload_dma && modprobe offload_dma $params timeout_ms=1 round_descs=1"
        step_may_skip "guest_lib_dma --timeout" guest_lib_dma --timeout $quick
    fi
else
    step "guest_offload_dma without a DMA engine" \
        guest_offload_dma --expect-chans 0 --module "$ko" --fuzz "$small"
    step "modprobe offload_dma_fake" modprobe offload_dma_fake
    step "guest_offload_dma on the test engine" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --fuzz "$fuzz"
    # The library on the module and the test engine (its dmaengine backend).
    if command -v guest_dmaengine >/dev/null; then
        step "guest_dmaengine: liboffload through offload_dma on the test engine" guest_dmaengine
    fi
    step "the test engine with copy_align 8 and 4 KiB segments" \
        sh -c 'rmmod offload_dma_fake && modprobe offload_dma_fake copy_align=3 max_seg=4096 chans=3'
    step "guest_offload_dma on copy_align 8" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --quick --fuzz "$small"
    # A driver that cannot stop a channel (no device_terminate_all: ioat,
    # idxd, mv_xor, dpaa2-qdma): copies end early only between rounds.
    step "the test engine without device_terminate_all" \
        sh -c 'rmmod offload_dma_fake && modprobe offload_dma_fake terminate=0'
    step "guest_offload_dma on an engine that cannot stop" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --quick --fuzz "$small"
    step "rmmod offload_dma_fake" rmmod offload_dma_fake
fi
step "rmmod offload_dma" rmmod offload_dma
