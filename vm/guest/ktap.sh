# shellcheck shell=sh
# ktap.sh: sourced by the guest scripts that print a KTAP line per
# longpin run (lifetime.sh, torture.sh); n counts the lines, bad is 1 once
# one failed. A script counts its cases first (dry=1: result and unplaced
# count and print nothing), prints the version and plan lines (plan), then
# runs them: the plan must come first, right after the version line, for
# kunit.py (a plan after the results makes it loop for ever).
n=0 bad=0 dry=0
# kt: the scripts' own files (a run's output), removed at exit
kt=$(mktemp -d "${TMPDIR:-/tmp}/ktap.XXXXXX") || exit 2
trap 'rm -rf "$kt"' EXIT

# plan: the version line and the plan of the n cases counted; n from 0
plan() {
	echo "KTAP version 1"
	echo "1..$n"
	n=0 dry=0
}

# result NAME STATUS OUTPUT: the result line of one longpin run (77: a
# skip with longpin's reason; a failure is preceded by the run's output,
# as diagnostic lines)
result() {
	n=$((n + 1))
	[ "$dry" = 1 ] && return
	# shellcheck disable=SC2034 # bad: the exit status of the scripts that source this file
	case $2 in
	0) echo "ok $n $1" ;;
	77) echo "ok $n $1 # SKIP $(tail -1 "$3")" ;;
	*) sed 's/^/# /' "$3"; echo "not ok $n $1 # exit $2"; bad=1 ;;
	esac
}

# unplaced TYPE NAME: true, printing NAME's skip line, when the place TYPE's
# memory comes from is unset (longpin types: no DAX mount without
# NVDIMMs, no page-cache directory on the host): longpin would stop with
# a usage error where the type cannot run here at all
unplaced() {
	_u=$("${LONGPIN:-longpin}" types | awk -F'\t' -v m="$1" '$1 == m && $6 != "-" && $7 == "-" { print "no " $8 " (" $6 ")"; exit }')
	[ -n "$_u" ] || return 1
	# set empty: longpin skips itself, with a skip row (a user's kernel)
	_v=${_u##*(}
	_v=${_v%)}
	eval "[ -z \"\${$_v+x}\" ]" || return 1
	case $_u in
	*LONGPIN_DAX_DIR* | *LONGPIN_DEVDAX*) [ -z "${LONGPIN_NVDIMM_OFF:-}" ] || _u="$_u: $LONGPIN_NVDIMM_OFF" ;;
	esac
	n=$((n + 1))
	[ "$dry" = 1 ] || echo "ok $n $2 # SKIP $_u"
}
