#!/bin/sh
# lifetime.sh [OUT.csv [CASE...]]: inside a vm/longpin-vm guest, every
# lifetime case (longpin lifetime --list, the one list of them) on the
# memory types it applies to, one boot for all (with CASEs: only those
# per-type cases, e.g. reclaim reclaim-pinned).
# KTAP: the version line, the plan (the cases counted first), a line per
# case ("ok N CASE TYPE", "# SKIP reason"); exit 1 if a case failed.
# RLIMIT_MEMLOCK rows need lp-runas (tests/vm/lifetime.sh builds it and
# adds it as /usr/bin/lp-runas): as uid 65534 with a 64 kB limit.
# shellcheck source-path=SCRIPTDIR disable=SC2154 # kt: ktap.sh's
set -u
out=${1:-/results/lifetime.csv}
LONGPIN=${LONGPIN:-longpin}
export TMPDIR=${LONGPIN_EXT4:-/tmp}
. "$(dirname "$0")/ktap.sh"
# rdma_lifetime: --pinner rdma's cases where there is an RDMA device
. "$(dirname "$0")/lifetime-rdma.sh"
# Where a type's memory comes from, longpin reads from the guest's
# LONGPIN_FILE_DIR, LONGPIN_DAX_DIR, LONGPIN_TMPFS_DIR and LONGPIN_DEVDAX.

# lt CASE TYPE ARGS...: one longpin lifetime run, one result line
lt() {
	c=$1 m=$2
	shift 2
	unplaced "$m" "$c $m" && return
	if [ "$dry" = 1 ]; then
		n=$((n + 1))
		return
	fi
	rc=0
	"$LONGPIN" lifetime "$c" --quiet --mem "$m" --csv "$out" "$@" \
		>"$kt/lt.out" 2>&1 || rc=$?
	result "$c $m" $rc "$kt/lt.out"
}

# Every case on the memory types it applies to (longpin lifetime CASE
# --list): longpin itself skips (77, with the reason, and a skip row) a
# type the kernel refuses or this guest cannot set up.
types=$("$LONGPIN" types --list)
if [ $# -gt 1 ]; then
	shift
	some() {
		for c in "$@"; do
			for m in $("$LONGPIN" lifetime "$c" --list); do
				lt $c $m --size 4M --prefault all
			done
		done
	}
	dry=1
	some "$@"
	plan
	some "$@"
	exit $bad
fi
# cycles: every memory type at once, each in its own process with its own
# ring and CSV. Under TCG a 6.1 cycle mostly waits (~15 ms, the buffer
# table's quiesce), so 17 processes take about as long as one. Each checks
# its answers (the contract's) and its VmPin; the system-wide nr_foll_pin
# balance is checked here, over all of them together.
# LONGPIN_LT_CYCLES: fewer cycles on a slow (debug) kernel; default 10,000
pins() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	# the fields as they are: awk prints a number past 2^31 as 2.35e+09
	awk '/^nr_foll_pin_acquired/ { a = $2 } /^nr_foll_pin_released/ { r = $2 }
		END { print (a == "" ? 0 : a), (r == "" ? 0 : r) }' /proc/vmstat
}
cycles_all() {
	if [ "$dry" = 1 ]; then
		for m in $types; do
			unplaced "$m" "cycles $m" || n=$((n + 1))
		done
		n=$((n + 1))
		return
	fi
	cyc=${LONGPIN_LT_CYCLES:-10000}
	# shellcheck disable=SC2046 # two numbers, into $1 and $2
	set -- $(pins)
	a0=$1 r0=$2 t0=$(date +%s) k=0
	for m in $types; do
		unplaced "$m" "cycles $m" && continue
		sz=64K
		case $m in *huge*|*thp*|devdax) sz=2M ;; *devdax) sz=4M ;; esac
		"$LONGPIN" lifetime cycles --concurrent --cycles "$cyc" --mem "$m" \
			--size $sz --prefault write --csv "$kt/cyc.$m.csv" \
			>"$kt/cyc.$m.out" 2>&1 &
		k=$((k + 1))
		eval "pid_$k=\$! mem_$k=\$m"
	done
	for i in $(seq 1 $k); do
		eval "p=\$pid_$i m=\$mem_$i"
		rc=0
		# shellcheck disable=SC2154 # p: set by the eval above
		wait "$p" || rc=$?
		tail -n +2 "$kt/cyc.$m.csv" >>"$out" 2>/dev/null
		[ $rc = 0 ] && sed -n 's/^lifetime-cycles/# &/p' "$kt/cyc.$m.out"
		result "cycles $m" $rc "$kt/cyc.$m.out"
		rm -f "$kt/cyc.$m.csv" "$kt/cyc.$m.out"
	done
	# rings of exited processes are torn down asynchronously
	# shellcheck disable=SC2034 # w only counts the tries
	for w in 1 2 3 4 5 6 7 8 9 10; do
		# shellcheck disable=SC2046 # two numbers, into $1 and $2
		set -- $(pins)
		[ $(($1 - a0)) = $(($2 - r0)) ] && break
		sleep 0.5
	done
	n=$((n + 1))
	msg="$k types x $cyc cycles at once in $(($(date +%s) - t0)) s: nr_foll_pin acquired +$(($1 - a0)) released +$(($2 - r0))"
	if [ $(($1 - a0)) = $(($2 - r0)) ] && [ $(($1 - a0)) -ge "$cyc" ]; then
		echo "ok $n cycles balanced: $msg"
	else
		echo "not ok $n cycles balanced: $msg"
		bad=1
	fi
}
# RLIMIT_MEMLOCK: a fresh uid each time (rings of an exited process are
# torn down asynchronously and stay charged to their user for a moment)
memlock_all() {
	if ! command -v lp-runas >/dev/null; then
		[ "$dry" = 1 ] || echo "# SKIP memlock: no lp-runas in the guest"
		return
	fi
	if [ "$dry" = 1 ]; then
		n=$((n + 3))
		return
	fi
	touch "$out" && chmod 666 "$out"
	uid=40000
	for kb in 64 68 60; do
		uid=$((uid + 1))
		n=$((n + 1))
		rc=0
		lp-runas $uid 64 "$LONGPIN" lifetime memlock --quiet --mem anon \
			--size ${kb}K --csv "$out" >"$kt/lt.out" 2>&1 || rc=$?
		sed 's/^/# /' "$kt/lt.out"
		case $rc in
		0) echo "ok $n memlock anon ${kb}K under 64K" ;;
		*) echo "not ok $n memlock anon ${kb}K under 64K # exit $rc"; bad=1 ;;
		esac
	done
}

# Every case longpin has, on the memory types it applies to: longpin
# itself skips (77, with the reason, and a skip row) a type the kernel
# refuses. cycles, memlock and limits run as they must; limits first,
# while the brd disks (which keep every page written to them) are still
# empty: its 1 GiB pin needs the memory (it skips, with the figures, where
# MemAvailable is short).
all() {
	for c in limits $("$LONGPIN" lifetime --list | grep -vx limits); do
		case $c in
		cycles) cycles_all ;;
		memlock) memlock_all ;;
		limits) lt limits anon --prefault none ;;
		unreg-inflight | close-ring)
			for m in $("$LONGPIN" lifetime "$c" --list); do lt $c $m --size 4M; done ;;
		*)	for m in $("$LONGPIN" lifetime "$c" --list); do lt $c $m --size 4M --prefault all; done ;;
		esac
	done
	rdma_lifetime
}
dry=1
all
plan
all
exit $bad
