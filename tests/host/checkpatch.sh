#!/usr/bin/env bash
# checkpatch.pl --strict on every patch of every series of kernel-patches/
# (kernel-patches/checkpatch.sh, with the checkpatch of each series' base
# taken from its linux-source tarball): fails on any ERROR, and on any
# WARNING of a series for upstream (mainline, mainline-*). Skips when a
# base's tarball is absent or there is no perl to run checkpatch.pl.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v perl >/dev/null || skip "no perl to run scripts/checkpatch.pl"
rc=0
"$REPO/kernel-patches/checkpatch.sh" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out" "$T/err"
case $rc in
0)
	warned=$(awk '$1 == "series" && $2 ~ /^mainline/ && $6 != 0 { print $2 ": " $6 " warnings" }' "$T/out")
	[ -z "$warned" ] || fail "a series for upstream has warnings: $(echo "$warned" | tr '\n' ' ')"
	grep -q '^series mainline errors 0 warnings 0$' "$T/out" || fail "no line for the mainline series"
	pass "$(tail -n1 "$T/out" | sed 's/^checkpatch: //'); the series for upstream without warnings; $(sed -n 's/^checkpatch: commit ids/commit ids/p' "$T/out")" ;;
3) skip "$(tail -n1 "$T/err" | sed 's/^checkpatch: //')" ;;
1) fail "$(tail -n1 "$T/out" | sed 's/^checkpatch: //'); the ERROR lines are above" ;;
*) fail "kernel-patches/checkpatch.sh exit $rc: $(tail -n1 "$T/err")" ;;
esac
