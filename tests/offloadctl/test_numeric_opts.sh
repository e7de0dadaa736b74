#!/bin/sh
# Every numeric option of every offloadctl command takes digits only (and a
# K/M/G suffix where it takes a size, a fraction and an s/ms unit where it
# takes a duration), checks its range, and refuses anything else with exit
# status 2 and a sentence naming the option -- before anything is opened.
#   test_numeric_opts.sh OFFLOADCTL
set -u
ctl=$1
. "$(dirname "$0")/harness.sh"
mkdir "$tmp/sys"

# bad OPTION VALUE CMD...: offloadctl CMD... OPTION VALUE exits 2 naming OPTION
bad_value() {
    opt=$1 val=$2; shift 2
    # (a value taken by mistake must not start a long run)
    timeout 20 "$ctl" "$@" "$opt" "$val" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 2 ]; then
        bad "offloadctl $* $opt '$val' exited $got, expected 2: $(head -c 200 "$tmp/err")"
    elif ! grep -qF -- "$opt" "$tmp/err"; then
        bad "offloadctl $* $opt '$val': the message does not name $opt: $(head -c 200 "$tmp/err")"
    else
        ok
    fi
}
# good OPTION VALUE CMD...: the value is accepted (whatever the command then does,
# it is not a usage error)
good_value() {
    opt=$1 val=$2; shift 2
    "$ctl" "$@" "$opt" "$val" >"$tmp/out" 2>"$tmp/err"
    if [ $? -eq 2 ]; then bad "offloadctl $* $opt '$val' refused: $(head -c 200 "$tmp/err")"; else ok; fi
}

huge=99999999999999999999999
common="+5 ' 5' '5 ' -1 '' $huge 5x 0x10 5.5"
sizes="$common 5KX 5Q 5K5 K"
secs="+1 ' 1' -1 '' 1e3 1e999 5x 0x10 1.5h inf nan . 1.2.3"

mem="--dtb none bench memcpy --max 64"
for o in --iterations --threads --factor; do eval "for v in $common; do bad_value $o \"\$v\" $mem; done"; done
for o in --size --min --max --align; do eval "for v in $sizes; do bad_value $o \"\$v\" $mem; done"; done
eval "for v in $secs; do bad_value --time \"\$v\" $mem; done"
bad_value --threads 257 $mem
bad_value --threads 0 $mem
bad_value --align 4096 $mem
bad_value --factor 1 $mem
bad_value --size 17179869184G $mem

ci="--dtb none bench cipher"
eval "for v in $common; do bad_value --rounds \"\$v\" $ci; done"
eval "for v in $sizes; do bad_value --sizes \"\$v\" $ci; done"
for v in "16, 32" "16,+32" "16,-1" "16,$huge" "16,32x"; do bad_value --sizes "$v" $ci; done
eval "for v in $secs; do bad_value --time \"\$v\" $ci; done"

spi="--dtb none bench spi -D /nonexistent/spidev9.9"
for o in --speed --delay --bpw --iter -s -d -b -I; do eval "for v in $common; do bad_value $o \"\$v\" $spi; done"; done
for o in --size -S; do eval "for v in $sizes; do bad_value $o \"\$v\" $spi; done"; done
eval "for v in $secs; do bad_value --interval \"\$v\" $spi; done"
bad_value --bpw 33 $spi
bad_value --delay 65536 $spi
bad_value --speed 4294967296 $spi

dt="dmatest --sysfs-root $tmp/sys --log $tmp/sys/log"
for o in --iterations --max-channels --threads --timeout -i -m -t -T; do
    eval "for v in $common; do bad_value $o \"\$v\" $dt; done"; done
for o in --buf-size --transfer-size -b -s; do eval "for v in $sizes; do bad_value $o \"\$v\" $dt; done"; done
for v in +5 " 5" -2 "" $huge 5x 32 0x1; do bad_value --alignment "$v" $dt; done
eval "for v in $secs; do bad_value --wait \"\$v\" $dt; done"
bad_value --buf-size 4294967296 $dt
bad_value --threads 4294967296 $dt

# what the options do take
good_value --size 4K --dtb none bench memcpy --iterations 1
good_value --size 1MiB --dtb none bench memcpy --iterations 1
good_value --time 20ms $mem
good_value --time 0.02 $mem
good_value --sizes 16,1K $ci -a sha256 --rounds 1 --time 5ms
good_value -a -1 $dt
good_value -b 8M $dt
good_value -S 4K $spi
good_value --interval 0 $spi

test_done
