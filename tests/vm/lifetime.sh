#!/bin/bash
# lifetime.sh KERNEL: every longpin --lifetime case inside KERNEL
# (vm/longpin-vm), one boot running vm/guest/run.sh lifetime; every row
# passes against the kernel's contract (or is its known data loss), VmPin
# balanced. The cases one by one on this machine's kernel: tests/host/lifetime.sh.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
kernel=$1
repo=$REPO

need_qemu
contract=$(contract_of "$kernel") || fail "no contract known for kernel '$kernel'"
runas=$(dirname "$LONGPIN")/lp-runas
[ -x "$runas" ] || fail "no $runas (built by CMake beside longpin)"
# KASAN and lockdep under TCG: 1,000 cycles instead of 10,000
cycles=10000
[ "$kernel" = patched-debug ] && cycles=1000
rc=0
"$repo/vm/longpin-vm" run --kernel "$kernel" --timeout 1500 --out "$T/res" \
	--add "$runas:/usr/bin/lp-runas" -- \
	env LONGPIN_LT_CYCLES="$cycles" sh /opt/longpin/run.sh lifetime \
	>"$T/out" 2>&1 || rc=$?
cat "$T/out"
csv=$T/res/lifetime.csv
[ -f "$csv" ] || fail "no CSV from the guest (exit $rc)"
[ "$rc" = 0 ] || fail "guest exit status $rc"
grep -q "^not ok" "$T/out" && fail "a case failed in the guest"
skips=$(grep -c "# SKIP" "$T/out")
# every row pass against the kernel's contract, no leak; "defect" only
# where the contract lists a known data loss (never on patched), and
# only that loss: every step held and the bytes differ; a reclaim row
# that passes got its data back ("fixed", a known defect that did not
# show, fails: every defect row of a contract is a positive control);
# a reclaim or lazyfree row whose every page was dirty before the unpin
# reads "unexercised" (reclaim_rows.py below checks its pages)
# (a skip row: a type this kernel refuses, with the reason in its note)
awk -F, -v c="$contract" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["verdict"] == "skip" { if ($h["note"] == "" || $h["contract"] != c) { print "bad skip row: " $0; bad = 1 } next }
	$h["verdict"] == "unexercised" && $h["op"] ~ /^lifetime-(reclaim|lazyfree)/ { next }
	($h["verdict"] != "pass" && $h["verdict"] != "defect") ||
	$h["vmpin_leak_kb"] != 0 || $h["contract"] != c {
		print "bad row: " $0; bad = 1 }
	$h["verdict"] == "defect" && ($h["op"] !~ /^lifetime-(reclaim|lazyfree)/ || c ~ /^longpin/ ||
		$h["data_check"] != "mismatch" || $h["note"] !~ /(^|; )data lost: [0-9]+ of/) {
		print "defect row: " $0; bad = 1 }
	$h["verdict"] == "pass" && $h["op"] ~ /^lifetime-(reclaim|lazyfree)/ && $h["data_check"] != "ok" {
		print "reclaim pass without its data: " $0; bad = 1 }
	END { exit bad }' "$csv" || fail "rows not all pass against $contract"
# the reclaim and lazyfree rows say what their pages did: pages out on
# every pass and defect (the guests swap to a ram disk)
python3 "$REPO/tests/py/select_rows.py" "$csv" "$T/reclaim.csv" \
	lifetime-reclaim lifetime-reclaim-pinned lifetime-lazyfree || fail "no reclaim rows"
python3 "$REPO/tests/py/reclaim_rows.py" "$T/reclaim.csv" --want-exercised || fail "reclaim rows"
rows=$(awk -F, 'NR > 1' "$csv" | grep -c .)
get() { awk -F, -v op="$1" -v m="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["op"] == op && $h["memtype"] == m { print $h[col] }' "$csv"; }
# reclaim: every type the contract registers has its rows, and the
# data survives unpin and reclaim except where the contract says it
# is lost: stock 6.1 loses the READ_FIXED data of read-prefaulted
# memfd (the defect kernel-patches/ fixes), patched loses nothing
lost=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["verdict"] == "defect" { printf "%s%s/%s/%s", s, substr($h["op"], 10), $h["memtype"], $h["prefault"]; s = " " }' "$csv")
case $contract in
longpin*) [ -z "$lost" ] || fail "data lost on $contract: $lost" ;;
*)
	for l in reclaim/memfd/read lazyfree/anon/write lazyfree/anon-thp/none; do
		echo "$lost" | grep -q "$l" || fail "$kernel should lose $l data ($contract's known defect): lost only '$lost'"
	done ;;
esac
echo "known data loss on $kernel: ${lost:-none}"
# update answers what the contract says for registering each type;
# munmap, reclaim, reclaim-pinned, unreg-inflight, close-ring ran on
# every type the case applies to (longpin --lifetime CASE --list) and the
# contract lets register (none skipped for want of a file system or
# device), and on no other (reclaim: no DAX or hugetlb row, where
# nothing is paged out)
types=$("$LONGPIN" --list)
for m in $types; do
	want=$("$LONGPIN" --print-expected --expect "$contract" --mem "$m" --size 4M | cut -f5 | sort -u)
	for c in munmap reclaim reclaim-pinned lazyfree unreg-inflight close-ring; do
		if ! "$LONGPIN" --lifetime $c --list | grep -qxF -- "$m"; then
			[ -z "$(get lifetime-$c "$m" verdict)" ] || fail "$c $m: a row, though the case does not apply to $m"
		elif [ "$want" = 0 ]; then
			[ -n "$(get lifetime-$c "$m" verdict)" ] || fail "$c $m: no row, though $contract registers $m"
		fi
	done
	# update: per prefault, the contract's answer for registering $m
	# there (fsdax-private registers on 6.5+ only once written)
	for pf in none read write; do
		w=$("$LONGPIN" expected --expect "$contract" --mem "$m" --size 4M --prefault $pf | cut -f5)
		g=$(csv_awk "$csv" -v m="$m" -v pf=$pf '$col("op") == "lifetime-update" && $col("memtype") == m && $col("prefault") == pf { print $col("result") == 0 ? 0 : "-" $col("errno") }')
		[ "$g" = "$w" ] || fail "update $m $pf: answered '$g', contract $contract says $w"
	done
done
# limits
# 1 GiB + 4 KiB: the contract's answer (-EFAULT to 6.18, 0 on 7.2)
# (the expected column: 0 or -ERRNO; the answer: result 0 or errno ERRNO)
over=$(get limit-1g+4k anon expected)
got=$(get limit-1g+4k anon result)
[ "$got" = 0 ] || got=-$(get limit-1g+4k anon errno)
[ "$(get limit-nbufs-16384 anon result) $(get limit-nbufs-16385 anon errno) $(get limit-1g anon result) $got" = "0 EINVAL 0 $over" ] ||
	fail "limits: want 0 EINVAL 0 $over, got $got for 1 GiB + 4 KiB"
# memlock: 64 kB at a 64 kB limit (6.1 charges no ring pages), 68 kB -ENOMEM
ml=$(get lifetime-memlock anon result | tr '\n' ' ')
[ "$ml" = "0 -12 0 " ] || fail "memlock 64K/68K/60K under 64K: $ml, want 0 -12 0"
grep -q "RLIMIT_MEMLOCK is 64 kB and 0 kB are charged already: it needs at least 68 kB" "$T/out" ||
	fail "no 'needs at least 68 kB' message"
# cycles: a row per memory type, each the contract's answer every time,
# and the system-wide pins balanced over all of them
for m in $types; do
	[ "$(get lifetime-cycles "$m" note | grep -c "^$cycles cycles of")" = 1 ] ||
		fail "cycles $m: no row of $cycles cycles"
done
cyc=$(grep -o "cycles balanced: .*" "$T/out") || fail "no 'cycles balanced' line"
echo "$cyc"
pass "$kernel: $rows rows, all pass against $contract ($skips skipped); data lost (known defect): ${lost:-none}; update as the contract; limits 0/EINVAL/0/EFAULT; memlock 64K at 64K ok, 68K ENOMEM; cycles: $cyc; $(grep -o 'boot to first result: [0-9.]* s' "$T/out")"
