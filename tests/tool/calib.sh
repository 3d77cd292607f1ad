#!/usr/bin/env bash
# scripts/calib.c, the cost model's calibration on this machine's CPU:
# built with -Werror, run with 3 repeats into a file of its own (not the
# cache's calib.txt), and its figures must order as hardware does: a load
# from memory slower than an LLC hit, slower than an L2 hit, slower than
# an L1 hit; a locked increment slower than a plain one; a page-table walk
# costing something; every constant of the model positive; the core clock
# between 0.5 and 7 GHz. A constant this machine did not give steadily is
# written "unmeasured" (weighed 0 by the model): the orderings it makes
# are not judged. Seconds. Skips where there is no x86-64 CPU or no gcc,
# or where the machine is too busy to give CPI0 and C_L2.
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
# measured NAME: calib.c gave the constant (not "unmeasured": its repeats
# disagreed by over x1.5 or its median is not above 0, as on a busy
# machine, or on a Zen 3 whose walk in small pages was the faster)
measured() { [[ $(v "$1") != unmeasured ]]; }
unmeasured=$(awk '$2 == "unmeasured" { printf "%s%s %s-%s", s, $1, $3, $4; s = ", " }' "$T/calib.txt")
# the instruction cost and the L2 hit weigh every registration: a machine
# that gives neither steadily is too busy to judge a CPU by
for c in CPI0 C_L2; do
	measured $c || skip "$c unmeasured (unmeasured: $unmeasured cycles over 3 repeats): this machine is too busy to calibrate; run it alone"
done
awk -v f="$(v f_core)" 'BEGIN { exit !(f >= 0.5 && f <= 7) }' || fail "core clock $(v f_core) GHz"
# gt A B: A's median above B's
gt() {
	local a b
	a=$(v "$1") b=$(v "$2")
	awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + 0 > b + 0 && a != "none" && b != "none") }' ||
		fail "$1 ($a) is not above $2 ($b)"
}
# each ordering the constants it makes are measured by
measured C_mem && measured C_LLC && gt lat_mem lat_llc
measured C_LLC && gt lat_llc lat_l2
gt lat_l2 lat_l1
measured C_atomic && gt lat_lock lat_inc
measured C_walk && gt lat_walk4k lat_walk2m
for c in CPI0 C_atomic C_L2 C_LLC C_mem C_walk; do
	measured $c || continue
	awk -v x="$(v "$c")" 'BEGIN { exit !(x + 0 > 0) }' || fail "$c is $(v "$c"), not positive"
	awk -v c="$c" '$1 == c { exit !($4 <= 1.5 * $3) }' "$T/calib.txt" || fail "$c is measured, but its repeats differ by more than x1.5"
done
pass "core $(v f_core) GHz; L2 $(v lat_l2) > L1 $(v lat_l1) cycles; CPI0 $(v CPI0), C_L2 $(v C_L2), C_atomic $(v C_atomic), C_LLC $(v C_LLC), C_mem $(v C_mem), C_walk $(v C_walk)${unmeasured:+ (unmeasured here, weighed 0: $unmeasured)}"
