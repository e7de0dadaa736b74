# Shared by kernel-test.sh and build-module.sh (sourced).

# The kernel tests cannot run here: skip (77), or fail where they are required
# (OFFLOAD_REQUIRE_KERNEL_TESTS=1, set by .ci/run: a missing network or
# package is a failure in CI, never a silent pass).
unavailable() {
    if [ "${OFFLOAD_REQUIRE_KERNEL_TESTS:-0}" = 1 ]; then
        echo "FAIL: $* (OFFLOAD_REQUIRE_KERNEL_TESTS=1: the kernel tests must run here)"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
