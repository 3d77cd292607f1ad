#!/usr/bin/env bash
# run --icount 0 --nodes 1: the guest runs under the instruction-counting
# QEMU (fetched once from bookworm-backports), its command line says
# longpin.icount=0, it has one NUMA node and its clock counts
# instructions: two registrations of one buffer cost the same to 1%.
# The vCPUs run in turns: while CPU 0 spins, CPU 1's clock jumps by CPU 0's
# whole turn, up to a guest timer away (over 500 us); with hpet-tick.sh's
# 10 us tick (vm/guest/bench.sh's stall runs) no jump reaches 200 us, and
# once the tick is stopped they are back.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
command -v cc >/dev/null || skip "no C compiler (apt-get install -y gcc)"
cc -std=gnu11 -O2 -Wall -static -pthread -o "$T/icount-turns" "$(dirname "$0")/icount-turns.c" 2>"$T/cc.err" ||
	skip "cannot build icount-turns static: $(head -n1 "$T/cc.err") (apt-get install -y libc6-dev)"
"$LPVM" run --kernel stock --timeout 600 --icount 0 --nodes 1 --add "$T/icount-turns:/opt/icount-turns" -- sh -c \
	'cat /proc/cmdline; ls -d /sys/devices/system/node/node*;
	 longpin --mem anon --size 16M --prefault write --cycles 3 --no-io --quiet --csv /results/b.csv &&
	 awk -F, "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		  { print \"reg\", \$c[\"cycle_reg_ns_min\"], \$c[\"cycle_reg_ns_max\"], \$c[\"accel\"] }" /results/b.csv &&
	 echo "turns off $(/opt/icount-turns)" &&
	 sh /opt/longpin/hpet-tick.sh 10 && echo "turns tick $(/opt/icount-turns)" &&
	 sh /opt/longpin/hpet-tick.sh 0 && sleep 0.1 && echo "turns stopped $(/opt/icount-turns)"' \
	>"$T/out" 2>"$T/err" || { cat "$T/out" "$T/err"; fail "the --icount boot failed"; }
cat "$T/out"
grep -q 'accel: tcg icount shift=0' "$T/err" || fail "no stage line 'accel: tcg icount shift=0'"
grep -q 'longpin.icount=0' "$T/out" || fail "longpin.icount=0 is not on the guest's command line"
[[ $(grep -c '^/sys/devices/system/node/node' "$T/out") == 1 ]] || fail "--nodes 1: the guest has not one node"
read -r _ lo hi _ < <(grep '^reg ' "$T/out")
awk -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(lo > 0 && hi <= lo * 1.01) }' ||
	fail "three registrations under -icount cost $lo to $hi ns/page, not within 1%"
gap() { sed -n "s/^turns $1 longest gap \([0-9.]*\) us$/\1/p" "$T/out"; }
off=$(gap off) tick=$(gap tick) stopped=$(gap stopped)
[[ -n $off && -n $tick && -n $stopped ]] || fail "icount-turns did not report three gaps"
awk -v g="$off" 'BEGIN { exit !(g > 500) }' || fail "without the tick the longest turn was $off us, not over 500"
awk -v g="$tick" 'BEGIN { exit !(g < 200) }' || fail "with the 10 us HPET tick the longest turn was $tick us, not under 200"
awk -v g="$stopped" 'BEGIN { exit !(g > 500) }' || fail "once stopped the longest turn was $stopped us: the tick did not stop"
pass "icount boot: one node, longpin.icount=0, registrations $lo-$hi instructions/page; longest turn $off us, $tick us with the tick, $stopped us after"
