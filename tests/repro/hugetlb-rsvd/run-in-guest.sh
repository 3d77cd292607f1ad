#!/usr/bin/env bash
# run-in-guest.sh KERNEL: build hugetlb-mremap-rsvd.c (static), run it in a
# guest of KERNEL (vm/longpin-vm run) and check that the kernel leaks
# HugePages_Rsvd as README.md says: "untouched" +3 on every kernel we
# have, "dontneed" +1 where MADV_DONTNEED restores a reservation
# (debian-6.12) and +0 on the 6.1.192 kernels. A kernel that no longer
# leaks fails with the numbers seen: the bug is fixed there, update the
# expectation and the README.
# shellcheck source=../../lib.sh
. "$(dirname "$0")/../../lib.sh"
K=${1:-debian-6.12}
src=$(dirname "$0")/hugetlb-mremap-rsvd.c

case $K in
debian-6.12) want_untouched=3 want_dontneed=1 ;;
stock | patched* | debian-6.1) want_untouched=3 want_dontneed=0 ;;
*) fail "no expectation for kernel '$K'" ;;
esac
need_qemu
need_kernel "$K"
command -v cc >/dev/null || skip "no C compiler (apt-get install -y gcc)"
cc -O2 -Wall -static -o "$T/hugetlb-mremap-rsvd" "$src" 2>"$T/cc.err" ||
	skip "cannot build it static: $(head -n1 "$T/cc.err") (apt-get install -y libc6-dev)"

# one round of each case, then nr_hugepages=0 to show the leaked pages
# stuck as surplus; the program exits 1 when it saw a leak
rc=0
"$LPVM" run --kernel "$K" --timeout 600 \
	--add "$T/hugetlb-mremap-rsvd:/opt/hugetlb-mremap-rsvd" -- \
	/opt/hugetlb-mremap-rsvd -d >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out" "$T/err"
[ "$rc" = 77 ] && skip "$(grep -m1 '^SKIP' "$T/out")"
[ "$rc" = 1 ] || [ "$rc" = 0 ] || fail "guest run exited $rc"
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
pass "$K leaks HugePages_Rsvd after a partial mremap of a private hugetlb mapping: untouched +$u, dontneed +$d, nothing mapped"
