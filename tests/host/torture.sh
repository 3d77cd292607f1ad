#!/bin/bash
# torture.sh CASE: longpin torture on this machine's kernel: every
# registration answers the contract or a race answer, every fixed I/O
# round holds its pattern, thousands of operations, pins balanced.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
case=$1
rc=0
export LONGPIN_FILE_DIR=${LONGPIN_FILE_DIR:-$T}
unset LONGPIN_TMPFS_DIR
csv=$T/t.csv

# col NAME: NAME of the last row of $csv
col() { csv_awk "$csv" -v c="$1" 'NR > 1 { v = $col(c) } END { print v }'; }

# A run of fixed seconds makes fewer operations while the machine does
# other work (another checkout's tests, a guest): a minimum not reached
# runs the case again twice as long (LONGPIN_TORTURE_SCALE, up to 4
# times) before it fails. Each run is judged whole, every time.
scale=${LONGPIN_TORTURE_SCALE:-1}
# too_few WHAT: the case again, twice as long, or a failure naming WHAT
too_few() {
	if [ "$scale" -lt 4 ]; then
		echo "+ $1: the case again, $((scale * 2)) times as long (load average $(cut -d' ' -f1-3 /proc/loadavg))"
		LONGPIN_TORTURE_SCALE=$((scale * 2)) bash "$0" "$case"
		exit
	fi
	fail "$1 (in runs 1, 2 and 4 times as long)"
}

# tt TYPE SIZE SECONDS ARGS...: one run of SECONDS (times the scale),
# exit 0, a judged row
tt() {
	local m=$1 size=$2 secs=$(($3 * scale))
	shift 3
	run_longpin torture --seconds "$secs" --mem "$m" --size "$size" --csv "$csv" "$@"
	[ "$rc" = 77 ] && skip "$m: $(tail -1 "$T/out")"
	[ "$rc" = 0 ] || fail "$m: exit $rc"
}

# row_ok MIN_OPS: the last row passed: no bad answer, no bad I/O, no
# harness error, VmPin back, nr_foll_pin balanced (root), MIN_OPS at least;
# or, where other pinners on this machine moved nr_foll_pin meanwhile, all
# of that but the balance, unchecked ($unchecked says so in the pass line)
unchecked=
row_ok() {
	local c v sum=0 want_delta=0 want_reports=0
	is_root || want_delta=- want_reports=-
	if [ "$(col verdict)" = unchecked ] && pins_foreign "$(col note)"; then
		want_delta=-
		unchecked="; nr_foll_pin unchecked: other pinners moved it"
	else
		[ "$(col verdict)" = pass ] || fail "verdict $(col verdict): $(col note)"
	fi
	for c in reg_bad io_bad harness_err vmpin_leak_kb hugetlb_rsvd_delta; do
		v=$(col $c)
		[ "$v" = 0 ] || fail "$c is $v, want 0: $(col note)"
	done
	[ "$(col foll_pin_delta)" = $want_delta ] ||
		fail "foll_pin_delta is $(col foll_pin_delta), want $want_delta"
	# /dev/kmsg is read as root only
	[ "$(col kernel_reports)" = "$want_reports" ] ||
		fail "kernel_reports is $(col kernel_reports): $(col note)"
	# the operation counters: the columns between ops and reg_ok
	sum=$(csv_awk "$csv" 'NR > 1 { s = 0; for (j = col("ops") + 1; j < col("reg_ok"); j++) s += $j }
		END { print s }')
	[ "$sum" -ge $(($1 * scale)) ] || too_few "only $sum operations, want $(($1 * scale)) or more"
	ops_sum=$sum
}

# at_least COLUMN N
at_least() {
	[ "$(col "$1")" -ge "$2" ] || too_few "$1 is $(col "$1"), want $2 or more"
}

figures() {
	echo "$(col memtype) $(col seconds) s: $ops_sum ops ($(col threads) threads: $(col ops)); reg_ok $(col reg_ok) refused $(col reg_refused) raced $(col reg_raced); io_ok $(col io_ok) raced $(col io_raced)$unchecked"
}

case $case in
reg-efault)
	# a kernel that refuses every registration of a type the contract
	# lets register: a race excuses no -EFAULT, and the run must show
	# registrations that succeeded
	LONGPIN_TEST_FAULT=reg-efault run_longpin torture --seconds 2 --mem anon --size 4M --csv "$csv"
	[ "$rc" = 1 ] || fail "every registration refused: exit $rc, want 1"
	[ "$(col verdict)" = fail ] || fail "verdict $(col verdict), want fail"
	[ "$(col reg_ok)" = 0 ] || fail "reg_ok $(col reg_ok) under reg-efault"
	col note | grep -q "no registration succeeded in [0-9]* (the contract lets anon register)" ||
		fail "note does not say that no registration succeeded: $(col note)"
	pass "every registration refused: fail, reg_bad $(col reg_bad), raced $(col reg_raced)" ;;
reg-efault-calm)
	# a registration's -EFAULT is excused only when an op that changes
	# the layout ran during that very call: every other registration of
	# the reg thread, made with those ops held off, answers -EFAULT and
	# each is bad; the others register, or race and are excused
	LONGPIN_TEST_FAULT=reg-efault-calm run_longpin torture --seconds $((2 * scale)) --mem anon --size 4M \
		--ops reg,remap,mremap,mprotect --csv "$csv"
	[ "$rc" = 1 ] || fail "every other registration refused with no race: exit $rc, want 1"
	[ "$(col verdict)" = fail ] || fail "verdict $(col verdict), want fail"
	calm=$(($(col reg) / 2))
	[ "$(col reg_bad)" = "$calm" ] ||
		fail "reg_bad $(col reg_bad), want $calm: the -EFAULTs of the $(col reg) registrations made with no layout op meanwhile, and no other"
	at_least reg_ok 100
	at_least reg_raced 1
	col note | grep -q "^register answered EFAULT" || fail "note does not name the bad answer: $(col note)"
	pass "$calm -EFAULTs with no layout op meanwhile: each bad; reg_ok $(col reg_ok), raced $(col reg_raced) excused" ;;
pin-leak)
	# a registration left after the threads (LONGPIN_TEST_FAULT=
	# torture-pin-leak keeps one of the whole buffer until the run is
	# judged): VmPin not back, the run fails saying so; with
	# --concurrent too, where VmPin alone judges it (nr_foll_pin is left
	# to the caller)
	for conc in "" --concurrent; do
		# shellcheck disable=SC2086
		LONGPIN_TEST_FAULT=torture-pin-leak run_longpin torture --seconds 1 --mem anon --size 4M \
			--ops reg,madvise $conc --csv "$csv"
		[ "$rc" = 1 ] || fail "a pin left after the run ($conc): exit $rc, want 1"
		[ "$(col verdict)" = fail ] || fail "verdict $(col verdict) ($conc), want fail"
		[ "$(col vmpin_leak_kb)" = 4096 ] || fail "vmpin_leak_kb $(col vmpin_leak_kb) ($conc), want 4096"
		col note | grep -q "pin leak: VmPin +4096 kB" || fail "note does not name the leak ($conc): $(col note)"
	done
	[ "$(col foll_pin_delta)" = - ] || fail "--concurrent: foll_pin_delta $(col foll_pin_delta), want -"
	pass "a registration kept past the run: fail, VmPin +4096 kB, with --concurrent too" ;;
anon|memfd|tmpfs-shared|file-private)
	tt "$case" 4M 3
	row_ok 5000
	at_least reg_ok 100
	at_least io_ok 100
	at_least remap 10
	at_least fork 10
	at_least mprotect 10
	case $case in memfd|tmpfs-shared|file-private) at_least truncate 10; at_least punch 10 ;; esac
	pass "$(figures)" ;;
file-shared)
	# refused on every kernel: every answer is the contract's or -EFAULT
	tt file-shared 4M 3
	row_ok 5000
	[ "$(col reg_ok)" = 0 ] || fail "reg_ok $(col reg_ok): file-shared registered"
	at_least reg_refused 100
	[ "$(col io)" = 0 ] || fail "I/O ran on a refused type"
	pass "$(figures); answers $(col answers)" ;;
anon-thp)
	tt anon-thp 8M 3
	row_ok 5000
	at_least thp 100
	is_root && at_least compact 1
	at_least io_ok 100
	pass "$(figures); thp $(col thp) compact $(col compact)" ;;
compact-slow)
	# a compaction that takes a second (LONGPIN_TEST_FAULT=compact-slow,
	# as on a host whose memory QEMUs hold) takes at most a tenth of the
	# THP thread's time: one in 3 s (at most one per 3 s of a longer
	# run), and the madvise()s go on
	is_root || skip "compact_memory is written as root only"
	LONGPIN_TEST_FAULT=compact-slow tt anon-thp 8M 3
	row_ok 5000
	[ "$(col compact)" -ge 1 ] && [ "$(col compact)" -le "$scale" ] ||
		fail "compact is $(col compact), want 1 in 3 s (1 to $scale in $((3 * scale)) s)"
	at_least thp 100
	pass "$(figures); thp $(col thp) compact $(col compact)" ;;
floor)
	# vm/*/torture's floor (torture_short, tests/lib.sh) on runs of this
	# machine: a run of 0 s (LONGPIN_TEST_FAULT=torture-deadline: every
	# operation past the deadline, made to finish the hashed choices)
	# falls short however many it made; a run of the second asked holds;
	# a type that should have run and has no row is named
	csv=$T/host.csv; tt anon 1M 1 --concurrent
	csv=$T/one.csv; tt anon 1M 1 --concurrent
	csv=$T/zero.csv; LONGPIN_TEST_FAULT=torture-deadline tt anon 1M 1 --concurrent
	zero_ops=$(csv_awk "$csv" 'NR > 1 { for (j = col("ops") + 1; j < col("reg_ok"); j++) s += $j; print s }')
	[ "$(col late_ops)" = "$zero_ops" ] || fail "a run of 0 s: late_ops $(col late_ops) of $zero_ops operations"
	echo anon >"$T/list"
	short=$(torture_short "$T/list" "$T/host.csv" "$T/one.csv" 1)
	[ -z "$short" ] || fail "a run of 1 s falls short: $short"
	zshort=$(torture_short "$T/list" "$T/host.csv" "$T/zero.csv" 1)
	echo "$zshort" | grep -q "^anon: 0 operations within 1 s, want [0-9]" ||
		fail "a run of 0 s ($zero_ops operations, all late) holds: '$zshort'"
	printf 'anon\nmemfd\n' >"$T/list"
	short=$(torture_short "$T/list" "$T/host.csv" "$T/one.csv" 1)
	[ "$short" = "memfd: no row (it should have run)" ] || fail "a missing type: '$short'"
	pass "a run of 0 s ($zero_ops operations past the deadline) falls short: $zshort; 1 s holds; a missing type is named" ;;
seed)
	# a seed repeats every thread's first choices (seq_hash); it is
	# printed on stderr and recorded
	tt anon 1M 1 --seed 12345
	grep -qx "longpin: torture seed 12345" "$T/out" || fail "seed not printed"
	[ "$(col seed)" = 12345 ] || fail "seed column $(col seed)"
	h1=$(col seq_hash)
	tt anon 1M 1 --seed 12345
	[ "$(col seq_hash)" = "$h1" ] || fail "same seed, seq_hash $h1 then $(col seq_hash)"
	tt anon 1M 1
	s=$(sed -n 's/^longpin: torture seed //p' "$T/out")
	[ -n "$s" ] && [ "$s" != 12345 ] && [ "$(col seed)" = "$s" ] ||
		fail "a run without --seed: printed '$s', recorded $(col seed)"
	[ "$(col seq_hash)" != "$h1" ] || fail "another seed, the same seq_hash"
	tt anon 1M 1 --seed "$s" --ops madvise
	[ "$(col ops)" = madvise ] && [ "$(col threads)" = 1 ] ||
		fail "--ops madvise ran $(col ops)"
	[ "$(awk 'END { print NR }' "$csv")" = 5 ] || fail "want a header and 4 rows"
	pass "seed 12345 twice: seq_hash $h1 both times; seed $s printed and recorded" ;;
report)
	# longpin torture-report: a row per memory type, a column per
	# kernel (torture-KERNEL.csv), a failed run's cell says why, a known
	# defect's which
	for k in stock patched; do
		csv=$T/torture-$k.csv
		tt anon 1M 1 --concurrent --seed 3
		tt memfd 1M 1 --concurrent --seed 3
	done
	csv_awk "$T/torture-patched.csv" 'NR == 3 { $col("verdict") = "fail"; $col("note") = "pin leak: VmPin +4 kB" } { print }' >"$T/p" &&
		mv "$T/p" "$T/torture-patched.csv"
	csv_awk "$T/torture-stock.csv" 'NR == 3 { $col("verdict") = "defect"; $col("note") = "HugePages_Rsvd fell: the known kernel defect hugetlb-truncate-race" } { print }' >"$T/p" &&
		mv "$T/p" "$T/torture-stock.csv"
	run_longpin torture-report "$T/torture-stock.csv" "$T/torture-patched.csv"
	[ "$rc" = 0 ] || fail "torture-report: exit $rc"
	grep -q "^| memory type | stock ($(uname -r), 1 s) | patched ($(uname -r), 1 s) |$" "$T/out" || fail "no header naming both kernels"
	grep -Eq "^\| anon \| pass [0-9]+ ops, reg [0-9]+ ok 0 refused [0-9]+ raced, io [0-9]+/[0-9]+, migrate [0-9]+, reports [0-9-]+ \| pass " "$T/out" ||
		fail "no anon row of two passing cells"
	grep -Eq "^\| memfd \| defect [0-9]+ ops, .*: HugePages_Rsvd fell: the known kernel defect hugetlb-truncate-race \| fail [0-9]+ ops, .*: pin leak: VmPin \+4 kB \|$" "$T/out" ||
		fail "the failed cell does not say why, or the defect's cell which"
	[ "$(grep -c '^| [a-z]' "$T/out")" = 3 ] || fail "want a header and two type rows"
	run_longpin torture-report "$T/nope.csv"
	[ "$rc" = 2 ] || fail "a missing CSV: exit $rc"
	pass "torture-report: a row per type, a column per kernel, the failed and the defect cell's note" ;;
badinput)
	# expect STATUS MESSAGE ARGS...
	expect() {
		local st=$1 msg=$2
		shift 2
		run_longpin "$@"
		[ "$rc" = "$st" ] || fail "longpin $*: exit $rc, want $st"
		grep -qF -- "$msg" "$T/out" || fail "longpin $*: no '$msg'"
		[ ! -e "$csv" ] || fail "longpin $*: left $csv"
	}
	expect 2 "--seconds 0: give whole seconds from 1 to 3600" --torture 0 --mem anon --csv "$csv"
	expect 2 "--seconds 1.5: give whole seconds" --torture 1.5 --mem anon
	expect 2 "no memory type: give --mem TYPE" --torture 1
	expect 2 "register takes no --seed (an option of torture): drop it" --seed 1 --mem anon
	expect 2 "register takes no --ops (an option of torture): drop it" --ops reg --mem anon
	expect 2 "--seed -1: give the number longpin printed" --torture 1 --mem anon --seed -1
	expect 2 "--ops reg,foo: no operation foo" --torture 1 --mem anon --ops reg,foo
	expect 77 "--ops thp: thp does not apply to anon" --torture 1 --mem anon --ops thp --csv "$csv"
	expect 2 "--torture and --lifetime munmap are two commands: give one" --torture 1 --mem anon --lifetime munmap
	expect 2 "torture takes no --qd (an option of register): drop it" --torture 1 --mem anon --qd 4
	expect 2 "drop --prefault" --torture 1 --mem anon --prefault none
	expect 2 "needs --size of 4 granules of 4K at least: give --size 16K" --torture 1 --mem anon --size 8K --csv "$csv"
	echo "schema,other" >"$T/other.csv"
	expect 2 "not a CSV of this mode (another header)" --torture 1 --mem anon --csv "$T/other.csv"
	[ "$(cat "$T/other.csv")" = "schema,other" ] || fail "another CSV was changed"
	no_leftovers "$T"
	pass "torture: bad input answered with exit 2 (77 for an op the type lacks), one line, no CSV" ;;
*)
	fail "unknown case $case" ;;
esac
