# shellcheck shell=sh
# ktap.sh: sourced by the guest scripts that print a KTAP-like line per
# longpin run (lifetime.sh, torture.sh); n counts the lines, bad is 1 once
# one failed.
n=0 bad=0

# result NAME STATUS OUTPUT: the result line of one longpin run (77: a
# skip with longpin's reason; a failure also prints the run's output)
result() {
	n=$((n + 1))
	# shellcheck disable=SC2034 # bad: the exit status of the scripts that source this file
	case $2 in
	0) echo "ok $n $1" ;;
	77) echo "ok $n $1 # SKIP $(tail -1 "$3")" ;;
	*) echo "not ok $n $1 (exit $2)"; cat "$3"; bad=1 ;;
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
	echo "ok $n $2 # SKIP $_u"
}
