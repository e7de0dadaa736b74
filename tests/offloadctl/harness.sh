# Shared by the offloadctl shell tests (sourced): no OFFLOAD_* from the
# developer's environment, a scratch directory $tmp removed on exit, and the
# pass/fail tally that test_done reports and turns into the exit status.
#   . "$(dirname "$0")/harness.sh"
unset OFFLOAD_DTB OFFLOAD_BACKENDS OFFLOAD_SIM OFFLOAD_CPU_THREADS OFFLOAD_CPU_NT_THRESHOLD OFFLOAD_SIM_TRACE OFFLOAD_KCAPI_DRIVER
tmp=$(mktemp -d "${TMPDIR:-/tmp}/offloadctl-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
passes=0

ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The direct UDMA backend's reason for refusing a ring-accelerator UDMA on a
# 32-bit host (docs/fidelity.md M7); tests grep the program's output for it.
udma32_reason='a 32-bit CPU reaches 8-byte ring elements only through the ring accelerator proxy'
test_done() {
    echo "$passes passed, $fails failed"
    [ "$fails" -eq 0 ]
}
