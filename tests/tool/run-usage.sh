#!/usr/bin/env bash
# ./run.sh's bad input: one line naming the cause and the fix, exit 2,
# before anything is built or booted, and no results directory left.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
bad() { # REGEX ARGS...
	local re=$1 rc=0
	shift
	(cd "$T" && "$REPO/run.sh" "$@" --out "$T/out") >"$T/o" 2>&1 || rc=$?
	cat "$T/o"
	[ $rc = 2 ] || fail "./run.sh $*: exit $rc, want 2"
	[ "$(grep -c . "$T/o")" = 1 ] || fail "./run.sh $*: more than one line"
	grep -Eq "^run.sh: $re" "$T/o" || fail "./run.sh $*: the line does not match /$re/"
	[ ! -e "$T/out" ] || fail "./run.sh $*: left $T/out behind"
}
bad "unknown argument '--bogus': see ./run.sh --help" --bogus
bad "--repeat does not belong to mode main: drop it" --repeat 3
bad "--torture-seconds does not belong to mode full" full --torture-seconds 5
bad "the mode \\(bench\\) comes first: ./run.sh bench \\[OPTIONS\\]" --kernels stock bench
bad "unknown kernel 'nope': give host or one of: stock," --kernels nope
bad "--repeat '0': give a whole number" bench --repeat 0
mkdir -p "$T/out" && : >"$T/out/mine"
rc=0
"$REPO/run.sh" --out "$T/out" >"$T/o" 2>&1 || rc=$?
cat "$T/o"
[ $rc = 2 ] && grep -q "^run.sh: --out $T/out exists and is not empty: give a new directory" "$T/o" ||
	fail "a non-empty --out: exit $rc, want 2 and the message"
[ "$(ls "$T/out")" = mine ] || fail "a non-empty --out was written"
"$REPO/run.sh" --help | grep -q "^  main " || fail "--help does not list the modes"
pass "bad modes, options and kernels: exit 2, one line, nothing written"
