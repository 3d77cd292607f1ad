#!/usr/bin/env bash
# A patch that does not apply stops the patched build, naming the patch and
# printing the rejected hunk, and leaves the patched source tree of the
# last good series as it was (it was removed before the series applied,
# so the next build of patched had to make it again).  Uses a throwaway
# patch dir (LONGPIN_PATCHES).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel patched
tree=$CACHE/trees/patched
before=$(cat "$tree/applied" 2>/dev/null)
[[ -n $before && -d $tree/src ]] ||
	skip "no patched source tree in $tree to keep: the cached kernel was built from one since removed"
mkdir -p "$T/p"
cat >"$T/p/0001-bad.patch" <<'P'
--- a/mm/gup.c
+++ b/mm/gup.c
@@ -1,3 +1,4 @@
 this line is not in mm/gup.c
+/* longpin test: never applies */
 neither is this one
 nor this one
P
printf '# test series\n0001-bad.patch\n' >"$T/p/series"
LONGPIN_PATCHES=$T/p "$LPVM" build --kernel patched >"$T/out" 2>&1
rc=$?
cat "$T/out"
((rc != 0)) || fail "build succeeded with a patch that cannot apply"
grep -q "0001-bad.patch failed to apply" "$T/out" || fail "the failing patch is not named"
grep -q 'never applies' "$T/out" || fail "the rejected hunk is not printed"
[[ -d $tree/src && $(cat "$tree/applied" 2>/dev/null) == "$before" ]] ||
	fail "the last good source tree was not kept ($(ls "$tree" | tr '\n' ' '))"
[[ ! -e $tree/src.new ]] || fail "the half-patched tree was left behind"
pass "bad patch stops the build, named, with its rejected hunk; the last good tree kept"
