# Sourced by bench/*_callgrind.sh: one program's instruction count under callgrind.
#   cg_setup NAME PROG   PROG missing: exit 2; no valgrind: exit 77 (skip). Makes
#                        $cg_out, a directory removed at exit.
#   cg_ir ARG...         the instructions of one run of PROG ARG... (its callgrind
#                        output stays in $cg_out/cg until the next run)
cg_setup() {
	cg_name=$1
	cg_prog=$2
	[ -x "$cg_prog" ] || { echo "$cg_name: build $cg_prog first (cmake --build BUILD_DIR)" >&2; exit 2; }
	command -v valgrind >/dev/null || { echo "$cg_name: valgrind is not installed" >&2; exit 77; }
	cg_out=$(mktemp -d)
	trap 'rm -rf "$cg_out"' EXIT
}

cg_ir() {
	valgrind --tool=callgrind --callgrind-out-file="$cg_out/cg" "$cg_prog" "$@" \
		>"$cg_out/stdout" 2>"$cg_out/stderr" || { cat "$cg_out/stdout" "$cg_out/stderr" >&2; exit 1; }
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$cg_out/stderr"
}
