#!/usr/bin/env bash
# Boots use copies of the prepared NVDIMM images: the guest finds its four
# named namespaces and their file systems without ndctl create-namespace or
# mkfs, and what one boot writes to them is gone in the next.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
for i in 1 2; do
	# shellcheck disable=SC2016
	"$LPVM" run --kernel stock --timeout 300 -- sh -c '
		ls "$LONGPIN_DAX_EXT4" "$LONGPIN_DAX_XFS"
		echo "boot '$i'" >"$LONGPIN_DAX_EXT4/mark" && echo "boot '$i'" >"$LONGPIN_DAX_XFS/mark"
		ndctl list -N | grep -c "\"name\":\"lp-"' >"$T/out$i" 2>"$T/err$i" ||
		{ cat "$T/out$i" "$T/err$i"; fail "boot $i failed"; }
	cat "$T/out$i"
	console=$(sed -n 's/.*run stock: console log //p' "$T/err$i" | tail -n1)
	[[ -f $console ]] || fail "boot $i: no console log named"
	grep -q 'namespaces of the prepared images' "$console" ||
		fail "boot $i made its namespaces itself: $(grep longpin-init "$console" | head -5)"
	grep -q 'create-namespace\|labels initialised' "$console" && fail "boot $i ran ndctl create-namespace"
	[[ $(tail -n1 "$T/out$i") == 4 ]] || fail "boot $i: want the 4 named namespaces"
done
grep -q mark "$T/out2" && fail "the second boot saw the first one's file: the prepared images were written"
pass "two boots on copies of the prepared images, each starting clean"
