#!/usr/bin/env bash
# A patch that does not apply stops the patched build, naming the patch and
# printing the rejected hunk.  Uses a throwaway patch dir (LONGPIN_PATCHES).
. "$(dirname "$0")/../lib.sh"
need_kernel patched
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
pass "bad patch stops the build, named, with its rejected hunk"
