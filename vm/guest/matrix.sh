#!/bin/sh
# matrix.sh OUT.csv: run longpin over every memory type and prefault that
# this machine (or guest) can provide, append the rows to OUT.csv and print
# KTAP lines. POSIX sh: it runs in the VM guest's busybox too, and on the
# host (./run.sh --kernels host).
#
# Which directory or device a type needs, and the variable that gives it,
# is longpin's to say (longpin types): a type whose place is unset is a
# SKIP line naming the variable. Environment (all optional):
#   LONGPIN            the binary (default: longpin in PATH)
#   LONGPIN_SIZE       buffer size (default 16M)
#   LONGPIN_FILE_DIR, LONGPIN_TMPFS_DIR, LONGPIN_DAX_DIR, LONGPIN_DEVDAX
#                      the places, read by longpin itself
#   LONGPIN_ARGS       more longpin options, e.g. "--ios 512 --repeat 3"
#   LONGPIN_TYPES      memory types to run, comma separated (default: all)
#   LONGPIN_LABEL      a prefix of every KTAP test name (e.g. "gup/ro ")
# Huge pages for the hugetlb types are reserved when root and given back.
# Exit: 0 when no verdict failed (skips allowed), 1 otherwise.
set -u
out=${1:?usage: matrix.sh OUT.csv}
bin=${LONGPIN:-longpin}
size=${LONGPIN_SIZE:-16M}
label=${LONGPIN_LABEL:-}
hp=/proc/sys/vm/nr_hugepages
hp_old=
tmp=$(mktemp -d "${TMPDIR:-/tmp}/longpin-matrix.XXXXXX") || exit 2

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
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

if [ -w $hp ]; then
	hp_old=$(cat $hp)
	echo $((hp_old + $(bytes "$size") / 2097152 + 1)) >$hp 2>/dev/null
fi

"$bin" types | grep -v '^#' >"$tmp/types" || exit 2
if [ -n "${LONGPIN_TYPES:-}" ]; then
	echo "$LONGPIN_TYPES" | tr ',' '\n' | while read -r t; do
		grep "^$t	" "$tmp/types" || printf '%s\t-\t-\t-\t-\t-\t-\t-\n' "$t"
	done >"$tmp/some"
	mv "$tmp/some" "$tmp/types"
fi
# unplaced_why VAR: why the guest has no place for VAR, when it knows
# (a user's kernel without NVDIMMs: the init's LONGPIN_NVDIMM_OFF)
unplaced_why() {
	case $1 in
	LONGPIN_DAX_DIR | LONGPIN_DEVDAX) [ -z "${LONGPIN_NVDIMM_OFF:-}" ] || echo ": $LONGPIN_NVDIMM_OFF" ;;
	esac
}
echo "KTAP version 1"
echo "1..$(wc -l <"$tmp/types")"
i=0 bad=0
# fields: memtype map backing huge option variable value place
while IFS='	' read -r mem _ _ _ _ var value place; do
	i=$((i + 1))
	# unset: no such place here at all; set empty (a user's kernel without
	# NVDIMMs): longpin skips with the reason and writes the skip rows
	if [ "$var" != - ] && [ "$value" = - ] && eval "[ -z \"\${$var+x}\" ]"; then
		echo "ok $i $label$mem # SKIP no $place ($var)$(unplaced_why "$var")"
		continue
	fi
	# shellcheck disable=SC2086 # LONGPIN_ARGS is a list of words
	"$bin" register --mem "$mem" --size "$size" --prefault all --csv "$out" --quiet \
		${LONGPIN_ARGS:-} >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	msg=$(grep -v '^longpin: contract ' "$tmp/err" | tail -n 1)
	case $rc in
	0) echo "ok $i $label$mem" ;;
	77) echo "ok $i $label$mem # SKIP ${msg#longpin: }" ;;
	*) echo "not ok $i $label$mem # exit $rc ${msg#longpin: }"; bad=1 ;;
	esac
done <"$tmp/types"
exit $bad
