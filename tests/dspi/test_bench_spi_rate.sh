#!/bin/sh
# bench spi on the DSPI model never reports a rate the wire could not carry:
# one data line clocked at SCK moves at most SCK bits per second, and the
# model's SCK is at most the speed asked (spi.h: speed_hz is a maximum;
# Linux's dspi picks the fastest divider not above it), so mean_kbps x 1000
# must stay <= max_speed_hz. Before the model was paced to its wire time the
# virtual board reported ~98 Mbit/s at 25 MHz (the host running the model).
#   test_bench_spi_rate.sh OFFLOADCTL
set -u
ctl=$1
unset OFFLOAD_DTB OFFLOAD_BACKENDS OFFLOAD_SIM
fails=0
for case in "25000000 4096 20" "1000000 512 4"; do
    set -- $case
    out=$("$ctl" --sim bench spi --device /bus@100000/spi@2100000/loopback@0 -s "$1" -S "$2" -I "$3" --json) || {
        echo "FAIL: bench spi -s $1 exited $?"; fails=$((fails + 1)); continue; }
    echo "$out" | grep -q '"backend":"dspi-sim","sim":true' || { echo "FAIL: not the DSPI model: $out"; fails=$((fails + 1)); continue; }
    kbps=$(echo "$out" | sed -n 's/.*"mean_kbps":\([0-9.]*\).*/\1/p')
    hz=$(echo "$out" | sed -n 's/.*"max_speed_hz":\([0-9]*\).*/\1/p')
    if [ -z "$kbps" ] || [ "$hz" != "$1" ]; then
        echo "FAIL: unexpected output: $out"; fails=$((fails + 1))
    elif awk -v k="$kbps" -v h="$hz" 'BEGIN { exit !(k * 1000 <= h) }'; then
        echo "ok: $kbps kbps at $hz Hz"
    else
        echo "FAIL: $kbps kbps reported at SCK $hz Hz: more than the wire carries"; fails=$((fails + 1))
    fi
done
[ "$fails" -eq 0 ]
