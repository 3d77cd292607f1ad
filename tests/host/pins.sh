#!/bin/bash
# pins.sh CASE: verdicts that hold while the machine does other work.
# nr_foll_pin_acquired/released are the machine's: longpin judges a run's
# leak by them only inside its pin window, which no other longpin pins
# in (a machine-wide lock, shared while a run only pins, exclusive while
# its counters judge), and only when the counters moved by what the
# run's own pins explain; else the check reads unchecked, with the
# figures, never pass or fail.
#   side-by-side  a lifetime cycles run and a torture run started
#                 together: both judged (pass, counters balanced)
#   foreign       beside a pinner that is not longpin (pin-loop: io_uring
#                 registrations in a loop): lifetime cycles and torture
#                 read unchecked with the figures, exit 0; a VmPin leak
#                 still fails
#   lock          a judged window waits for the lock another holds
#                 exclusively (LONGPIN_PIN_LOCK, a file of the test's
#                 own), a run that only pins shares it
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
case=$1
is_root || skip "needs root: the pin counters are exact only after stat_refresh"
grep -q nr_foll_pin_acquired /proc/vmstat || skip "no nr_foll_pin_* in /proc/vmstat"

# field CSV COLUMN: the last row's COLUMN
field() { csv_awk "$1" -v c="$2" 'NR > 1 { v = $col(c) } END { print v }'; }

# cycles CSV ARGS: longpin lifetime cycles on anon, its status in CSV.rc
cycles() {
	local csv=$1
	shift
	"$LONGPIN" lifetime cycles --mem anon --csv "$csv" "$@" >"$csv.out" 2>&1
	echo $? >"$csv.rc"
}
# torture CSV ARGS: longpin torture on anon, its status in CSV.rc
torture() {
	local csv=$1
	shift
	"$LONGPIN" torture --mem anon --size 4M --seconds 3 --csv "$csv" "$@" >"$csv.out" 2>&1
	echo $? >"$csv.rc"
}
# verdict CSV KIND: judged (pass, the counters balanced), unchecked
# (their note says other pinners moved them, with the figures: this
# machine's others, not the partner), or bad (anything else: printed)
verdict() {
	local v note
	v=$(field "$1" verdict) note=$(field "$1" note)
	if [ "$(cat "$1.rc")" != 0 ]; then
		echo "bad: $2 exit $(cat "$1.rc"), verdict $v: $note"
	elif [ "$v" = pass ] && case $2 in
		cycles) echo "$note" | grep -Eq "nr_foll_pin acquired \+([0-9]+) released \+\1$" ;;
		torture) [ "$(field "$1" foll_pin_delta)" = 0 ] ;;
		esac; then
		echo judged
	elif [ "$v" = unchecked ] && echo "$note" | grep -q "other pinners moved nr_foll_pin"; then
		echo "unchecked: $note"
	else
		echo "bad: $2 verdict $v, foll_pin_delta $(field "$1" foll_pin_delta): $note"
	fi
}

case $case in
side-by-side)
	# both through the lock of every longpin, a file of the test's own
	# here: the longpins of other checkouts on this machine take the
	# real one, or none; what they pin leaves a run unchecked, never
	# failed. Up to 3 attempts for one that nothing else disturbed.
	export LONGPIN_PIN_LOCK=$T/pins.lock
	for i in 1 2 3; do
		rm -f "$T/c.csv" "$T/t.csv"
		cycles "$T/c.csv" --size 3M --cycles 3000 &
		a=$!
		torture "$T/t.csv" &
		b=$!
		wait $a $b
		cat "$T/c.csv.out" "$T/t.csv.out"
		c=$(verdict "$T/c.csv" cycles) t=$(verdict "$T/t.csv" torture)
		echo "attempt $i: cycles $c; torture $t"
		case "$c$t" in *bad:*) fail "attempt $i: cycles $c; torture $t" ;; esac
		[ "$c$t" = judgedjudged ] &&
			pass "side by side: cycles $(field "$T/c.csv" note | sed 's/.*; //'), torture $(field "$T/t.csv" reg_ok) registrations, both balanced"
	done
	skip "other pinners on this machine left a run of each of 3 attempts unchecked (never failed)" ;;
foreign)
	loop=${LONGPIN_PIN_LOOP:-$REPO/build/tests/pin-loop}
	[ -x "$loop" ] || fail "no $loop: build first"
	"$loop" 1024 >"$T/loop.out" 2>&1 &
	lp=$!
	on_exit "kill $lp 2>/dev/null"
	for _ in $(seq 50); do grep -q pinning "$T/loop.out" && break; sleep 0.1; done
	grep -q pinning "$T/loop.out" || fail "pin-loop did not start: $(cat "$T/loop.out")"
	cycles "$T/c.csv" --size 4M --cycles 300
	cat "$T/c.csv.out"
	[ "$(cat "$T/c.csv.rc")" = 0 ] || fail "cycles beside pin-loop: exit $(cat "$T/c.csv.rc")"
	[ "$(field "$T/c.csv" verdict)" = unchecked ] || fail "cycles beside pin-loop: verdict $(field "$T/c.csv" verdict), want unchecked"
	field "$T/c.csv" note | grep -Eq "leak check unchecked: other pinners moved nr_foll_pin.*acquired \+[0-9]+ released \+[0-9]+" ||
		fail "cycles: the note does not say why, with the figures: $(field "$T/c.csv" note)"
	torture "$T/t.csv"
	cat "$T/t.csv.out"
	[ "$(cat "$T/t.csv.rc")" = 0 ] || fail "torture beside pin-loop: exit $(cat "$T/t.csv.rc")"
	[ "$(field "$T/t.csv" verdict)" = unchecked ] && [ "$(field "$T/t.csv" foll_pin_delta)" = - ] ||
		fail "torture beside pin-loop: verdict $(field "$T/t.csv" verdict), foll_pin_delta $(field "$T/t.csv" foll_pin_delta), want unchecked, -"
	field "$T/t.csv" note | grep -q "nr_foll_pin not judged: other pinners moved nr_foll_pin" ||
		fail "torture: the note does not say why: $(field "$T/t.csv" note)"
	[ "$(field "$T/t.csv" vmpin_leak_kb)" = 0 ] || fail "torture: VmPin leak"
	# VmPin, the run's own, still judges: a pin kept is a failure
	LONGPIN_TEST_FAULT=pin-leak cycles "$T/l.csv" --size 4M --cycles 100
	cat "$T/l.csv.out"
	[ "$(cat "$T/l.csv.rc")" = 1 ] && [ "$(field "$T/l.csv" verdict)" = fail ] ||
		fail "a pin kept beside pin-loop: exit $(cat "$T/l.csv.rc"), verdict $(field "$T/l.csv" verdict), want 1, fail"
	field "$T/l.csv" note | grep -q "pin leak: VmPin" || fail "the kept pin's note: $(field "$T/l.csv" note)"
	pass "beside pin-loop: cycles and torture unchecked with the figures, exit 0; a kept pin still fails on VmPin" ;;
lock)
	export LONGPIN_PIN_LOCK=$T/pins.lock
	: >"$LONGPIN_PIN_LOCK"
	# held exclusively: a judged window waits until it is given back
	flock -o "$LONGPIN_PIN_LOCK" sleep 3 >/dev/null 2>&1 &
	holder=$!
	on_exit "kill $holder 2>/dev/null"
	sleep 0.3
	t0=$(date +%s%N)
	cycles "$T/c.csv" --size 4M --cycles 100
	took=$((($(date +%s%N) - t0) / 1000000))
	cat "$T/c.csv.out"
	case $(verdict "$T/c.csv" cycles) in bad:*) fail "cycles after the lock: $(verdict "$T/c.csv" cycles)" ;; esac
	[ "$took" -ge 2000 ] || fail "lifetime cycles took $took ms: it did not wait for the lock held 3 s"
	# held shared: a run that only pins (io_uring with I/O) goes on
	flock -o -s "$LONGPIN_PIN_LOCK" sleep 5 >/dev/null 2>&1 &
	holder=$!
	sleep 0.3
	t0=$(date +%s%N)
	run_longpin register --mem anon --size 1M --ios 64 --repeat 1
	took=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" = 0 ] || fail "register beside a shared holder: exit $rc"
	[ "$took" -lt 4000 ] || fail "register took $took ms beside a shared holder: it waited"
	kill $holder 2>/dev/null
	pass "a judged window waited for the exclusive holder (3 s); a run that only pins shared the lock ($took ms)" ;;
*) fail "unknown case $case" ;;
esac
