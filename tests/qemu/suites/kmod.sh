# Suite "kmod" (sourced by the guest's /init, with its step functions): the
# offload_dma module (kmod/) on the guest's kernel. Machines whose kernel
# drives a memcpy-capable DMA controller (raspi3b's bcm2835-dma, nuri's
# pl330) run guest_offload_dma on it; the others (the PC, arm64 virt) check
# that the module lists no channel and refuses copies, then run it all on
# the test engine offload_dma_fake (kmod/tests/fake): with the default
# geometry, with copy_align 8 and 4 KiB segments, and as a driver that
# cannot stop a channel.
kv=$(uname -r)
ko=/lib/modules/$kv/extra/offload_dma.ko
fuzz=${kmod_fuzz:-30}
step "modprobe offload_dma" modprobe offload_dma
if [ -n "$(ls /sys/class/dma 2>/dev/null)" ]; then
    echo "DMA channels of this kernel: $(ls /sys/class/dma | tr '\n' ' ')"
    step "guest_offload_dma on the kernel's DMA engines" \
        guest_offload_dma --module "$ko" --fuzz "$fuzz"
else
    step "guest_offload_dma without a DMA engine" \
        guest_offload_dma --expect-chans 0 --module "$ko" --fuzz 10
    step "modprobe offload_dma_fake" modprobe offload_dma_fake
    step "guest_offload_dma on the test engine" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --fuzz "$fuzz"
    step "the test engine with copy_align 8 and 4 KiB segments" \
        sh -c 'rmmod offload_dma_fake && modprobe offload_dma_fake copy_align=3 max_seg=4096 chans=3'
    step "guest_offload_dma on copy_align 8" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --quick --fuzz 10
    # A driver that cannot stop a channel (no device_terminate_all: ioat,
    # idxd, mv_xor, dpaa2-qdma): copies end early only between rounds.
    step "the test engine without device_terminate_all" \
        sh -c 'rmmod offload_dma_fake && modprobe offload_dma_fake terminate=0'
    step "guest_offload_dma on an engine that cannot stop" \
        guest_offload_dma --expect-driver offload_dma_fake --module "$ko" --quick --fuzz 10
    step "rmmod offload_dma_fake" rmmod offload_dma_fake
fi
step "rmmod offload_dma" rmmod offload_dma
