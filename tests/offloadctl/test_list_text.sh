#!/bin/sh
# offloadctl list / doctor in text mode: device-tree strings cannot reach the
# terminal as control sequences, and the built-in virtual board says what it
# is at the top.
#   test_list_text.sh OFFLOADCTL DTC
set -u
ctl=$1
dtc=$2
. "$(dirname "$0")/harness.sh"
esc=$(printf '\033')
bel=$(printf '\007')

# A tree whose strings carry terminal escapes (a clear-screen, a colour, a title).
cat >"$tmp/evil.dts" <<'EOD'
/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	crypto@1000 {
		compatible = "inside-secure,safexcel-eip97ies", "\x1b]0;pwned\x07";
		reg = <0x1000 0x1000>;
		status = "\x1b[2J\x1b[31mred";
	};
};
EOD
"$dtc" -q -I dts -O dtb -o "$tmp/evil.dtb" "$tmp/evil.dts" || { echo "FAIL: dtc"; exit 1; }

for cmd in list doctor; do
    "$ctl" --dtb "$tmp/evil.dtb" $cmd >"$tmp/$cmd.out" 2>"$tmp/$cmd.err"
    if grep -q "[$esc$bel]" "$tmp/$cmd.out"; then bad "$cmd: raw control characters in the text output"; fi
    grep -qF '\x1b[2J\x1b[31mred' "$tmp/$cmd.out" || bad "$cmd: the status is not shown escaped"
done
grep -qF 'status:     \x1b[2J\x1b[31mred' "$tmp/list.out" || bad "list: status line"
# JSON escapes by its own rules (\u001b).
"$ctl" --dtb "$tmp/evil.dtb" --json list >"$tmp/json.out"
grep -qF '"status": "\u001b[2J\u001b[31mred"' "$tmp/json.out" || bad "list --json: status"

# The built-in virtual board, in place of a device tree this machine lacks.
if "$ctl" --dtb builtin list >/dev/null 2>&1; then
    "$ctl" --dtb builtin list >"$tmp/b.out"
    head -n 1 "$tmp/b.out" | grep -q '^note: the built-in virtual board: every engine is simulated' ||
        bad "list --dtb builtin: no note on the first line"
    if [ ! -r /sys/firmware/fdt ]; then
        "$ctl" list >"$tmp/auto.out"
        head -n 1 "$tmp/auto.out" | grep -q '^note: no device tree on this machine: showing the built-in virtual board (simulated engines, labelled sim); operations run on the CPU unless --sim$' ||
            bad "list (auto): no fallback note on the first line"
        "$ctl" doctor >"$tmp/auto-doc.out"
        head -n 1 "$tmp/auto-doc.out" | grep -q '^note: no device tree on this machine' ||
            bad "doctor (auto): no fallback note"
        if grep -qF "$udma32_reason" "$tmp/b.out"; then
            # a 32-bit build refuses the board's UDMA (docs/fidelity.md M7): no udma-memcpy finding
            grep -q '^[a-z]* (sim): ' "$tmp/auto-doc.out" || bad "doctor (auto, 32-bit): no finding labelled sim"
        else
            grep -q '^info (sim): .*\[udma-memcpy\]$' "$tmp/auto-doc.out" || bad "doctor (auto): finding not labelled sim"
        fi
        grep -q '^    action:   (simulated device: this advice is for the SoC being modelled' "$tmp/auto-doc.out" ||
            bad "doctor (auto): advice not labelled as for the modelled SoC"
        "$ctl" --json list | grep -q '"dt_fallback": true,' || bad "list --json (auto): dt_fallback"
        # usable, but not what calls without a device get: list says so on its own line
        grep -A1 '^    usable:     yes: .*not chosen automatically' "$tmp/auto.out" |
            grep -q '^    automatic:  no: its model stands in only because this machine has no device tree; calls without a device run on the CPU' ||
            bad "list (auto): no 'automatic: no' line under a fallback model"
        "$ctl" --json list >"$tmp/auto.json"
        python3 - "$tmp/auto.json" <<'EOP' || bad "list --json (auto): automatic fields"
import json, sys
d = json.load(open(sys.argv[1]))
for dev in d["devices"]:
    if dev["sim"]:
        assert dev["usable"] is True and dev["automatic"] is False, dev
        assert dev["automatic_reason"].startswith("no: its model stands in"), dev["automatic_reason"]
    elif dev["name"] == "cpu":
        assert dev["automatic"] is True, dev
EOP
        "$ctl" --sim list | grep -q '^    automatic:  yes: calls without a device may go to it' ||
            bad "list --sim (auto): the models asked for are automatic"
    fi
    # the board asked for: its models are what calls without a device get
    grep -q '^    automatic:  yes: calls without a device may go to it' "$tmp/b.out" ||
        bad "list --dtb builtin: no 'automatic: yes' line"
    "$ctl" --dtb builtin list --csv 2>/dev/null | head -n 1 | grep -q ',usable_reason,automatic$' ||
        bad "list --csv: automatic column"
fi
"$ctl" --dtb none list >"$tmp/none.out"
head -n 1 "$tmp/none.out" | grep -q '^device tree: none$' || bad "list --dtb none: a note where none is due"

[ "$fails" -eq 0 ] || exit 1
echo "ok: text output escaped; the virtual board is announced"
