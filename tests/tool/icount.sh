#!/usr/bin/env bash
# run --icount 0 --nodes 1: the guest runs under the instruction-counting
# QEMU (fetched once from bookworm-backports), its command line says
# longpin.icount=0, it has one NUMA node and its clock counts
# instructions: two registrations of one buffer cost the same to 1%.
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
"$LPVM" run --kernel stock --timeout 600 --icount 0 --nodes 1 -- sh -c \
	'cat /proc/cmdline; ls -d /sys/devices/system/node/node*;
	 longpin --mem anon --size 16M --prefault write --cycles 3 --no-io --quiet --csv /results/b.csv &&
	 awk -F, "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		  { print \"reg\", \$c[\"cycle_reg_ns_min\"], \$c[\"cycle_reg_ns_max\"], \$c[\"accel\"] }" /results/b.csv' \
	>"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "the --icount boot failed"; }
cat "$T/out"
grep -q 'accel: tcg icount shift=0' "$T/err" || fail "no stage line 'accel: tcg icount shift=0'"
grep -q 'longpin.icount=0' "$T/out" || fail "longpin.icount=0 is not on the guest's command line"
[[ $(grep -c '^/sys/devices/system/node/node' "$T/out") == 1 ]] || fail "--nodes 1: the guest has not one node"
read -r _ lo hi _ < <(grep '^reg ' "$T/out")
awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 0 && hi <= lo * 1.01) }' ||
	fail "three registrations under -icount cost $lo to $hi ns/page, not within 1%"
pass "icount boot: one node, longpin.icount=0, registrations $lo-$hi instructions/page"
