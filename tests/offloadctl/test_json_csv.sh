#!/bin/sh
# --json is valid UTF-8 and --csv is RFC 4180 whatever the strings hold: a
# device tree whose node name and status carry bytes >= 0x80
# (invalid UTF-8, a C1 control, and well-formed UTF-8 that must survive), and
# a bench cipher label with a comma and a quote. Read back with Python's
# json.load (strict UTF-8) and csv.reader.
#   test_json_csv.sh OFFLOADCTL DTC
set -u
ctl=$1
dtc=$2
. "$(dirname "$0")/harness.sh"

# An EIP97 whose status has the invalid bytes ff fe, an e-acute (c3 a9) and a
# C1 control (U+0085 as c2 85), and, patched into the blob below (dtc takes
# no such node name), a node name with a byte ff.
cat >"$tmp/hostile.dts" <<'EOD'
/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	crypto@1000 {
		compatible = "inside-secure,safexcel-eip97ies";
		reg = <0x1000 0x1000>;
		status = "ok\xff\xfeay caf\xc3\xa9 \xc2\x85";
	};
};
EOD
"$dtc" -q -I dts -O dtb -o "$tmp/hostile.dtb" "$tmp/hostile.dts" || { echo "FAIL: dtc"; exit 1; }
python3 - "$tmp/hostile.dtb" <<'EOP' || { echo "FAIL: patching the node name"; exit 1; }
import sys
b = open(sys.argv[1], "rb").read()
assert b.count(b"crypto@1000\0") == 1
open(sys.argv[1], "wb").write(b.replace(b"crypto@1000\0", b"cr\xffpto@1000\0"))
EOP

for cmd in list doctor; do
    "$ctl" --dtb "$tmp/hostile.dtb" $cmd --json >"$tmp/$cmd.json" 2>"$tmp/err"
    rc=$?
    [ "$cmd" = doctor ] && [ "$rc" -eq 1 ] && rc=0 # a warning is fine here
    [ "$rc" -eq 0 ] || bad "$cmd --json exited $rc: $(head -c 300 "$tmp/err")"
done
python3 - "$tmp/list.json" "$tmp/doctor.json" <<'EOP' && ok || bad "list/doctor --json on a hostile tree"
import json, sys
# strict: json.load of bytes decoded as UTF-8 (errors="strict") fails on invalid UTF-8
docs = [json.loads(open(p, "rb").read().decode("utf-8")) for p in sys.argv[1:]]
devs = [d for d in docs[0]["devices"] if d["dt_path"]]
assert len(devs) == 1, devs
d = devs[0]
# each invalid byte is U+FFFD, decided and documented (offloadctl(1) OUTPUT)
# and well-formed UTF-8 is kept, its C1 control as a character (escaped as \u0085)
assert d["status"] == "ok\ufffd\ufffday caf\u00e9 \u0085", repr(d["status"])
assert d["dt_path"] == "/cr\ufffdpto@1000", repr(d["dt_path"])
assert "\ufffd" in d["name"], repr(d["name"])
assert any(f["device"] == "/cr\ufffdpto@1000" for f in docs[1]["findings"]), docs[1]["findings"]
EOP
if grep -q "$(printf '\302\205')" "$tmp/list.json"; then bad "list --json: a raw C1 control"; else ok; fi

# CSV: every row has the header's fields; the hostile strings are one field each
"$ctl" --dtb "$tmp/hostile.dtb" list --csv >"$tmp/list.csv" 2>"$tmp/err" || bad "list --csv: $(cat "$tmp/err")"
python3 - "$tmp/list.csv" <<'EOP' && ok || bad "list --csv on a hostile tree"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
head = rows[0]
assert all(len(r) == len(head) for r in rows), [len(r) for r in rows]
dev = [dict(zip(head, r)) for r in rows[1:] if r[head.index("dt_path")]][0]
assert dev["status"] == "ok\\xff\\xfeay caf\u00e9 \\xc2\\x85", dev["status"]  # as the text output shows it
EOP

# a bench cipher label with a comma and a quote stays one CSV field (RFC 4180)
if "$ctl" --dtb none dgst /dev/null >/dev/null 2>&1; then # a CPU crypto backend is built
    "$ctl" --dtb none bench cipher -a sha256 --sizes 16,64 --rounds 2 --time 1ms --csv \
        --config 'label=a,b "c"' >"$tmp/bc.csv" 2>"$tmp/err" || bad "bench cipher --csv: $(cat "$tmp/err")"
    python3 - "$tmp/bc.csv" <<'EOP' && ok || bad "bench cipher --csv with a comma in the label"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert len(rows) == 1 + 2 * 2, rows  # 2 sizes x 2 rounds
for r in rows[1:]:
    assert len(r) == len(head), (head, r)
    assert dict(zip(head, r))["config"] == 'a,b "c"', r
EOP
    "$ctl" --dtb none bench cipher -a sha256 --sizes 16 --rounds 1 --time 1ms --json \
        --config 'label=a,b "c"' >"$tmp/bc.json" 2>"$tmp/err" || bad "bench cipher --json: $(cat "$tmp/err")"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["results"][0]["config"] == "a,b \"c\"", d' \
        "$tmp/bc.json" && ok || bad "bench cipher --json with a quote in the label"
else
    echo "note: no CPU crypto backend in this build; bench cipher CSV cases not run"
fi
test_done
