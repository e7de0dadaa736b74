#!/bin/sh
# SPDX-License-Identifier: MIT
# The type stubs against the built module (mypy's stubtest: every name,
# signature and type the stubs declare exists at run time and vice versa),
# then docs/example.py type-checked with them under --strict.
#   check_stubs.sh PYTHON PACKAGE_DIR EXAMPLE
set -eu
py=$1 pkg=$2 example=$3
here=$(cd "$(dirname "$0")" && pwd)

if ! "$py" -c 'import mypy.stubtest' 2>/dev/null; then
    echo "SKIP: mypy is not installed for $py (python3-mypy)"
    exit 77
fi
cd "$pkg"
PYTHONPATH="$pkg" "$py" -m mypy.stubtest --allowlist "$here/stubtest-allowlist.txt" offload
MYPYPATH="$pkg" "$py" -m mypy --strict --no-incremental --cache-dir=/dev/null "$example"
