#!/bin/sh
# /init of the kernel-in-the-loop guest (busybox sh). The host picks the
# suite with offload.suite= on the kernel command line and checks the final
# marker line "GUEST-TESTS-RC=<rc> <nonce>" together with qemu's exit code,
# which this script sets through the machine's exit device (offload.exit=:
# isa-debug-exit on the PC, a virtio console's testdev on arm64 virt; qemu
# exits with rc*2+1) or, on boards without one (offload.exit=marker), the
# host stops qemu after the marker line. A suite given to kernel-test.sh
# with --suite is /suites/<name>.sh, sourced here with step and step_may_skip.
# rc: 0 every step passed, 1 a step failed, 77 the kernel lacks what the
# suite needs.
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# No tmpfs on /tmp: the rootfs is writable already, and a build tree under
# /tmp (programs are at their host paths) would be hidden by it.

suite=""
nonce=""
exitdev=isa-debug-exit
dmatest_buf=8000000
dmatest_iter=50
# shellcheck disable=SC2013 # the command line is one line of words
for w in $(cat /proc/cmdline); do
    case "$w" in
        offload.suite=*) suite=${w#*=} ;;
        offload.nonce=*) nonce=${w#*=} ;;
        offload.exit=*) exitdev=${w#*=} ;;
        offload.dmatest_buf=*) dmatest_buf=${w#*=} ;;
        offload.dmatest_iter=*) dmatest_iter=${w#*=} ;;
    esac
done

rc=0
skipped=0
STEP_TIMEOUT=300

# step NAME CMD...: CMD must exit 0; 77 (skip) counts as a failure because
# the suite's kernel is known to offer what the step needs.
step() {
    name=$1
    shift
    echo "=== $name (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"
    timeout "$STEP_TIMEOUT" "$@"
    r=$?
    if [ "$r" -ne 0 ]; then
        echo "=== $name FAILED (exit code $r)"
        rc=1
    fi
}

# step_may_skip NAME CMD...: as step, but 77 means this kernel lacks the
# feature; the suite then reports 77 unless something failed.
step_may_skip() {
    name=$1
    shift
    echo "=== $name (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"
    timeout "$STEP_TIMEOUT" "$@"
    r=$?
    if [ "$r" -eq 77 ]; then
        echo "=== $name SKIPPED"
        skipped=1
    elif [ "$r" -ne 0 ]; then
        echo "=== $name FAILED (exit code $r)"
        rc=1
    fi
}

# The KATs and cross-checks on the AF_ALG backend only (the CPU backend is
# tested on the host), then the guest-only AF_ALG checks and the CLI report.
kcapi_suite() {
    OFFLOAD_BACKENDS=kcapi step "test_kat (kcapi)" test_kat
    OFFLOAD_BACKENDS=kcapi OFFLOAD_TEST_PROC_STANDIN=/data/proc_crypto_hw_standin.txt \
        step "test_crosscheck (kcapi)" test_crosscheck
    OFFLOAD_TEST_PROC_STANDIN=/data/proc_crypto_hw_standin.txt step "guest_kcapi" guest_kcapi
}

echo "guest: kernel $(uname -r) ($(uname -m)), suite ${suite:-none}, cpu flags:$(grep -m1 -o -w -e aes -e avx2 -e pclmulqdq -e sha_ni -e pmull -e sha2 -e sha512 /proc/cpuinfo | tr '\n' ' ')"
case "$suite" in
    kcapi-generic)
        export OFFLOAD_TEST_DRIVERS=generic OFFLOAD_TEST_MISSING="" OFFLOAD_TEST_ALLOW_NA=""
        kcapi_suite
        ;;
    kcapi-accel)
        export OFFLOAD_TEST_ACCEL_MODULES="aesni_intel ghash_clmulni_intel sha1_ssse3 sha256_ssse3 sha512_ssse3 des3_ede_x86_64"
        # Nothing requests the SIMD drivers without udev (pitfall 8): first
        # a context sees the generic drivers, then they are loaded under it.
        step "guest_kcapi --late-load" guest_kcapi --late-load aesni-intel sha256-ssse3
        step "modprobe accelerated drivers" modprobe -a aesni-intel ghash-clmulni-intel \
            sha1-ssse3 sha256-ssse3 sha512-ssse3 des3_ede-x86_64
        # des_generic is blacklisted on the command line: ecb(des) is missing.
        export OFFLOAD_TEST_DRIVERS=accel OFFLOAD_TEST_MISSING="ecb(des)" \
            OFFLOAD_TEST_ALLOW_NA="DES-ECB"
        kcapi_suite
        ;;
    kcapi-ce)
        # arm64: the crypto-extension drivers (aes-ce-blk: ecb/cbc/ctr-aes-ce,
        # ghash-ce: gcm-aes-ce, sha1-ce, sha2-ce, sha512-ce), loaded by hand as
        # on x86. arm64 has no accelerated DES/3DES: those stay generic.
        export OFFLOAD_TEST_ACCEL_MODULES="aes_ce_blk aes_ce_cipher ghash_ce sha1_ce sha2_ce sha512_ce"
        step "guest_kcapi --late-load" guest_kcapi --late-load aes-ce-blk sha2-ce
        step "modprobe crypto-extension drivers" modprobe -a aes-ce-blk aes-ce-cipher ghash-ce \
            sha1-ce sha2-ce sha512-ce
        export OFFLOAD_TEST_DRIVERS=accel OFFLOAD_TEST_MISSING="" OFFLOAD_TEST_ALLOW_NA="" \
            OFFLOAD_TEST_NOT_ACCEL="cbc(des3_ede)"
        kcapi_suite
        ;;
    kcapi-virtio)
        # x86 with virtio-crypto: the engine's cbc(aes) has a lower priority
        # than AES-NI's; the backend must bind the engine by its driver name.
        step "modprobe aesni-intel virtio_crypto" modprobe -a aesni-intel virtio_crypto
        # Registered, then self-tested: until the self-test is done a "type :
        # larval" entry stands beside the skcipher, whose "selftest" reads
        # "unknown" (crypto/proc.c: CRYPTO_ALG_TESTED), and a bind by the
        # driver's name does not find it, so the kernel's choice by priority
        # wins. Under load that takes seconds: wait up to 60 s.
        virtio_cbc_ready() {
            b=$(grep -A6 'driver *: virtio_crypto_aes_cbc' /proc/crypto)
            echo "$b" | grep -q 'type *: skcipher' &&
                ! echo "$b" | grep -q 'type *: larval' &&
                ! echo "$b" | grep -q 'selftest *: unknown'
        }
        for i in $(seq 1 240); do
            virtio_cbc_ready && break
            sleep 0.25
        done
        grep -B1 -A9 'driver *: virtio_crypto_aes_cbc' /proc/crypto
        step "guest_kcapi --hw" guest_kcapi --hw "cbc(aes)=virtio_crypto_aes_cbc"
        # bench cipher --ab of the two kernel drivers, each forced by name
        # (kcapi:driver=), in the A/B layout; a short run: it proves the
        # binding and the table, not the speed (TCG, not hardware figures).
        # A name the kernel lacks is refused with exit 1.
        step "bench cipher --ab virtio vs aesni" sh -c '
            offloadctl bench cipher -a aes-128-cbc --sizes 16,4096 --time 5ms --rounds 2 \
                --ab kcapi:driver=virtio_crypto_aes_cbc,kcapi:driver=cbc-aes-aesni >/tmp/ab.txt
            r=$?; cat /tmp/ab.txt; [ $r -eq 0 ] || exit 1
            grep -q "(af_alg: kcapi, virtio_crypto_aes_cbc;" /tmp/ab.txt || { echo "FAIL: A not on virtio_crypto_aes_cbc"; exit 1; }
            grep -q "(af_alg: kcapi, cbc-aes-aesni;" /tmp/ab.txt || { echo "FAIL: B not on cbc-aes-aesni"; exit 1; }
            grep -q "^change of kcapi:driver=cbc-aes-aesni vs kcapi:driver=virtio_crypto_aes_cbc" /tmp/ab.txt || { echo "FAIL: no A/B table"; exit 1; }
            offloadctl bench cipher --config kcapi:driver=virtio_crypto_aes_cbcx 2>/tmp/err
            r=$?; cat /tmp/err
            [ $r -eq 1 ] && grep -q "no crypto driver \"virtio_crypto_aes_cbcx\"" /tmp/err || { echo "FAIL: unknown driver not refused (exit $r)"; exit 1; }'
        OFFLOAD_BACKENDS=kcapi step "test_kat (kcapi)" test_kat
        ;;
    dmabuf)
        # The 6.12 kernel has the system dma-heap; one without it skips.
        step_may_skip "guest_dmabuf" guest_dmabuf
        ;;
    mem)
        # arm64: cache maintenance from EL0, udmabuf, reserved memory of the
        # device tree through /dev/mem.
        step "guest_mem" guest_mem
        ;;
    spi)
        # sabrelite: spi-imx is a module; spidev then binds the chip selects
        # the edited device tree gives it (machines/sabrelite.sh).
        step "modprobe spi-imx" modprobe spi-imx
        for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /dev/spidev0.1 ] && break; sleep 0.5; done
        step "guest_spiflash" guest_spiflash
        # spidev_test's options; the rates are the real elapsed time's (qemu:
        # not hardware figures). Nothing on chip select 1 loops data back.
        step "offloadctl bench spi" offloadctl bench spi --device /dev/spidev0.1 -s 1000000 -S 1024 -I 20 --no-verify
        # 32-bit ARM on a real kernel: /dev/mem offsets at and above 4 GiB,
        # u-dma-buf's kernel sync (the stand-ins of test_platform).
        step "test_platform" test_platform
        ;;
    dma)
        # raspi3b (bcm2835-dma) and nuri (pl330): the kernel's memcpy channels,
        # then dmatest (built from Debian's linux-source, in extra/) run by
        # offloadctl with the K3 memcpy patch discussion's parameters; its
        # summary comes from the kernel log.
        echo "dmaengine channels: $(ls /sys/class/dma | tr '\n' ' ')"
        for c in /sys/class/dma/*; do
            [ -e "$c/device/driver" ] && echo "  $(basename "$c"): $(basename "$(readlink "$c/device/driver")")"
        done | sort -u -k2 | head -5
        # The profile lowers the buffer where dmatest's kmalloc cannot have
        # 8000000 bytes (offload.dmatest_buf=).
        step "modprobe dmatest" modprobe dmatest
        step "offloadctl dmatest" offloadctl dmatest --buf-size "$dmatest_buf" --timeout 2000 \
            --iterations "$dmatest_iter" --max-channels 1
        ;;
    cli)
        # The tool on the live device tree (/sys/firmware/fdt) of this machine.
        step "offloadctl list" offloadctl list
        step "offloadctl doctor" offloadctl doctor
        step "offloadctl selftest" offloadctl selftest
        ;;
    # The harness's own checks (tests/qemu/CMakeLists.txt): each of these
    # must make kernel-test.sh fail.
    selftest-fail) step "a failing step" false ;;
    selftest-panic) echo "/init exits: the kernel panics"; exit 1 ;;
    selftest-hang) echo "the guest hangs"; while :; do sleep 60; done ;;
    selftest-noexit)
        # A verdict line, but qemu is never told (a plain poweroff exits 0).
        echo "GUEST-TESTS-RC=0 $nonce"
        poweroff -f
        ;;
    shell)
        echo "guest shell: programs in /bin, data in /data; 'poweroff -f' to leave"
        setsid cttyhack sh
        ;;
    *)
        if [ -f "/suites/$suite.sh" ]; then
            # shellcheck disable=SC1090
            . "/suites/$suite.sh"
        else
            echo "unknown suite '$suite'"
            rc=1
        fi
        ;;
esac

[ "$rc" -eq 0 ] && [ "$skipped" -eq 1 ] && rc=77
echo "=== done (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"

echo "GUEST-TESTS-RC=$rc $nonce"
# Let the UART drain before qemu is told to exit.
sync
usleep 200000
case "$exitdev" in
    isa-debug-exit)
        # shellcheck disable=SC2059 # the byte value rc, written as an octal escape
        printf "\\$(printf %03o "$rc")" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null ;;
    # QEMU's testdev chardev: "<n>q" makes qemu exit with (n << 1) | 1.
    testdev) printf '%dq' "$rc" >/dev/hvc0 ;;
esac
poweroff -f
