#!/bin/bash
# verdict.sh MEMTYPE PREFAULT [SIZE]: register a buffer on the running
# kernel and check the verdict against its contract, VmPin balance and
# the data check.
. "$(dirname "$0")/lib.sh"
mem=$1 pf=$2 size=${3:-8M}
args=(--mem "$mem" --prefault "$pf" --size "$size" --ios 256 --repeat 3 --csv "$T/r.csv")

case $mem in
hugetlb|memfd-hugetlb|sysv-shm-huge)
	reserve_hugepages $(( $(numfmt --from=iec "$size") / 2097152 )) ;;
*file-*)
	dir=$T
	if [ -n "${LONGPIN_FILE_DIR:-}" ]; then
		dir=$(mktemp -d "$LONGPIN_FILE_DIR/longpin-files.XXXXXX")
		on_exit "rm -rf '$dir'"
	fi
	case $(fs_of "$dir") in
	tmpfs|ramfs|overlayfs|nfs|fuseblk) skip "$dir is $(fs_of "$dir"); set LONGPIN_FILE_DIR to a directory on ext4 or xfs" ;;
	esac
	args+=(--dir "$dir") ;;
fsdax-*)
	[ -n "${LONGPIN_DAX_DIR:-}" ] || skip "no DAX mount here: set LONGPIN_DAX_DIR (the vm tests do)"
	args+=(--dir "$LONGPIN_DAX_DIR") ;;
*devdax)
	[ -n "${LONGPIN_DEVDAX:-}" ] || skip "no device-dax here: set LONGPIN_DEVDAX (the vm tests do)"
	args+=(--dev "$LONGPIN_DEVDAX") ;;
esac

run_longpin "${args[@]}"
[ "$rc" = 77 ] && skip "$(tail -n1 "$T/out")"
verdict=$(csv_get "$T/r.csv" 1 verdict)
[ "$verdict" = unchecked ] && skip "no contract for kernel $(uname -r)"
[ "$rc" = 0 ] || fail "exit status $rc"
[ "$verdict" = pass ] || fail "verdict $verdict"
leak=$(csv_get "$T/r.csv" 1 vmpin_leak_kb)
[ "$leak" = 0 ] || fail "VmPin leak $leak kB"
result=$(csv_get "$T/r.csv" 1 result)
check=$(csv_get "$T/r.csv" 1 data_check)
if [ "$result" = 0 ]; then
	[ "$mem" = readonly ] || [ "$check" = ok ] || fail "data check $check"
	reg=$(csv_get "$T/r.csv" 1 vmpin_reg_kb); before=$(csv_get "$T/r.csv" 1 vmpin_before_kb)
	[ $((reg - before)) -ge $(( $(numfmt --from=iec "$size") / 1024 )) ] ||
		fail "VmPin grew by $((reg - before)) kB only while registered"
fi
no_leftovers "${dir:-$T}"
pass "$mem prefault=$pf: result $result ($(csv_get "$T/r.csv" 1 errno)) as expected by $(csv_get "$T/r.csv" 1 contract), data $check"
