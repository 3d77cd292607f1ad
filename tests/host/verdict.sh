#!/bin/bash
# verdict.sh MEMTYPE PREFAULT [SIZE]: register a buffer on the running
# kernel and check the verdict against its contract, VmPin balance and
# the data check.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
mem=$1 pf=$2 size=${3:-8M}
args=(register --mem "$mem" --prefault "$pf" --size "$size" --ios 256 --repeat 3 --csv "$T/r.csv")

# what the type needs, as longpin says (longpin types)
IFS=$'\t' read -r _ _ _ huge _ var value place < <("$LONGPIN" types | grep -P "^\Q$mem\E\t")
[ -n "${var:-}" ] || fail "longpin types does not list $mem"
[ "$huge" = hugetlb ] && reserve_hugepages $(( $(numfmt --from=iec "$size") / 2097152 ))
case $var in
-) ;;
LONGPIN_FILE_DIR)
	# a directory of our own (checked for leftovers) on the place's file
	# system; longpin refuses tmpfs and the like there: skip those
	dir=$T
	if [ "$value" != - ]; then
		dir=$(mktemp -d "$value/longpin-files.XXXXXX")
		on_exit "rm -rf '$dir'"
	fi
	case $(fs_of "$dir") in
	tmpfs|ramfs|overlayfs|nfs|fuseblk) skip "$dir is $(fs_of "$dir"); set LONGPIN_FILE_DIR to a directory on ext4 or xfs" ;;
	esac
	args+=(--dir "$dir") ;;
*)	# longpin reads the place's variable itself
	[ "$value" != - ] || skip "no $place here: set $var (the vm tests do)" ;;
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
