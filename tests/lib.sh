# Shared helpers of the harness tests (sourced). A test prints what it
# checks, exits 0 on pass, 1 on failure, 77 to skip with a printed reason.
set -u

LONGPIN=${LONGPIN:-$(dirname "$0")/../../build/longpin}
T=$(mktemp -d "${TMPDIR:-/tmp}/longpin-test.XXXXXX")
_cleanups=()
cleanup() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[i]}"; done
	rm -rf "$T"
}
trap cleanup EXIT
on_exit() { _cleanups+=("$*"); }

pass() { echo "PASS: $*"; exit 0; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

is_root() { [ "$(id -u)" = 0 ]; }

# csv_get FILE ROW COLUMN: the value of COLUMN (by header name) in data
# row ROW (1 = first after the header).
csv_get() {
	awk -F, -v row="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		NR == row + 1 { if (c) print $c; else print "NO-COLUMN-" col }' "$1"
}

# run_longpin ARGS...: runs longpin, stdout+stderr in $T/out, status in $rc.
# PREFIX=(cmd ...) runs longpin under cmd (prlimit, setpriv).
PREFIX=()
run_longpin() {
	echo "+ ${PREFIX[*]} longpin $*"
	rc=0
	"${PREFIX[@]}" "$LONGPIN" "$@" >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
}

# fs_of DIR: file system type name of DIR.
fs_of() { stat -f -c %T "$1"; }

# reserve_hugepages N: make N 2 MiB pages free (root), restored at exit.
reserve_hugepages() {
	local need=$1 f=/proc/sys/vm/nr_hugepages old free
	[ -w "$f" ] || skip "needs $need free huge pages and root to reserve them"
	old=$(cat "$f")
	free=$(awk '/HugePages_Free/ {f=$2} /HugePages_Rsvd/ {r=$2} END {print f-r}' /proc/meminfo)
	[ "$free" -ge "$need" ] && return 0
	echo $((old + need - free)) >"$f"
	on_exit "echo $old > $f"
	free=$(awk '/HugePages_Free/ {f=$2} /HugePages_Rsvd/ {r=$2} END {print f-r}' /proc/meminfo)
	[ "$free" -ge "$need" ] || skip "could reserve only $free of $need huge pages (memory too fragmented)"
}

# no_leftovers DIR: no longpin temp file remains in DIR.
no_leftovers() {
	local left
	left=$(find "$1" -maxdepth 1 \( -name 'longpin.??????' -o -name 'longpin-target.??????' \) 2>/dev/null)
	[ -z "$left" ] || fail "left behind: $left"
}
