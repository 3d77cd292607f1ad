#!/bin/bash
# lifetime.sh CASE: longpin lifetime CASE on this machine's kernel, for
# the memory types it applies to; every row must pass with VmPin balanced.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
case=$1
# the page-cache types' place, read by longpin (tmpfs: /dev/shm)
export LONGPIN_FILE_DIR=${LONGPIN_FILE_DIR:-$T}
unset LONGPIN_TMPFS_DIR
csv=$T/r.csv

# applies TYPE: longpin lists TYPE for $case (lifetime CASE --list, the
# one statement of which types a case runs on); the test runs a subset
applies() { "$LONGPIN" lifetime "$case" --list | grep -xF -- "$1" >/dev/null; }

# lt TYPE ARGS...: longpin lifetime $case, must exit 0
lt() {
	local m=$1
	shift
	applies "$m" || fail "$case $m: longpin lifetime $case --list does not list $m"
	run_longpin lifetime "$case" --mem "$m" --csv "$csv" "$@"
	[ "$rc" = 0 ] || fail "$case $m: exit $rc"
}
# lt_skip TYPE: the case does not apply: exit 77 with a reason
lt_skip() {
	applies "$1" && fail "$case $1: longpin lifetime $case --list lists $1, which it skips"
	run_longpin lifetime "$case" --mem "$1" --size 4M
	[ "$rc" = 77 ] && grep -q "^longpin: lifetime $case: $1" "$T/out" ||
		fail "$case $1: want exit 77 with a reason, got $rc"
}
# rows_ok N: N rows, all op lifetime-$case (or $2), pass, no leak; a
# row whose leak check other pinners on this machine left unchecked
# (pins_foreign: cycles only judges nr_foll_pin) passes but for that
rows_ok() {
	local op=${2:-lifetime-$case} n
	n=$(awk -F, 'NR > 1' "$csv" | grep -c .)
	[ "$n" = "$1" ] || fail "$n rows, want $1"
	awk -F, -v op="$op" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["verdict"] == "unchecked" && $h["note"] ~ /other pinners moved nr_foll_pin/ { $h["verdict"] = "pass" }
		$h["op"] !~ "^" op || $h["verdict"] != "pass" || $h["vmpin_leak_kb"] != 0 {
			print "bad row: " $0; bad = 1 }
		END { exit bad }' "$csv" || fail "rows not all $op/pass/leak 0"
}
# balanced ROW NOTE_REGEX: row ROW's note matches NOTE_REGEX and says the
# pins balanced, or that other pinners left its leak check unchecked
balanced() {
	local note
	note=$(csv_get "$csv" "$1" note)
	pins_foreign "$note" && { echo "row $1 unchecked: $note"; return; }
	echo "$note" | grep -Eq "$2nr_foll_pin acquired \+([0-9]+) released \+\1$" || fail "row $1: pin counters: $note"
}
# data_ok: every row's data_check is ok
data_ok() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["data_check"] != "ok" { bad = 1 } END { exit bad }' "$csv" ||
		fail "a data check is not ok"
}
# hugepages N: true when N free 2 MiB pages are there or root reserves
# them; else the hugetlb types are left out of the case (not the case
# itself), saying what was seen, in the pass line too ($left_out)
left_out=
hugepages() {
	hugepages_try "$1" && return 0
	echo "hugetlb types left out: $HUGEPAGES_WHY"
	left_out="; hugetlb left out: $HUGEPAGES_WHY"
	return 1
}

case $case in
munmap|mremap)
	types="anon anon-thp anon-shared memfd tmpfs-shared file-private"
	hugepages 2 && types="$types hugetlb"
	for m in $types; do lt $m --size 4M --prefault all; done
	n=$(($(echo $types | wc -w) * 3))
	rows_ok $n
	data_ok
	[ $case = mremap ] && lt_skip mixed
	pass "$case: $types x 3 prefaults: fixed I/O on the pinned pages ok, VmPin held, then balanced$left_out" ;;
fork)
	types="anon anon-thp file-private"
	hugepages 4 && types="$types hugetlb"
	for m in $types; do lt $m --size 4M --prefault all; done
	rows_ok $(($(echo $types | wc -w) * 3))
	data_ok
	lt_skip anon-shared
	lt_skip memfd
	pass "fork: $types x 3: the parent sees READ_FIXED data, not the child's writes$left_out" ;;
truncate|punch)
	for m in memfd tmpfs-shared; do lt $m --size 4M --prefault all; done
	rows_ok 6
	data_ok
	lt_skip anon
	lt_skip hugetlb
	pass "$case: memfd, tmpfs-shared x 3: pinned pages keep their data and take fixed I/O both ways" ;;
reclaim|reclaim-pinned|lazyfree)
	# every type the case applies to x 3 prefaults; each row answers its
	# contract by what its pages did (tests/py/reclaim_rows.py): 0 with the
	# data back after they left memory ("pass"), -EIO where the contract
	# lists this kernel's known loss and the bytes of pages that left are
	# gone ("defect"), "unexercised" where nothing left memory (no swap
	# here), never "pass" without pages out
	if [ $case = lazyfree ]; then
		types="anon anon-thp"
	else
		types="anon anon-thp anon-shared sysv-shm memfd tmpfs-shared tmpfs-private file-private mixed"
	fi
	for m in $types; do
		applies "$m" || fail "$case $m: longpin lifetime $case --list does not list $m"
		run_longpin lifetime "$case" --mem "$m" --size 4M --prefault all --csv "$csv"
		[ "$rc" = 0 ] || [ "$rc" = 77 ] || fail "$case $m: exit $rc"
	done
	n=$(($(echo $types | wc -w) * 3))
	[ "$(csv_cols "$csv" op | grep -c .)" = $n ] || fail "want $n rows, skips too"
	rrc=0
	python3 "$REPO/tests/py/reclaim_rows.py" "$csv" || rrc=$?
	[ $rrc = 1 ] && fail "rows do not say what their pages did"
	# where reclaim cannot page anything out the case does not run
	# (DAX types need a DAX mount or device, which the VM tests have)
	if [ $case = lazyfree ]; then
		for m in anon-shared memfd hugetlb file-private; do lt_skip $m; done
	else
		for m in hugetlb memfd-hugetlb sysv-shm-huge; do lt_skip $m; done
		for m in fsdax-shared fsdax-private devdax anon+devdax; do
			applies $m && fail "$case: longpin lifetime $case --list lists $m: DAX memory is never paged out"
		done
	fi
	[ $rrc = 77 ] && skip "$case: no page left memory on this kernel (swap: $(awk 'NR > 1' /proc/swaps | wc -l) areas): every row unexercised, nothing to judge"
	lost=$(csv_awk "$csv" 'NR > 1 && $col("verdict") == "defect" { printf "%s%s/%s", s, $col("memtype"), $col("prefault"); s = " " }')
	[ -n "$lost" ] && echo "THIS KERNEL LOSES DATA: after unpin and reclaim, what the device wrote is gone on $lost"
	pass "$case: $types x 3: no leak; every pass and defect with pages out${lost:+; known loss of the contract: $lost}" ;;
wrong-page)
	# a device write that landed in the wrong pages fails before the
	# unpin, whatever the contract says of the row: never "defect"
	args=(lifetime reclaim --mem memfd --size 4M --prefault read --csv "$csv")
	LONGPIN_TEST_FAULT=wrong-page run_longpin "${args[@]}"
	[ "$rc" = 1 ] || fail "LONGPIN_TEST_FAULT=wrong-page: exit $rc, want 1"
	[ "$(csv_get "$csv" 1 verdict)" = fail ] || fail "verdict $(csv_get "$csv" 1 verdict), want fail"
	csv_get "$csv" 1 note | grep -q "^before the unpin [0-9]* of 4194304 bytes of the buffer differ from what READ_FIXED wrote" ||
		fail "note '$(csv_get "$csv" 1 note)' does not name the write that missed"
	pass "a READ_FIXED into the wrong pages: fail before the unpin, exit 1" ;;
skip-rows)
	# a case that cannot run leaves a row per prefault: verdict skip, the
	# reason its note, and exit 77
	run_longpin lifetime reclaim --mem hugetlb --size 4M --prefault all --csv "$csv"
	[ "$rc" = 77 ] || fail "reclaim of hugetlb: exit $rc, want 77"
	[ "$(csv_cols "$csv" verdict prefault | tr '\n' ' ')" = "skip none skip read skip write " ] ||
		fail "rows: $(csv_cols "$csv" verdict prefault | tr '\n' ' '), want a skip row per prefault"
	csv_get "$csv" 1 note | grep -q "MADV_PAGEOUT answers EINVAL" || fail "note '$(csv_get "$csv" 1 note)' gives no reason"
	[ "$(csv_get "$csv" 1 result)" = - ] || fail "result '$(csv_get "$csv" 1 result)' on a skip row, want -"
	pass "lifetime reclaim of hugetlb: 3 skip rows with the reason, exit 77" ;;
hugepages-short)
	# huge pages that cannot be had leave the hugetlb type out, and the
	# case still runs on the others (it skipped whole): munmap in a mount
	# namespace whose nr_hugepages is a plain file, so that nothing
	# written there reserves a page
	is_root || skip "needs root to bind-mount over /proc/sys/vm/nr_hugepages"
	command -v unshare >/dev/null || skip "no unshare (util-linux)"
	[ "$(free_hugepages)" -lt 2 ] || skip "$(free_hugepages) huge pages free already: none would be reserved"
	echo 0 >"$T/nr_hugepages"
	rc=0
	unshare -m sh -c "mount --bind '$T/nr_hugepages' /proc/sys/vm/nr_hugepages && exec bash '$0' munmap" \
		>"$T/o" 2>&1 || rc=$?
	cat "$T/o"
	[ "$rc" = 0 ] || fail "munmap without huge pages: exit $rc, want 0 (the other types run)"
	grep -q "^PASS: munmap: anon .*; hugetlb left out: wanted 2 free 2 MiB pages, 0 free" "$T/o" ||
		fail "the pass does not name the type left out and why"
	pass "no huge pages to be had: munmap ran on the other types and says hugetlb was left out" ;;
defect-short-read|defect-pin-leak|defect-unreg-fail)
	# a row whose contract names a known defect (-EIO: data lost after
	# reclaim) reads "defect" only when that happened: a short READ_FIXED,
	# a pin left or a refused unregistration (LONGPIN_TEST_FAULT) fails
	# with its cause, exit 1, whatever its errno
	case $case in
	*short-read) cause="READ_FIXED of 1048576 bytes at buffer offset 0: short; 524288 bytes" ;;
	*pin-leak) cause="pin leak: VmPin 0 kB -> 4096 kB" ;;
	*unreg-fail) cause="unregistration answered -6 \\(ENXIO\\)" ;;
	esac
	args=(lifetime reclaim --mem memfd --size 4M --prefault read --csv "$csv")
	run_longpin "${args[@]}"
	ran_ok "reclaim of read-prefaulted memfd"
	case $(csv_get "$csv" 1 verdict) in
	defect | fixed) ;;
	pass) skip "no known defect for reclaim of read-prefaulted memfd in $(csv_get "$csv" 1 contract)" ;;
	*) fail "reclaim of read-prefaulted memfd: verdict $(csv_get "$csv" 1 verdict)" ;;
	esac
	LONGPIN_TEST_FAULT=${case#defect-} run_longpin "${args[@]}"
	[ "$rc" = 1 ] || fail "LONGPIN_TEST_FAULT=${case#defect-}: exit $rc, want 1"
	[ "$(csv_get "$csv" 2 verdict)" = fail ] || fail "verdict $(csv_get "$csv" 2 verdict), want fail"
	csv_get "$csv" 2 note | grep -Eq "(^|; )$cause; not the contract.s known defect" ||
		fail "note '$(csv_get "$csv" 2 note)' does not name the cause"
	pass "${case#defect-} on a known-defect row: fail, exit 1, note: $(csv_get "$csv" 2 note)" ;;
unreg-inflight|close-ring)
	types="anon memfd"
	hugepages 2 && types="$types hugetlb"
	for m in $types; do lt $m --size 4M --prefault all; done
	rows_ok $(($(echo $types | wc -w) * 3))
	[ $case = unreg-inflight ] && data_ok
	pass "$case: $types x 3: $(csv_get "$csv" 1 note)$left_out" ;;
update)
	types="anon memfd readonly file-shared mixed sysv-shm"
	hugepages 2 && types="$types hugetlb"
	for m in $types; do lt $m --size 4M; done
	rows_ok "$(echo $types | wc -w)"
	i=0
	for m in $types; do
		i=$((i + 1))
		want=$("$LONGPIN" expected --mem "$m" --size 4M | cut -f5)
		got=$(csv_get "$csv" $i result)
		[ "$got" = 0 ] || got=-$(csv_get "$csv" $i errno)
		[ "$got" = "$want" ] || fail "update to $m answered $got, the contract says $want"
		summary="${summary:-}$m $got, "
	done
	pass "update: ${summary%, } (as the contract; refused: old anon slot still serves READ_FIXED)$left_out" ;;
cycles)
	is_root || skip "needs root: the pin counters are exact only after stat_refresh"
	grep -q nr_foll_pin_acquired /proc/vmstat || skip "no nr_foll_pin_* in /proc/vmstat"
	lt anon --size 1M
	rows_ok 1
	note=$(csv_get "$csv" 1 note)
	[ "$(csv_get "$csv" 1 cycles)" = 10000 ] || fail "cycles column"
	balanced 1 ""
	# a refused type: the contract's answer every cycle, nothing left pinned
	lt readonly --size 1M --cycles 1000
	rows_ok 2
	want=$("$LONGPIN" expected --mem readonly --size 1M | cut -f5)
	[ "$want" != 0 ] || fail "readonly registers on this kernel?"
	[ "-$(csv_get "$csv" 2 errno)" = "$want" ] || fail "readonly cycles: $(csv_get "$csv" 2 errno), want $want"
	balanced 2 "1000 cycles .*each answering ${want#-}; "
	# --concurrent: the global balance is the caller's
	lt anon --size 1M --cycles 100 --concurrent
	rows_ok 3
	csv_get "$csv" 3 note | grep -q "nr_foll_pin not judged here (--concurrent)" ||
		fail "--concurrent: $(csv_get "$csv" 3 note)"
	pass "cycles: $note; VmPin $(csv_get "$csv" 1 vmpin_before_kb) -> $(csv_get "$csv" 1 vmpin_after_kb) kB; readonly $want x 1000, balanced" ;;
limits)
	# 1 GiB + 4 KiB: the contract's answer (-EFAULT to 6.18, 0 from 7.2)
	over=$("$LONGPIN" expected --mem anon --prefault none --size 1049600K | cut -f5)
	[ "$over" = -EFAULT ] && over_errno=EFAULT || over_errno=-
	lt anon --prefault none
	rows_ok 4 limit-
	got=$(csv_cols "$csv" op errno | tr '\n' ' ')
	[ "$got" = "limit-nbufs-16384 - limit-nbufs-16385 EINVAL limit-1g - limit-1g+4k $over_errno " ] ||
		fail "limits: $got"
	lt_skip_limits=$("$LONGPIN" lifetime limits --mem memfd >/dev/null 2>&1; echo $?)
	[ "$lt_skip_limits" = 77 ] || fail "limits on memfd: want 77"
	pass "limits: 16384 buffers ok, 16385 -EINVAL, 1 GiB ok (VmPin +1048576 kB), 1 GiB + 4 KiB $over as the contract says" ;;
limits-short)
	# a pin the memory cannot hold is a skip row with the figures, not
	# the OOM killer ending longpin (LONGPIN_TEST_FAULT=mem-short: it
	# reads MemAvailable as 0 kB); the rows that pin nothing still run
	export LONGPIN_TEST_FAULT=mem-short
	case=limits
	lt anon --prefault none
	# a refused 1 GiB + 4 KiB pins nothing and runs; one the kernel
	# takes (7.2) needs the memory and skips
	over=$("$LONGPIN" expected --mem anon --prefault none --size 1049600K | cut -f5)
	[ "$over" = -EFAULT ] && over_v=pass || over_v=skip
	got=$(csv_cols "$csv" op verdict | tr '\n' ' ')
	[ "$got" = "limit-nbufs-16384 skip limit-nbufs-16385 pass limit-1g skip limit-1g+4k $over_v " ] ||
		fail "limits with MemAvailable 0: $got"
	note=$(csv_get "$csv" 3 note)
	echo "$note" | grep -q "^limit-1g needs 1088 MiB available to pin 1024 MiB[,;] MemAvailable is 0 MiB" ||
		fail "limit-1g skip note: $note"
	grep -q "^longpin: lifetime limits: skip: limit-1g needs" "$T/out" || fail "the skip is not said on stderr"
	pass "limits with MemAvailable 0: 16384 x 4K and 1 GiB skip ($note), the refusals still run" ;;
memlock)
	is_root || skip "needs root to run as another user with a small RLIMIT_MEMLOCK"
	command -v setpriv >/dev/null && command -v prlimit >/dev/null || skip "setpriv/prlimit (util-linux) missing"
	chmod 0777 "$T"
	touch "$csv"; chmod 666 "$csv"
	# a fresh uid per run: an exited process's ring stays charged a moment
	uid=$((40000 + $$ % 10000))
	# PREFIX: what run_longpin (tests/lib.sh) runs longpin under
	# shellcheck disable=SC2034
	as() { uid=$((uid + 1)); PREFIX=(prlimit --memlock=65536 setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all); }
	as; run_longpin lifetime memlock --mem anon --size 64K --csv "$csv"
	[ "$rc" = 0 ] || fail "64K under 64K: exit $rc"
	charged=$(sed -n 's/.*charged already \([0-9]*\) kB.*/\1/p' "$T/out" | head -1)
	[ -z "$charged" ] && charged=$(csv_get "$csv" 1 note | sed -n 's/.*charged already \([0-9]*\) kB.*/\1/p')
	[ -n "$charged" ] || fail "no 'charged already' in the note"
	if [ "$charged" = 0 ]; then
		[ "$(csv_get "$csv" 1 result)" = 0 ] || fail "64K at a 64K limit refused"
		at=64
	else
		[ "$(csv_get "$csv" 1 errno)" = ENOMEM ] || fail "64K + $charged kB charged under 64K: want ENOMEM"
		at=$((64 - charged))
		as; run_longpin lifetime memlock --mem anon --size ${at}K --csv "$csv"
		[ "$rc" = 0 ] && [ "$(csv_get "$csv" 2 result)" = 0 ] || fail "${at}K (+ $charged kB charged) under 64K refused"
	fi
	as; run_longpin lifetime memlock --mem anon --size $((at + 4))K --csv "$csv"
	[ "$rc" = 0 ] || fail "$((at + 4))K: exit $rc"
	grep -q "the kernel refused $((at + 4)) kB with -ENOMEM: RLIMIT_MEMLOCK is 64 kB and $charged kB are charged already: it needs at least $((at + 4 + charged)) kB" "$T/out" ||
		fail "no 'needs at least' message"
	[ "$(csv_cols "$csv" errno | tail -n 1)" = ENOMEM ] || fail "$((at + 4))K: want ENOMEM"
	rows_ok "$(awk -F, 'NR > 1' "$csv" | grep -c .)"
	# --no-memlock-check: the plain row records the kernel's answer
	as; run_longpin register --mem anon --size 128K --no-io --no-memlock-check --csv "$T/p.csv"
	[ "$(csv_get "$T/p.csv" 1 errno)" = ENOMEM ] || fail "--no-memlock-check: want the kernel's ENOMEM"
	pass "memlock as uid $uid, RLIMIT_MEMLOCK 64 kB, $charged kB charged by the ring: ${at}K registers, $((at + 4))K -ENOMEM with the limit needed" ;;
*)	fail "unknown case $case" ;;
esac
