# shellcheck shell=bash
# The one helper library of all tests (tests/host/, tests/vm/, tests/tool/),
# sourced as . "$(dirname "$0")/../lib.sh". A test prints what it checks
# and ends with pass (exit 0), fail (exit 1) or skip (exit 77, ctest's
# SKIP_RETURN_CODE) and the reason: one line on stdout, after the output
# it printed.
set -u

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LONGPIN=${LONGPIN:-$REPO/build/longpin}
VMDIR=$REPO/vm
# shellcheck disable=SC2034 # used by the tests that source this file
LPVM=$VMDIR/longpin-vm
CACHE=${LONGPIN_CACHE:-${HOME:-}/.cache/longpin}	# as longpin-vm

pass() { echo "PASS: $*"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# $T: the test's temp dir, removed at exit after the on_exit commands
# (last registered first). Tests that boot guests (tests/vm/, tests/tool/)
# keep it under the cache, beside longpin-vm's own temp dirs ($CACHE/tmp);
# the host tests under $TMPDIR.
case $(basename "$(cd "$(dirname "$0")" && pwd)") in
vm | tool) T=$(mkdir -p "$CACHE/tmp" && mktemp -d "$CACHE/tmp/test.XXXXXX") ;;
*) T=$(mktemp -d "${TMPDIR:-/tmp}/longpin-test.XXXXXX") ;;
esac
_cleanups=()
cleanup() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[i]}"; done
	rm -rf "$T"
}
trap cleanup EXIT
on_exit() { _cleanups+=("$*"); }

is_root() { [ "$(id -u)" = 0 ]; }

# csv_get FILE ROW COLUMN: the value of COLUMN (by header name) in data
# row ROW (1 = first after the header).
csv_get() {
	awk -F, -v row="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		NR == row + 1 { if (c) print $c; else print "NO-COLUMN-" col }' "$1"
}

# csv_awk FILE [AWK-OPTIONS...] PROGRAM: awk -F, -v OFS=, PROGRAM on FILE,
# where col(NAME) is the number of the header's column NAME: read and set
# fields by name ($col("verdict")), never by position. PROGRAM sees the
# header (NR == 1) too. An unknown NAME prints a message and exits 2 (an
# END rule's own exit wins, so leave those out). -F'\t' -v OFS='\t'
# after FILE reads a TSV.
csv_awk() {
	local f=$1 prog=${!#}
	awk -F, -v OFS=, "${@:2:$#-2}" '
		function col(n) {
			if (!(n in _col)) { print "csv_awk: no column " n " in " FILENAME >"/dev/stderr"; exit 2 }
			return _col[n]
		}
		NR == 1 { for (_i = 1; _i <= NF; _i++) { _h = $_i; sub(/\r$/, "", _h); _col[_h] = _i } }
		'"$prog" "$f"
}

# csv_cols FILE COLUMN...: the named columns of every data row, a line
# per row, separated by spaces.
csv_cols() {
	local f=$1
	shift
	csv_awk "$f" -v names="$*" '
		NR == 1 { n = split(names, w, " "); for (j = 1; j <= n; j++) k[j] = col(w[j]); next }
		{ s = $k[1]; for (j = 2; j <= n; j++) s = s " " $k[j]; print s }'
}

# The fio importer (tests/host/fio.sh, tests/vm/fio.sh): its CSV rows
# are found by the fio pair that their note names.
# conv ARGS...: $J/fio2csv.sh (J: the fio-jobs directory), stdout in
# $T/out, stderr in $T/err, status in $rc
conv() {
	echo "+ fio2csv.sh $*"
	rc=0
	"$J/fio2csv.sh" "$@" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
}
# col CSV PAIR COLUMN: COLUMN of the row whose note names the fio pair PAIR
col() {
	awk -F, -v p=",fio $2 mem=" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		index($0, p) { print (k ? $k : "NO-COLUMN-" c) }' "$1"
}
want() { # CSV PAIR COLUMN VALUE
	local v; v=$(col "$1" "$2" "$3")
	[ "$v" = "$4" ] || fail "$2: $3 is '$v', want '$4'"
}
is_num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

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

# free_hugepages: 2 MiB pages free and not reserved by another mapping
free_hugepages() {
	awk '/HugePages_Free/ {f=$2} /HugePages_Rsvd/ {r=$2} END {print f-r}' /proc/meminfo
}

# reserve_hugepages N: make N 2 MiB pages free (root), restored at exit.

reserve_hugepages() {
	local need=$1 f=/proc/sys/vm/nr_hugepages old free
	[ -w "$f" ] || skip "needs $need free huge pages and root to reserve them"
	old=$(cat "$f")
	free=$(free_hugepages)
	[ "$free" -ge "$need" ] && return 0
	echo $((old + need - free)) >"$f"
	on_exit "echo $old > $f"
	free=$(free_hugepages)
	[ "$free" -ge "$need" ] || skip "could reserve only $free of $need huge pages (memory too fragmented)"
}

# no_leftovers DIR: no longpin temp file remains in DIR.
no_leftovers() {
	local left
	left=$(find "$1" -maxdepth 1 \( -name 'longpin.??????' -o -name 'longpin-target.??????' \) 2>/dev/null)
	[ -z "$left" ] || fail "left behind: $left"
}

# need_qemu: skip without QEMU.
need_qemu() {
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install -y qemu-system-x86)"
}
# contract_of KERNEL: the contract KERNEL's rows must be judged by (1: none).
# patched-6.12 answers as upstream 6.12 does; it only keeps the data of
# linux-6.5+'s reclaim rows, known defects that pass when they do not show.
contract_of() {
	case $1 in
	stock | debian-6.1) echo linux-6.1 ;;
	stock-6.12 | patched-6.12 | debian-6.12) echo linux-6.5+ ;;
	patched | patched-*) echo longpin ;;
	*) return 1 ;;
	esac
}

# keeps_data KERNEL: does KERNEL dirty fixed buffers when it unpins them
# (every kernel with one of our series: patched*, patched-6.12)? Its
# reclaim rows must then keep the data, even where its contract (6.12's
# linux-6.5+) lists the loss as a known defect.
keeps_data() { [[ $1 == patched* ]]; }

# need_kernel NAME: fail on a name that longpin-vm does not know (its one
# list: longpin-vm kernels --names), skip when its sources cannot be had.
need_kernel() {
	"$LPVM" kernels --names | grep -qxF -- "$1" || fail "unknown kernel '$1'"
	case $1 in
	debian-*)
		command -v apt-get >/dev/null || skip "no apt-get to fetch $1" ;;
	*-6.12)
		[[ -f /usr/src/linux-source-6.12.tar.xz ]] || skip "no /usr/src/linux-source-6.12.tar.xz (apt-get install -y --no-install-recommends linux-source-6.12)" ;;
	stock | patched*)
		[[ -f /usr/src/linux-source-6.1.tar.xz ]] || skip "no /usr/src/linux-source-6.1.tar.xz (apt-get install -y linux-source-6.1)" ;;
	esac
}
