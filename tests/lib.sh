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

# ran_ok WHAT: after run_longpin, 0 goes on; 77 skips with longpin's own
# reason (what it checked is missing here); anything else fails, exit 2
# (a usage error) too: a test never skips for an exit it did not expect
ran_ok() {
	case $rc in
	0) ;;
	77) skip "$1: $(tail -n 1 "$T/out")" ;;
	*) fail "$1: exit $rc: $(tail -n 1 "$T/out")" ;;
	esac
}

# pins_foreign NOTE: NOTE says that other pinners moved the machine's
# nr_foll_pin counters in a run's pin window, so its leak check is
# unchecked (harness/core/pins.c): a verdict that holds while the machine
# does other work, never a pass or a failure
pins_foreign() { grep -q "other pinners moved nr_foll_pin" <<<"$1"; }

# fs_of DIR: file system type name of DIR.
fs_of() { stat -f -c %T "$1"; }

# free_hugepages: 2 MiB pages free and not reserved by another mapping,
# as longpin counts them (longpin hugepages: the one rule of it)
free_hugepages() {
	local n
	n=$("$LONGPIN" hugepages) || fail "longpin hugepages: exit $?"
	echo $((n < 0 ? 0 : n))
}

# huge_seen: the huge page counts of /proc/meminfo on one line
huge_seen() {
	awk '/^HugePages_(Total|Free|Rsvd|Surp)/ { sub(/:/, ""); printf "%s%s %s", n++ ? ", " : "", $1, $2 }' /proc/meminfo
}

# others_quiet SECONDS: wait up to SECONDS for no other longpin,
# lp-runas or fixed-buf-unpin-dirty process on this machine (another
# checkout's tests: machine-wide state they share, the pin counters, a
# sysctl, moves under them); 1 when some still run
others_quiet() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		pgrep -x 'longpin|fixed-buf-unpin|lp-runas' >/dev/null || return 0
		sleep 0.1
	done
	! pgrep -x 'longpin|fixed-buf-unpin|lp-runas' >/dev/null
}

# machine_lock NAME: the path of the machine-wide lock file NAME, which
# every checkout's tests share (/run/lock, else /tmp)
machine_lock() {
	if [ -d /run/lock ]; then echo "/run/lock/longpin-$1.lock"; else echo "/tmp/longpin-$1.lock"; fi
}

# hugepages_lock: the machine's free huge pages are this test's until it
# exits. nr_hugepages is the machine's: another checkout's test would see
# the pages this one reserved as free, take them, and put nr_hugepages
# back under it. One test at a time holds them, through a lock of the
# machine held on fd 7 until exit (up to 600 s of waiting, else a skip).
hugepages_lock() {
	local lock
	[ -n "${HUGEPAGES_LOCKED:-}" ] && return 0
	lock=$(machine_lock hugepages)
	exec 7>>"$lock"
	flock -w 600 7 || skip "another test held the machine's huge pages for 600 s ($lock)"
	HUGEPAGES_LOCKED=1
}

# hugepages_try N: make N 2 MiB pages free (root; nr_hugepages put back at
# exit); 1 when they cannot be had, HUGEPAGES_WHY saying what was seen
hugepages_try() {
	local need=$1 f=/proc/sys/vm/nr_hugepages old free want got
	hugepages_lock
	free=$(free_hugepages)
	[ "$free" -ge "$need" ] && return 0
	if [ ! -w "$f" ]; then
		HUGEPAGES_WHY="wanted $need free 2 MiB pages, $free free ($(huge_seen)); root could reserve them"
		return 1
	fi
	old=$(cat "$f")
	want=$((old + need - free))
	echo "$want" >"$f" 2>/dev/null
	on_exit "echo $old > $f"
	free=$(free_hugepages)
	[ "$free" -ge "$need" ] && return 0
	got=$(cat "$f")
	HUGEPAGES_WHY="wanted $need free 2 MiB pages, $free free after nr_hugepages $old -> $got ($(huge_seen))"
	# which it is: the pages are there but reserved (by a mapping, or a
	# count a kernel leaked), or the kernel could not allocate them
	if [ "$got" -ge "$want" ]; then
		HUGEPAGES_WHY+=": pages allocated, but reserved"
	else
		HUGEPAGES_WHY+=": the kernel allocated $got of $want (too little contiguous memory)"
	fi
	return 1
}

# reserve_hugepages N: hugepages_try N, or skip the test naming what was seen
reserve_hugepages() {
	hugepages_try "$1" || skip "$HUGEPAGES_WHY"
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
# contract_of KERNEL: the contract KERNEL's rows must be judged by, from
# longpin-vm's table of kernels (1: no such kernel).
contract_of() {
	"$LPVM" kernels --contract "$1" 2>/dev/null
}

# need_kernel NAME: fail on a name that longpin-vm does not know (its one
# list: longpin-vm kernels --names), skip when its sources cannot be had.
need_kernel() {
	"$LPVM" kernels --names | grep -qxF -- "$1" || fail "unknown kernel '$1'"
	case $1 in
	debian-*)
		command -v apt-get >/dev/null || skip "no apt-get to fetch $1" ;;
	*-7.2)
		command -v apt-get >/dev/null || skip "no apt-get to fetch linux-source-7.2 from Debian's unstable" ;;
	*-6.12)
		[[ -f /usr/src/linux-source-6.12.tar.xz ]] || skip "no /usr/src/linux-source-6.12.tar.xz (apt-get install -y --no-install-recommends linux-source-6.12)" ;;
	stock | patched*)
		[[ -f /usr/src/linux-source-6.1.tar.xz ]] || skip "no /usr/src/linux-source-6.1.tar.xz (apt-get install -y linux-source-6.1)" ;;
	esac
}

# torture_short LIST HOST GUEST SECONDS: the memory types of LIST (longpin
# --torture --list) whose run in the torture CSV GUEST is missing or did
# too little, one a line with why (nothing: all held). A type of LIST
# without a row should have run and did not. The floor is derived from
# HOST, the same types' rows of a run on this machine: the operations
# begun within the deadline (all but late_ops) must reach
# TORTURE_FLOOR_FRACTION of the type's operations per second on the
# host, times SECONDS; a type the host could not run is held to the
# host's slowest. 1/40,000: vm/patched-debug/torture on this branch
# (load average ~4 on the 2 cores) did 480 (anon) and 477 (anon-thp)
# operations within 10 s, the fewest, where this machine does 227,790
# and 247,218 a second: 1/4,700 and 1/5,200; beside two other guests
# a run counted 256 operations in all, about 1/14,000 within the
# deadline. A run of 0 s does 0 within it.
TORTURE_FLOOR_FRACTION=0.000025
torture_short() {
	local list=$1 host=$2 guest=$3 secs=$4
	# shellcheck disable=SC2016 # awk's $
	local ops='s = 0; for (j = col("ops") + 1; j < col("reg_ok"); j++) s += $j; s -= $col("late_ops")'
	{
		csv_awk "$host" 'NR > 1 { '"$ops"'; print "host " $col("memtype") " " s / $col("seconds") }'
		csv_awk "$guest" 'NR > 1 { '"$ops"'; print "guest " $col("memtype") " " s }'
		sed 's/^/want /' "$list"
	} | awk -v secs="$secs" -v f="$TORTURE_FLOOR_FRACTION" '
		$1 == "host" { rate[$2] = $3; if (min == "" || $3 < min) min = $3; next }
		$1 == "guest" { done[$2] = $3; next }
		{ want[++n] = $2 }
		END {
			for (i = 1; i <= n; i++) {
				m = want[i]; r = m in rate ? rate[m] : min
				if (!(m in done)) { print m ": no row (it should have run)"; continue }
				floor = int(f * r * secs)
				if (floor < 1) floor = 1
				if (done[m] < floor)
					printf "%s: %d operations within %d s, want %d (%s of %.0f/s on the host%s)\n",
						m, done[m], secs, floor, f, r, m in rate ? "" : ", its slowest type"
			}
		}'
}
