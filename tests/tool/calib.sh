#!/usr/bin/env bash
# scripts/calib.c, the cost model's calibration on this machine's CPU:
# built with -Werror, run with 3 repeats into a file of its own (not the
# cache's calib.txt), and its figures must order as hardware does: a load
# from memory slower than an LLC hit, slower than an L2 hit, slower than
# an L1 hit; a locked increment slower than a plain one; a page-table walk
# costing something; every constant of the model positive; the core clock
# between 0.5 and 7 GHz. Seconds. Skips where there is no x86-64 CPU or
# no gcc, or where the machine is too busy for the repeats to agree.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
[[ $(uname -m) == x86_64 ]] || skip "not an x86-64 machine: calib.c times x86 instructions"
command -v gcc >/dev/null || skip "no gcc"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$T/calib" "$REPO/scripts/calib.c" || fail "calib.c does not build with -Werror"
"$T/calib" -r 3 -o "$T/calib.txt" >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 0 ]] || fail "exit status $rc"
cmp -s <(grep -v '^calib: written' "$T/out") "$T/calib.txt" || fail "the file differs from what it printed"
v() { awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print "none" }' "$T/calib.txt"; }
# A busy machine (another checkout's tests, guests) moves the latencies
# from one repeat to the next: where a compared latency's slowest repeat
# is over 1.5 times its fastest, its median orders nothing, and the test
# skips with the figures instead of judging the CPU by them.
unsteady=$(awk '$1 ~ /^lat_(l2|llc|mem|walk4k|walk2m)$/ && $4 > 1.5 * $3 {
	printf "%s%s %s-%s", s, $1, $3, $4; s = ", " }' "$T/calib.txt")
[[ -z $unsteady ]] ||
	skip "the repeats disagree by more than x1.5 ($unsteady cycles over 3 repeats): this machine is too busy to calibrate; run it alone"
# gt A B: A's median above B's
gt() {
	local a b
	a=$(v "$1") b=$(v "$2")
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + 0 > b + 0 && a != "none" && b != "none") }' ||
		fail "$1 ($a) is not above $2 ($b)"
}
gt lat_mem lat_llc
gt lat_llc lat_l2
gt lat_l2 lat_l1
gt lat_lock lat_inc
gt lat_walk4k lat_walk2m
for c in CPI0 C_atomic C_L2 C_LLC C_mem C_walk; do
	awk -v x="$(v "$c")" 'BEGIN { exit !(x + 0 > 0) }' || fail "$c is $(v "$c"), not positive"
done
awk -v f="$(v f_core)" 'BEGIN { exit !(f >= 0.5 && f <= 7) }' || fail "core clock $(v f_core) GHz"
pass "memory $(v lat_mem) > LLC $(v lat_llc) > L2 $(v lat_l2) > L1 $(v lat_l1) cycles; lock $(v lat_lock) > plain $(v lat_inc); walk +$(v C_walk); core $(v f_core) GHz"
