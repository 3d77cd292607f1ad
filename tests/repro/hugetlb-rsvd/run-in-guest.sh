#!/usr/bin/env bash
# run-in-guest.sh KERNEL: build the two reproducers (static), run them in
# one guest of KERNEL (vm/longpin-vm run) and check that the kernel gets
# HugePages_Rsvd wrong as README.md says:
# - hugetlb-mremap-rsvd: "untouched" +3 on every kernel we have, "dontneed"
#   +1 where MADV_DONTNEED restores a reservation (debian-6.12), +0 on the
#   6.1.192 kernels; with -d the leak stays as surplus pages;
# - hugetlb-truncate-race: Rsvd drops by 1 within 8 runs of 3000
#   iterations (seen within 832 on both kernels under TCG, and not in
#   9,000 once on a host with a load of 4). Not hit is a skip that says
#   so: a race that did not show in a bounded run is no evidence that the
#   kernel changed, and the mremap leak has been checked by then.
# A kernel that no longer does this fails with the numbers seen: the bug
# is fixed there, update the expectation and the README.
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../../lib.sh
. "$(dirname "$0")/../../lib.sh"
K=${1:-debian-6.12}
dir=$(cd "$(dirname "$0")" && pwd)

case $K in
debian-6.12 | stock-6.12 | patched-6.12) want_untouched=3 want_dontneed=1 ;;
stock | patched | patched-debug | patched-unchunked | debian-6.1) want_untouched=3 want_dontneed=0 ;;
*) fail "no expectation for kernel '$K'" ;;
esac
need_qemu
need_kernel "$K"
command -v cc >/dev/null || skip "no C compiler (apt-get install -y gcc)"
for p in hugetlb-mremap-rsvd hugetlb-truncate-race; do
	cc -O2 -Wall -static -pthread -o "$T/$p" "$dir/$p.c" 2>"$T/cc.err" ||
		skip "cannot build $p static: $(head -n1 "$T/cc.err") (apt-get install -y libc6-dev)"
done
cat >"$T/guest.sh" <<'EOS'
/opt/hugetlb-mremap-rsvd -d; echo "MREMAP-EXIT $?"
echo 16 >/proc/sys/vm/nr_hugepages
for r in 1 2 3 4 5 6 7 8; do
	/opt/hugetlb-truncate-race 3000; rc=$?
	[ $rc = 0 ] || break
done
echo "RACE-EXIT $rc"
EOS

rc=0
"$LPVM" run --kernel "$K" --timeout 900 \
	--add "$T/hugetlb-mremap-rsvd:/opt/hugetlb-mremap-rsvd" \
	--add "$T/hugetlb-truncate-race:/opt/hugetlb-truncate-race" \
	--add "$T/guest.sh:/opt/guest.sh" -- sh /opt/guest.sh >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out" "$T/err"
[ "$rc" = 0 ] || fail "guest run exited $rc"
code() { sed -n "s/^$1-EXIT //p" "$T/out"; }
[ "$(code MREMAP)" = 77 ] && skip "$(grep -m1 '^SKIP' "$T/out")"
[ "$(code MREMAP)" = 1 ] || fail "hugetlb-mremap-rsvd exited '$(code MREMAP)', want 1 (a leak)"
seen() { # CASE: the leak the program printed for CASE
	awk -v c="$1" '$1 == "case" && $2 == c { print $NF + 0 }' "$T/out"
}
u=$(seen untouched) d=$(seen dontneed)
if [ -z "$u" ] || [ -z "$d" ]; then fail "no result line for a case"; fi
if [ "$u" != "$want_untouched" ] || [ "$d" != "$want_dontneed" ]; then
	fail "$K: untouched +$u dontneed +$d, README says +$want_untouched and +$want_dontneed"
fi
grep -q "after nr_hugepages=0: HugePages_Total $((u + d)) Free $((u + d)) Rsvd $((u + d)) Surp $((u + d))$" "$T/out" ||
	fail "the leaked reservations are not what stays after nr_hugepages=0"
case $(code RACE) in
1) grep -q "^iteration [0-9]*: HugePages_Rsvd [0-9]* -> [0-9]* (-1)" "$T/out" ||
	fail "hugetlb-truncate-race changed HugePages_Rsvd by other than -1" ;;
0) skip "$K: the mremap leak as README.md says (untouched +$u, dontneed +$d); the truncate race not hit in 8 x 3000 iterations ($(sed -n 's/.*accel: \([a-z]*\).*/\1/p' "$T/err" | head -n1)), so not judged" ;;
*) fail "hugetlb-truncate-race exited '$(code RACE)'" ;;
esac
pass "$K: partial mremap leaks HugePages_Rsvd (untouched +$u, dontneed +$d); truncate vs fault drops it by 1 ($(grep -m1 '^iteration' "$T/out" | cut -d: -f1))"
