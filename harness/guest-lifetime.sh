#!/bin/sh
# guest-lifetime.sh [OUT.csv]: inside a vm/longpin-vm guest, every
# --lifetime case on the memory types it applies to, one boot for all.
# KTAP-like lines ("ok N CASE TYPE", "# SKIP reason"); exit 1 if a case
# failed. RLIMIT_MEMLOCK rows need lp-runas (tests/lifetime.sh builds it
# and adds it as /usr/bin/lp-runas): as uid 65534 with a 64 kB limit.
set -u
out=${1:-/results/lifetime.csv}
LONGPIN=${LONGPIN:-longpin}
export TMPDIR=${LONGPIN_EXT4:-/tmp}
tmpfs=${LONGPIN_TMPFS:-/dev/shm}
ext4=${LONGPIN_EXT4:-/tmp}
n=0 bad=0

# lt CASE TYPE ARGS...: one longpin --lifetime run, one result line
lt() {
	c=$1 m=$2
	shift 2
	n=$((n + 1))
	dir=
	case $m in
	tmpfs-*) dir="--dir $tmpfs" ;;
	file-*) dir="--dir $ext4" ;;
	esac
	rc=0
	"$LONGPIN" --quiet --lifetime "$c" --mem "$m" $dir --csv "$out" "$@" \
		>/tmp/lt.out 2>&1 || rc=$?
	case $rc in
	0) echo "ok $n $c $m" ;;
	77) echo "ok $n $c $m # SKIP $(tail -1 /tmp/lt.out)" ;;
	*) echo "not ok $n $c $m (exit $rc)"; cat /tmp/lt.out; bad=1 ;;
	esac
}

for m in anon anon-thp anon-shared memfd hugetlb tmpfs-shared file-private; do
	lt munmap $m --size 4M --prefault all
done
for m in anon anon-thp hugetlb file-private; do
	lt fork $m --size 4M --prefault all
done
for c in truncate punch; do
	for m in memfd tmpfs-shared; do
		lt $c $m --size 4M --prefault all
	done
done
for m in anon anon-thp anon-shared memfd hugetlb tmpfs-shared; do
	lt mremap $m --size 4M --prefault all
done
for m in anon memfd hugetlb; do
	lt unreg-inflight $m --size 4M
	lt close-ring $m --size 4M
done
for m in anon memfd hugetlb sysv-shm readonly file-shared mixed; do
	lt update $m --size 4M --prefault all
done
# LONGPIN_LT_CYCLES: fewer cycles on a slow (debug) kernel; default 10,000
lt cycles anon --size 64K --cycles "${LONGPIN_LT_CYCLES:-10000}"
lt limits anon --prefault none

# RLIMIT_MEMLOCK: a fresh uid each time (rings of an exited process are
# torn down asynchronously and stay charged to their user for a moment)
if command -v lp-runas >/dev/null; then
	touch "$out" && chmod 666 "$out"
	uid=40000
	for kb in 64 68 60; do
		uid=$((uid + 1))
		n=$((n + 1))
		rc=0
		lp-runas $uid 64 "$LONGPIN" --quiet --lifetime memlock --mem anon \
			--size ${kb}K --csv "$out" >/tmp/lt.out 2>&1 || rc=$?
		case $rc in
		0) echo "ok $n memlock anon ${kb}K under 64K" ;;
		*) echo "not ok $n memlock anon ${kb}K under 64K (exit $rc)"; bad=1 ;;
		esac
		cat /tmp/lt.out
	done
else
	echo "# SKIP memlock: no lp-runas in the guest"
fi
echo "1..$n"
exit $bad
