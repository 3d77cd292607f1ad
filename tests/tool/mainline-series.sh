#!/usr/bin/env bash
# kernel-patches/mainline and mainline-vfio, the fixes in mainline's
# form: patched-7.2 is built from exactly their files (its series, as
# `longpin-vm kernels --series` gives it, is the two series files' lists
# and nothing else), and each applies with `patch -p1 --fuzz=0`, in that
# order, to 7.2.13 as Debian's linux-source-7.2 ships it (stock-7.2's
# source tree in the cache). Seconds, once stock-7.2's tree is there.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel stock-7.2
KP=$REPO/kernel-patches
src=$CACHE/trees/stock-7.2/src
[ -f "$src/io_uring/rsrc.c" ] || skip "stock-7.2's source is not in $CACHE/trees (vm/longpin-vm build --kernel stock-7.2 unpacks it)"
ver=$(awk -F'= *' '/^VERSION/ { v = $2 } /^PATCHLEVEL/ { p = $2 } /^SUBLEVEL/ { s = $2 } END { print v "." p "." s }' "$src/Makefile")
[ "$ver" = 7.2.13 ] || fail "stock-7.2's tree is $ver, not 7.2.13"

# the series files' lists, in order, as paths
want=$(for d in mainline mainline-vfio; do
	[ -f "$KP/$d/series" ] || fail "no $KP/$d/series"
	grep -vE '^[[:space:]]*(#|$)' "$KP/$d/series" | sed "s|^|$KP/$d/|"
done)
got=$("$LPVM" kernels --series patched-7.2) || fail "longpin-vm kernels --series patched-7.2 failed"
[ "$got" = "$want" ] || fail "patched-7.2 is built from: $got; the series list: $want"
n=$(grep -c . <<<"$want")

# each applies with --fuzz=0 to a copy of the files it touches, in order
mkdir -p "$T/tree"
while read -r p; do
	[ -f "$p" ] || fail "listed, not there: $p"
	for f in $(sed -n 's|^+++ b/||p' "$p"); do
		[ -f "$T/tree/$f" ] && continue
		mkdir -p "$T/tree/$(dirname "$f")"
		cp "$src/$f" "$T/tree/$f" || fail "${p#"$KP/"} touches $f, which 7.2.13 has not"
	done
	out=$(cd "$T/tree" && patch -p1 --fuzz=0 -f -i "$p" 2>&1) ||
		fail "${p#"$KP/"} does not apply to 7.2.13 with --fuzz=0: $out"
	grep -q 'offset' <<<"$out" && echo "note: ${p#"$KP/"}: $out"
	echo "ok ${p#"$KP/"}"
done <<<"$want"
state=$("$LPVM" kernels | awk '$1 == "patched-7.2" { print ($2 == "built" ? "built from them" : "not built yet") }')
pass "$n patches (mainline, then mainline-vfio) apply to 7.2.13 with --fuzz=0, and are patched-7.2's series, no more, no less (patched-7.2: ${state:-unknown})"
