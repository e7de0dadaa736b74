#!/bin/sh
# scripts/test.sh ends with its verdict (scripts/verdict.py): the last line
# counts the tests passed, failed and skipped, each skip's reason above it
# (ctest alone shows only "Skipped"), and the clang build -- which runs
# before the tests -- is part of it. Checked on a small ctest project with a
# passing, a failing, a skipped and a partly skipped test.
#   check_verdict.sh SOURCE_DIR CMAKE CTEST
set -u
src=$1
cmake=$2
ctest=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offload-verdict.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir "$tmp/p"
cat >"$tmp/p/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.16)
project(verdict NONE)
enable_testing()
add_test(NAME good COMMAND sh -c "echo fine")
add_test(NAME broken COMMAND sh -c "echo broken; exit 1")
add_test(NAME noqemu COMMAND sh -c "echo 'starting'; echo 'SKIP: qemu-system-x86_64 is not installed'; exit 77")
set_tests_properties(noqemu PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME partly COMMAND sh -c "echo 'SKIP digital_twins: no board trees'; echo ok")
EOC
"$cmake" -S "$tmp/p" -B "$tmp/b" >/dev/null || { echo "FAIL: cmake"; exit 1; }
"$ctest" --test-dir "$tmp/b" --output-junit "$tmp/j.xml" >/dev/null 2>&1
python3 "$src/scripts/verdict.py" "$tmp/j.xml" --step "clang -Werror build=ok" >"$tmp/out"
rc=$?
[ "$rc" -eq 1 ] || bad "a failed test: exit $rc, expected 1"
last=$(tail -n 1 "$tmp/out")
[ "$last" = "test.sh: 2 passed, 1 failed, 1 skipped of 4 tests; clang -Werror build: ok" ] ||
    bad "last line: $last"
grep -qx "skipped noqemu: qemu-system-x86_64 is not installed" "$tmp/out" || bad "skip reason: $(cat "$tmp/out")"
grep -qx "FAILED  broken" "$tmp/out" || bad "failed test not named: $(cat "$tmp/out")"
grep -qx "partly  partly: SKIP digital_twins: no board trees" "$tmp/out" || bad "partial skip: $(cat "$tmp/out")"

# all passing, and a failed clang build
sed -i 's/exit 1")/exit 0")/' "$tmp/p/CMakeLists.txt"
"$cmake" -S "$tmp/p" -B "$tmp/b" >/dev/null
"$ctest" --test-dir "$tmp/b" --output-junit "$tmp/j.xml" >/dev/null 2>&1
python3 "$src/scripts/verdict.py" "$tmp/j.xml" --step "clang -Werror build=ok" >"$tmp/out" || bad "all passed: exit $?"
python3 "$src/scripts/verdict.py" "$tmp/j.xml" --step "clang -Werror build=FAILED" >"$tmp/out" && bad "clang failed: exit 0"
tail -n 1 "$tmp/out" | grep -qx "test.sh: 3 passed, 0 failed, 1 skipped of 4 tests; clang -Werror build: FAILED" ||
    bad "clang failed: $(tail -n 1 "$tmp/out")"
# no report at all (ctest did not get that far) is a verdict too
python3 "$src/scripts/verdict.py" "$tmp/none.xml" >"$tmp/out" && bad "no report: exit 0"
tail -n 1 "$tmp/out" | grep -q "^test.sh: no test results" || bad "no report: $(tail -n 1 "$tmp/out")"

# scripts/test.sh: the clang build before ctest, the verdict last
t="$src/scripts/test.sh"
clang_at=$(grep -n 'CC=clang cmake' "$t" | head -n 1 | cut -d: -f1)
ctest_at=$(grep -n '^ *ctest --test-dir "\$dir"' "$t" | head -n 1 | cut -d: -f1)
verdict_at=$(grep -n 'scripts/verdict.py' "$t" | tail -n 1 | cut -d: -f1)
[ -n "$clang_at" ] && [ -n "$ctest_at" ] && [ "$clang_at" -lt "$ctest_at" ] ||
    bad "test.sh: the clang build (line $clang_at) does not run before the tests (line $ctest_at)"
[ -n "$verdict_at" ] && [ "$verdict_at" -gt "$ctest_at" ] || bad "test.sh: no verdict after the tests"
grep -q -- '--output-junit' "$t" || bad "test.sh: ctest keeps no JUnit report for the verdict"
[ "$fails" -eq 0 ] && echo "ok: the verdict counts and explains"
exit "$fails"
