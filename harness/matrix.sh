#!/bin/sh
# matrix.sh OUT.csv: run longpin over every memory type and prefault that
# this machine (or guest) can provide, append the rows to OUT.csv and print
# KTAP lines. POSIX sh: it runs in the VM guest's busybox too.
#
# Environment (all optional):
#   LONGPIN            the binary (default: longpin in PATH)
#   LONGPIN_SIZE       buffer size (default 16M)
#   LONGPIN_FILE_DIR   page-cache directory (ext4, xfs) for *file-*
#   LONGPIN_TMPFS_DIR  tmpfs directory for tmpfs-* (default /dev/shm)
#   LONGPIN_DAX_DIR    DAX mount for fsdax-*
#   LONGPIN_DEVDAX     /dev/daxX.Y for *devdax
#   LONGPIN_ARGS       more longpin options, e.g. "--ios 512 --repeat 3"
#   LONGPIN_TYPES      memory types to run, comma separated (default: all)
# Huge pages for the hugetlb types are reserved when root and given back.
# Exit: 0 when no verdict failed (skips allowed), 1 otherwise.
set -u
out=${1:?usage: matrix.sh OUT.csv}
bin=${LONGPIN:-longpin}
size=${LONGPIN_SIZE:-16M}
hp=/proc/sys/vm/nr_hugepages
hp_old=
err=$(mktemp "${TMPDIR:-/tmp}/longpin-matrix.XXXXXX") || exit 2

bytes() {
	case $1 in
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*G) echo $((${1%G} * 1073741824)) ;;
	*) echo "$1" ;;
	esac
}
cleanup() {
	[ -n "$hp_old" ] && echo "$hp_old" >$hp
	hp_old=
	rm -f "$err"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

if [ -w $hp ]; then
	hp_old=$(cat $hp)
	echo $((hp_old + $(bytes "$size") / 2097152 + 1)) >$hp 2>/dev/null
fi

types=$("$bin" --list) || exit 2
[ -n "${LONGPIN_TYPES:-}" ] && types=$(echo "$LONGPIN_TYPES" | tr ',' '\n')
echo "KTAP version 1"
echo "1..$(echo "$types" | wc -l)"
i=0 bad=0
for mem in $types; do
	i=$((i + 1))
	why=
	set -- --mem "$mem" --size "$size" --prefault all --csv "$out" --quiet
	case $mem in
	*file-*) [ -n "${LONGPIN_FILE_DIR:-}" ] && set -- "$@" --dir "$LONGPIN_FILE_DIR" ||
		why="no page-cache directory (LONGPIN_FILE_DIR)" ;;
	tmpfs-*) set -- "$@" --dir "${LONGPIN_TMPFS_DIR:-/dev/shm}" ;;
	fsdax-*) [ -n "${LONGPIN_DAX_DIR:-}" ] && set -- "$@" --dir "$LONGPIN_DAX_DIR" ||
		why="no DAX mount (LONGPIN_DAX_DIR)" ;;
	*devdax) [ -n "${LONGPIN_DEVDAX:-}" ] && set -- "$@" --dev "$LONGPIN_DEVDAX" ||
		why="no device-dax (LONGPIN_DEVDAX)" ;;
	esac
	if [ -n "$why" ]; then
		echo "ok $i $mem # SKIP $why"
		continue
	fi
	# shellcheck disable=SC2086 # LONGPIN_ARGS is a list of words
	"$bin" "$@" ${LONGPIN_ARGS:-} >/dev/null 2>"$err"
	rc=$?
	msg=$(grep -v '^longpin: contract ' "$err" | tail -n 1)
	case $rc in
	0) echo "ok $i $mem" ;;
	77) echo "ok $i $mem # SKIP ${msg#longpin: }" ;;
	*) echo "not ok $i $mem # exit $rc ${msg#longpin: }"; bad=1 ;;
	esac
done
exit $bad
