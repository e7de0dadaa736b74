#!/bin/sh
# What cache maintenance costs on the EIP97: `offloadctl bench cipher` A/B on
# the EIP97 model of the virtual board, the same tree and device with and
# without OFFLOAD_CTX_SIM_NONCOHERENT (A coherent, B non-coherent: rings and
# context records uncached, data cleaned/invalidated per request), ABBA
# rounds, the algorithms and 16..4096-byte sizes of the Armada 3720 table in
# eip97.md 6.6, which is printed beside it as a hardware reference.
#
#   sh bench/eip97_cache_ab.sh [BUILD_DIR] [ROUNDS] [TIME_MS] > bench/eip97_cache_ab.txt
#
# Everything measured here is sim: the throughput is the model's, and the time
# in cache maintenance is this CPU's cache instructions on the same lines plus
# the model's emulation copies. The calls and bytes per request are exactly
# what the library would do on a non-coherent Armada 3720.
set -eu
build=${1:-build}
rounds=${2:-5}
ms=${3:-100}
ctl=$build/src/offloadctl/offloadctl
[ -x "$ctl" ] || { echo "eip97_cache_ab: build $ctl first" >&2; exit 2; }
echo "# $ctl bench cipher --a ... --b ... (rounds $rounds, $ms ms per size per round), $(date -u +%Y-%m-%dT%H:%MZ), $(uname -m)"
exec "$ctl" bench cipher \
	--a "dtb=builtin:sim=1:device=crypto@4000000:label=coherent" \
	--b "dtb=builtin:sim=1:noncoherent=1:device=crypto@4000000:label=non-coherent" \
	-a des-ecb,aes-128-ecb,aes-128-cbc,aes-256-cbc,aes-128-gcm,md5,sha1,sha256,sha512 \
	--sizes 16,64,256,1024,1420,4096 --time "${ms}ms" --rounds "$rounds"
