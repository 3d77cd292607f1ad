#!/bin/bash
# selftest.sh CASE: the harness's own checks catch what they must.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
case=$1
case $case in
corrupt)
	# A byte of the target changed between WRITE_FIXED and READ_FIXED:
	# the data check must report a mismatch and the run must fail.
	run_longpin --mem anon --size 8M --ios 64 --repeat 1 --inject corrupt --csv "$T/r.csv"
	[ "$rc" = 1 ] || fail "exit status $rc, expected 1"
	[ "$(csv_get "$T/r.csv" 1 data_check)" = mismatch ] || fail "data_check is not mismatch"
	grep -q "data check: mismatch" "$T/out" || fail "no 'data check: mismatch' note"
	v=$(csv_get "$T/r.csv" 1 verdict)
	[ "$v" = fail ] || fail "verdict '$v' for a data mismatch, expected fail"
	pass "corrupted target data is detected (exit 1, data_check=mismatch, verdict fail)" ;;
leak)
	# A second ring keeps the buffer pinned past unregistration: VmPin
	# does not come back, the run must fail and say so.
	run_longpin --mem anon --size 8M --no-io --inject leak --csv "$T/r.csv"
	[ "$rc" = 1 ] || fail "exit status $rc, expected 1"
	leak=$(csv_get "$T/r.csv" 1 vmpin_leak_kb)
	[ "$leak" = 8192 ] || fail "vmpin_leak_kb=$leak, expected 8192"
	grep -q "pin leak: VmPin" "$T/out" || fail "no 'pin leak' note"
	v=$(csv_get "$T/r.csv" 1 verdict)
	[ "$v" = fail ] || fail "verdict '$v' for a pin leak, expected fail"
	pass "a pin held past unregistration is reported (vmpin_leak_kb=$leak, exit 1, verdict fail)" ;;
csv)
	# The issue's example: one row, verdict pass, no leak, throughput
	# of fixed and plain reads with their ratio; appending keeps one header.
	run_longpin --mem anon --size 64M --csv "$T/out.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(wc -l <"$T/out.csv")" = 2 ] || fail "expected a header and one row"
	for col in kernel memtype prefault size result errno expected verdict reg_ns_per_page vmpin_leak_kb; do
		v=$(csv_get "$T/out.csv" 1 $col)
		case $v in ""|NO-COLUMN-*) fail "column $col missing or empty";; esac
	done
	[ "$(csv_get "$T/out.csv" 1 schema)" = 4 ] || fail "schema is not 4"
	[ "$(csv_get "$T/out.csv" 1 verdict)" = pass ] || fail "verdict not pass"
	[ "$(csv_get "$T/out.csv" 1 vmpin_leak_kb)" = 0 ] || fail "leak"
	[ "$(csv_get "$T/out.csv" 1 kernel)" = "$(uname -r)" ] || fail "kernel column"
	for col in fixed_mibs_med plain_mibs_med ratio_med fixed_iops plain_iops ratio_min ratio_max; do
		awk -v v="$(csv_get "$T/out.csv" 1 $col)" 'BEGIN { exit !(v + 0 > 0) }' ||
			fail "$col is not a positive number"
	done
	run_longpin --mem memfd --size 4M --prefault none,read --ios 64 --csv "$T/out.csv"
	[ "$(grep -c '^schema,' "$T/out.csv")" = 1 ] || fail "header written twice"
	[ "$(wc -l <"$T/out.csv")" = 4 ] || fail "expected 3 rows after appending"
	n=$(head -1 "$T/out.csv" | awk -F, '{print NF}')
	awk -F, -v n="$n" 'NF != n { exit 1 }' "$T/out.csv" || fail "rows with a column count other than $n"
	pass "CSV: header once, $n columns, anon 64M row pass, ratio $(csv_get "$T/out.csv" 1 ratio_med)" ;;
cli)
	# --list: the memory types, the first column of longpin types, each
	# in register's help; the contracts
	run_longpin --list
	[ "$rc" = 0 ] && [ -s "$T/out" ] || fail "--list: exit $rc or nothing"
	[ "$(cat "$T/out")" = "$("$LONGPIN" types | grep -v '^#' | cut -f1)" ] ||
		fail "--list is not the first column of longpin types"
	"$LONGPIN" register --help >"$T/help" || fail "register --help"
	while read -r m; do
		awk -v m="$m" '/^  [^ -]/ && $1 == m { f = 1 } END { exit !f }' "$T/help" ||
			fail "register --help lacks $m"
	done <"$T/out"
	run_longpin --help
	[ "$rc" = 0 ] && grep -q "^usage: longpin COMMAND" "$T/out" || fail "--help"
	run_longpin --list-contracts
	[ "$(tr '\n' ' ' <"$T/out")" = "linux-6.1 linux-6.5+ linux-7.2+ longpin-6.12 longpin-7.2 longpin " ] || fail "--list-contracts"
	pass "--list ($(wc -l <"$T/out") types), --help, --list-contracts" ;;
forms)
	# every old form runs as the command it was: the same output, or the
	# same rows (numbers and timestamps aside)
	same() { # OLD... -- NEW...
		local i old=() new=()
		for ((i = 1; i <= $#; i++)); do [ "${!i}" = -- ] && break; old+=("${!i}"); done
		new=("${@:i+1}")
		"$LONGPIN" "${old[@]}" >"$T/old" 2>&1 || fail "longpin ${old[*]}: exit $?"
		"$LONGPIN" "${new[@]}" >"$T/new" 2>&1 || fail "longpin ${new[*]}: exit $?"
		cmp -s "$T/old" "$T/new" || fail "longpin ${old[*]} and longpin ${new[*]} differ: $(diff "$T/old" "$T/new" | head -n 4)"
		n=$((n + 1))
	}
	# rows CSV: what ran and what was judged, row by row
	rows() { csv_cols "$1" memtype prefault size op pinner result errno expected verdict vmpin_leak_kb data_check; }
	n=0
	same --list -- types --list
	same --list-types -- types
	same --list-contracts -- contracts --list
	same --print-accel -- accel
	same --version -- version
	same --help -- help
	same --lifetime munmap --list -- lifetime munmap --list
	same --torture --list -- torture --list
	same --print-expected --mem mixed --prefault all --expect linux-6.1 -- expected --mem mixed --prefault all --expect linux-6.1
	same --print-expected --mem file-shared --expect longpin --pinner gup --readonly-pin -- expected --mem file-shared --expect longpin --pinner gup --readonly-pin
	same --fio-memtype shm -- fio-memtype shm
	same --fio-result 95 -- fio-result 95
	"$LONGPIN" --mem anon --size 64K --prefault all --no-io --quiet --csv "$T/o.csv" 2>/dev/null || fail "old register"
	"$LONGPIN" register --mem anon --size 64K --prefault all --no-io --quiet --csv "$T/n.csv" 2>/dev/null || fail "register"
	[ "$(rows "$T/o.csv")" = "$(rows "$T/n.csv")" ] || fail "register rows differ: $(rows "$T/o.csv") / $(rows "$T/n.csv")"
	"$LONGPIN" --lifetime munmap --mem anon --size 4M --quiet --csv "$T/lo.csv" 2>/dev/null || fail "old lifetime"
	"$LONGPIN" lifetime munmap --mem anon --size 4M --quiet --csv "$T/ln.csv" 2>/dev/null || fail "lifetime"
	[ "$(rows "$T/lo.csv")" = "$(rows "$T/ln.csv")" ] || fail "lifetime rows differ"
	"$LONGPIN" --torture 1 --mem anon --seed 7 --quiet --concurrent --csv "$T/to.csv" 2>/dev/null || fail "old torture"
	"$LONGPIN" torture --seconds 1 --mem anon --seed 7 --quiet --concurrent --csv "$T/tn.csv" 2>/dev/null || fail "torture"
	[ "$(csv_cols "$T/to.csv" seed seq_hash threads verdict)" = "$(csv_cols "$T/tn.csv" seed seq_hash threads verdict)" ] ||
		fail "torture rows differ: $(csv_cols "$T/to.csv" seed seq_hash) / $(csv_cols "$T/tn.csv" seed seq_hash)"
	# two modes, an unknown command: one line naming the commands
	run_longpin --print-expected --lifetime munmap --mem anon
	[ "$rc" = 2 ] && [ "$(grep -c . "$T/out")" = 1 ] &&
		grep -q "^longpin: --print-expected and --lifetime munmap are two commands: give one (longpin expected ..., longpin lifetime ...)$" "$T/out" ||
		fail "two modes: exit $rc, $(cat "$T/out")"
	run_longpin frobnicate --mem anon
	[ "$rc" = 2 ] && grep -q "^longpin: unknown command 'frobnicate': longpin --help lists them$" "$T/out" ||
		fail "unknown command: exit $rc, $(cat "$T/out")"
	pass "$n old forms print what their commands do; register, lifetime and torture rows alike; two modes and an unknown command refused in one line" ;;
unchecked)
	LONGPIN_KERNEL_RELEASE=5.4.0-test run_longpin --mem anon --size 4M --no-io --csv "$T/r.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -q "no contract describes kernel 5.4.0-test: verdicts are unchecked" "$T/out" || fail "no message"
	[ "$(csv_get "$T/r.csv" 1 verdict)" = unchecked ] || fail "verdict not unchecked"
	pass "an unknown kernel gives unchecked rows and says so" ;;
release-match)
	# the kernel with our 6.12 series is known by its release (-longpin):
	# longpin-6.12, whose lifetime cases keep the data where linux-6.5+
	# (the same kernel without the series) lists the loss
	# (this host's kernel loses the data: the row is judged against
	# longpin-6.12 all the same, and fails, exit 1)
	LONGPIN_KERNEL_RELEASE=6.12.118-longpin run_longpin lifetime lazyfree --mem anon --size 4M --prefault write --csv "$T/p.csv"
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "lazyfree with release 6.12.118-longpin: exit $rc"
	grep -q "contract longpin-6.12: kernel 6.12.118-longpin has -longpin" "$T/out" || fail "longpin-6.12 not chosen by the release"
	[ "$(csv_get "$T/p.csv" 1 contract) $(csv_get "$T/p.csv" 1 expected)" = "longpin-6.12 0" ] ||
		fail "longpin-6.12 row: contract $(csv_get "$T/p.csv" 1 contract), expected $(csv_get "$T/p.csv" 1 expected), want longpin-6.12 0"
	LONGPIN_KERNEL_RELEASE=6.12.118 run_longpin expected --mem file-shared --prefault write
	grep -q "^linux-6.5+	file-shared	write	[0-9]*	-EFAULT	1" "$T/out" || fail "6.12.118 is not linux-6.5+'s"
	LONGPIN_KERNEL_RELEASE=6.12.118-longpin run_longpin expected --mem file-shared --prefault write
	grep -q "^longpin-6.12	file-shared	write	[0-9]*	-EFAULT	1" "$T/out" || fail "longpin-6.12 does not answer as linux-6.5+"
	pass "release -longpin chooses longpin-6.12: upstream's answers, lazyfree expects the data kept" ;;
release-7x)
	# 7.2 and later take linux-7.2+ (the higher ">=" of two that hold),
	# 7.2 with our series longpin-7.2 (release -longpin and kernel >=7.2
	# both hold: it outscores longpin-6.12, which asks for the suffix
	# alone); only the kernels to 6.18 refuse a buffer over 1 GiB
	for r in 6.18.44:linux-6.5+:-EFAULT 7.2.13:linux-7.2+:0 7.2.13+deb14-amd64:linux-7.2+:0 \
		7.2.13-longpin:longpin-7.2:0 6.12.118-longpin:longpin-6.12:-EFAULT 7.1.3:linux-6.5+:-EFAULT; do
		IFS=: read -r rel c want <<<"$r"
		LONGPIN_KERNEL_RELEASE=$rel run_longpin expected --mem anon --prefault write --size 1025M
		grep -q "^$c	anon	write	[0-9]*	$want	0" "$T/out" ||
			fail "release $rel: want contract $c answering $want for 1025M of anon, got: $(tail -n 1 "$T/out")"
	done
	LONGPIN_KERNEL_RELEASE=7.2.13-longpin run_longpin register --mem anon --size 4M --no-io
	grep -q "contract longpin-7.2: kernel 7.2.13-longpin has -longpin and kernel 7.2.13-longpin is >=7.2" "$T/out" ||
		fail "longpin-7.2's two match lines are not both named: $(head -n 1 "$T/out")"
	LONGPIN_KERNEL_RELEASE=7.2.13-longpin run_longpin lifetime lazyfree --mem anon --size 4M --prefault write --csv "$T/p.csv"
	[ "$(csv_get "$T/p.csv" 1 contract) $(csv_get "$T/p.csv" 1 expected)" = "longpin-7.2 0" ] ||
		fail "longpin-7.2 lazyfree row: contract $(csv_get "$T/p.csv" 1 contract), expected $(csv_get "$T/p.csv" 1 expected)"
	LONGPIN_KERNEL_RELEASE=7.2.13 run_longpin lifetime lazyfree --mem anon --size 4M --prefault write --csv "$T/s.csv"
	[ "$(csv_get "$T/s.csv" 1 contract) $(csv_get "$T/s.csv" 1 expected)" = "linux-7.2+ -EIO" ] ||
		fail "linux-7.2+ lazyfree row: contract $(csv_get "$T/s.csv" 1 contract), expected $(csv_get "$T/s.csv" 1 expected), want the known loss"
	pass "7.2 takes linux-7.2+ (no 1 GiB cap, the known loss), 7.2-longpin longpin-7.2, 6.x and 7.1 keep theirs" ;;
expect)
	# --expect overrides the choice: anon against every contract passes,
	# file-shared cannot pass against two contracts that disagree.
	for c in linux-6.1 linux-6.5+ longpin; do
		run_longpin --mem anon --size 4M --no-io --expect $c --csv "$T/r.csv"
		[ "$rc" = 0 ] || fail "anon against $c: exit $rc"
	done
	[ "$(csv_get "$T/r.csv" 3 contract)" = longpin ] || fail "contract column"
	run_longpin --mem mixed --size 4M --no-io --expect linux-6.1 --csv "$T/m.csv"
	r1=$rc
	run_longpin --mem mixed --size 4M --no-io --expect linux-6.5+ --csv "$T/m.csv"
	[ $((r1 + rc)) = 1 ] || fail "mixed passed or failed both 6.1 (-EINVAL) and 6.5+ (0) contracts"
	[ "$(csv_get "$T/m.csv" 1 verdict) $(csv_get "$T/m.csv" 2 verdict)" = "fail pass" ] ||
		[ "$(csv_get "$T/m.csv" 1 verdict) $(csv_get "$T/m.csv" 2 verdict)" = "pass fail" ] ||
		fail "verdict column"
	pass "--expect selects the contract; a mismatch fails with exit 1" ;;
usage-fails)
	# exit 2 (a usage error) fails the tests that run longpin for a row,
	# never skips them: here a real usage error, an unknown --expect
	printf '#!/bin/sh\nexec "%s" --expect no-such-contract "$@"\n' "$LONGPIN" >"$T/lp2"
	chmod +x "$T/lp2"
	for t in "compare.sh real" "selftest.sh accel" "fio.sh header"; do
		rc=0
		# shellcheck disable=SC2086 # script and case
		LONGPIN=$T/lp2 bash "$REPO/tests/host/"$t >"$T/o" 2>&1 || rc=$?
		[ "$rc" = 1 ] || fail "$t: exit $rc when longpin exits 2, want 1: $(tail -1 "$T/o")"
	done
	pass "compare/real, selftest/accel, fio/header fail on longpin's exit 2" ;;
efault-expected)
	# a row whose contract expects -EFAULT passes on that answer: longpin
	# must not write every page to ask whether a full file system caused
	# it (it did, and a full disk turned the pass into an exit 77)
	is_root || skip "needs root to mount a small ext4"
	command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (apt-get install -y e2fsprogs)"
	run_longpin --print-expected --mem file-shared --prefault none --size 4M
	ran_ok "longpin --print-expected"
	[ "$(cut -f5 "$T/out")" = -EFAULT ] || skip "file-shared is not -EFAULT under this kernel's contract"
	truncate -s 32M "$T/ext4.img" && mkfs.ext4 -q "$T/ext4.img" && mkdir "$T/mnt" ||
		fail "cannot make an ext4 image"
	mount -o loop "$T/ext4.img" "$T/mnt" || skip "cannot loop-mount an ext4 image here"
	on_exit "umount $T/mnt"
	run_longpin --mem file-shared --dir "$T/mnt" --size 4M --prefault none --no-io --inject fill --csv "$T/r.csv"
	[ "$rc" = 0 ] || fail "exit $rc, want 0: the expected -EFAULT is a verdict, whatever the disk holds"
	[ "$(csv_cols "$T/r.csv" errno verdict)" = "EFAULT pass" ] || fail "row: $(csv_cols "$T/r.csv" errno verdict)"
	pass "file-shared on a full ext4: -EFAULT as the contract expects, pass, no page written to find out" ;;
over-1g)
	# Not refused by the tool: the kernel's answer is the verdict row,
	# the contract's (-EFAULT to 6.18: size-1g.inc; 0 from 7.2 on)
	run_longpin expected --mem anon --prefault none --size 1049600K
	want=$(cut -f5 "$T/out" | tail -n 1)
	case $want in -EFAULT | 0) ;; *) fail "the contract's answer for 1 GiB + 4 KiB of anon is '$want', neither -EFAULT nor 0" ;; esac
	run_longpin --mem anon --size 1049600K --prefault none --no-io --csv "$T/r.csv"
	got=$(csv_get "$T/r.csv" 1 errno)
	[ "$got" = - ] && got=0 || got=-$got
	[ "$got" = "$want" ] || fail "1 GiB + 4 KiB: the kernel answered $got, the contract says $want"
	[ "$rc" = 0 ] && [ "$(csv_get "$T/r.csv" 1 verdict)" = pass ] || fail "exit $rc, verdict $(csv_get "$T/r.csv" 1 verdict)"
	pass "1 GiB + 4 KiB: the kernel answers $want as its contract says, recorded as a passing verdict row" ;;
sigint)
	"$LONGPIN" --mem file-private --dir "$T" --size 8M --runtime 30 --repeat 3 >"$T/out" 2>&1 &
	pid=$!
	for i in $(seq 50); do sleep 0.2; grep -q . "$T/out" && break; done
	sleep 1
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	cat "$T/out"
	[ "$rc" = 130 ] || fail "exit status $rc after SIGINT, expected 130"
	grep -q "longpin: interrupted" "$T/out" || fail "no 'interrupted' message"
	no_leftovers "$T"
	pass "SIGINT: exit 130, no file left in $T" ;;
cycles)
	# 200 more register/unregister cycles with an mmap prober: VmPin
	# balanced after all of them, the prober ran and was timed.
	run_longpin --mem anon --size 4M --no-io --cycles 200 --mmap-probe --csv "$T/r.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(csv_get "$T/r.csv" 1 cycles)" = 200 ] || fail "cycles column"
	[ "$(csv_get "$T/r.csv" 1 vmpin_leak_kb)" = 0 ] || fail "leak after cycles"
	calls=$(csv_get "$T/r.csv" 1 probe_calls)
	[ "$calls" -gt 0 ] 2>/dev/null || fail "probe_calls=$calls"
	awk -v a="$(csv_get "$T/r.csv" 1 probe_max_us)" -v b="$(csv_get "$T/r.csv" 1 probe_p999_us)" \
		'BEGIN { exit !(a + 0 >= b + 0 && b + 0 > 0) }' || fail "probe_max_us < probe_p999_us"
	run_longpin --mem anon --size 4M --mmap-probe
	[ "$rc" = 2 ] && grep -q -- "--mmap-probe runs during --cycles" "$T/out" || fail "--mmap-probe alone"
	pass "200 cycles balanced, $calls mmap probes timed" ;;
csv-stdout)
	# --csv -: one header and CSV rows only on stdout, to a file and to a
	# pipe; the table goes to stderr
	"$LONGPIN" --mem anon --size 4M --prefault all --no-io --csv - >"$T/o.csv" 2>"$T/e"
	"$LONGPIN" --mem anon --size 4M --prefault all --no-io --csv - 2>/dev/null | cat >"$T/p.csv"
	"$LONGPIN" --lifetime munmap --mem anon --size 4M --prefault write,none --csv - 2>/dev/null | cat >"$T/l.csv"
	for f in o p l; do
		[ "$(grep -c '^schema,' "$T/$f.csv")" = 1 ] || fail "$f.csv: not exactly one header"
		[ "$(grep -vc '^schema,\|^4,harness,' "$T/$f.csv")" = 0 ] || fail "$f.csv: lines that are not CSV: $(grep -v '^schema,\|^4,harness,' "$T/$f.csv" | head -2)"
	done
	[ "$(wc -l <"$T/o.csv") $(wc -l <"$T/p.csv") $(wc -l <"$T/l.csv")" = "4 4 3" ] || fail "rows: $(wc -l <"$T/o.csv") $(wc -l <"$T/p.csv") $(wc -l <"$T/l.csv"), want 4 4 3"
	grep -q '^memtype ' "$T/e" || fail "no table on stderr"
	pass "--csv -: one header and only CSV rows on stdout (file, pipe, lifetime), the table on stderr" ;;
target-size)
	# the I/O target spans the buffer (whole MiB), not a fixed 16 MiB
	for sz in 2 32; do
		run_longpin --mem anon --size ${sz}M --ios 64 --repeat 1 --target "$T/t$sz"
		[ "$rc" = 0 ] || fail "exit status $rc at ${sz}M"
		got=$(stat -c %s "$T/t$sz")
		[ "$got" = $((sz << 20)) ] || fail "a ${sz} MiB buffer got a target of $got bytes, want $((sz << 20))"
	done
	pass "2 and 32 MiB buffers read a target of their own size" ;;
probe-cpus)
	# the prober and the registration run on two CPUs when there are two,
	# so that the probe times locks and IPIs, not the scheduler; the
	# registration's CPUs are given back after the cycles
	cpus=$(taskset -pc $$ | sed 's/.*: //')
	[ "$(nproc)" -ge 2 ] || skip "one CPU here: nothing to pin the prober apart"
	run_longpin --mem anon --size 4M --no-io --cycles 3 --mmap-probe --csv "$T/r.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	note=$(csv_get "$T/r.csv" 1 note)
	echo "$note" | grep -Eq '^prober on CPU ([0-9]+) \(registration on CPU ([0-9]+)\)$' ||
		fail "note '$note': no 'prober on CPU B (registration on CPU A)'"
	a=$(echo "$note" | sed -E 's/.*registration on CPU ([0-9]+).*/\1/')
	b=$(echo "$note" | sed -E 's/prober on CPU ([0-9]+).*/\1/')
	[ "$a" != "$b" ] || fail "prober and registration both on CPU $a"
	PREFIX=(taskset -c "${cpus%%[,-]*}")
	run_longpin --mem anon --size 4M --no-io --cycles 3 --mmap-probe --csv "$T/s.csv"
	PREFIX=()
	[ "$rc" = 0 ] || fail "exit status $rc under taskset"
	note=$(csv_get "$T/s.csv" 1 note)
	[ "$note" = "prober shared the CPU with the registration (one CPU allowed)" ] ||
		fail "one CPU allowed: note '$note'"
	pass "prober on CPU $b, registration on CPU $a; with one CPU allowed the note says they share it" ;;
print-expected)
	run_longpin --print-expected --mem file-shared --prefault all --size 8M --expect linux-6.5+
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -c . "$T/out")" = 3 ] || fail "want 3 lines"
	grep -qP '^linux-6.5\+\tfile-shared\tread\t8388608\t-EFAULT\t1$' "$T/out" || fail "file-shared read line"
	run_longpin --print-expected --mem mixed --expect linux-6.1
	grep -qP '^linux-6.1\tmixed\twrite\t16777216\t-EINVAL\t0$' "$T/out" || fail "mixed line"
	pass "--print-expected prints the contract's rows" ;;
print-expected-pinner)
	# the contracts' "pinner" rows: stock's GUP pins a shared file for
	# writing, ours refuses it; a read-only pin is another row; io_uring's
	# own answer is untouched by them
	run_longpin --print-expected --mem file-shared --prefault write --expect linux-6.1 --pinner gup
	grep -qP '^linux-6.1\tfile-shared\twrite\t16777216\t0\t0$' "$T/out" || fail "stock gup line"
	run_longpin --print-expected --mem file-shared --prefault write --expect longpin --pinner gup-fast
	grep -qP '^longpin\tfile-shared\twrite\t16777216\t-REFUSED\t1$' "$T/out" || fail "patched gup-fast line"
	run_longpin --print-expected --mem file-shared --prefault write --expect longpin --pinner gup-fast --readonly-pin
	grep -qP '^longpin\tfile-shared\twrite\t16777216\t0\t0$' "$T/out" || fail "patched read-only line"
	run_longpin --print-expected --mem fsdax-private --prefault all --expect linux-6.1 --pinner gup-fast
	[ "$(cut -f5 "$T/out" | tr '\n' ' ')" = "-REFUSED -REFUSED 0 " ] || fail "stock gup-fast fsdax-private: $(cut -f5 "$T/out" | tr '\n' ' ')"
	run_longpin --print-expected --mem file-shared --prefault write --expect linux-6.1 --pinner io_uring
	grep -qP '^linux-6.1\tfile-shared\twrite\t16777216\t-EOPNOTSUPP\t0$' "$T/out" || fail "io_uring line"
	pass "--print-expected --pinner prints the pinner's rows" ;;
list-types)
	# the one place that knows what each type needs: every --list type,
	# eight columns, and the value follows the type's variable
	PREFIX=(env -u LONGPIN_DAX_DIR -u LONGPIN_DEVDAX LONGPIN_TMPFS_DIR=/run)
	run_longpin --list-types
	[ "$rc" = 0 ] || fail "exit $rc"
	[ "$(grep -vc '^#' "$T/out")" = "$("$LONGPIN" --list | wc -l)" ] || fail "not one line per type"
	awk -F'\t' '!/^#/ && NF != 8 { bad = 1 } END { exit bad }' "$T/out" || fail "a line without 8 columns"
	grep -qP '^fsdax-shared\tshared\tdax\t-\t--dir\tLONGPIN_DAX_DIR\t-\tDAX mount$' "$T/out" || fail "fsdax-shared line"
	grep -qP '^tmpfs-private\tprivate\tshmem\t-\t--dir\tLONGPIN_TMPFS_DIR\t/run\t' "$T/out" || fail "tmpfs-private line"
	grep -qP '^hugetlb\tprivate\thugetlb\thugetlb\t-\t-\t-\t-$' "$T/out" || fail "hugetlb line"
	PREFIX=(env LONGPIN_DEVDAX=/dev/dax9.9)
	run_longpin --list-types
	grep -qP '^devdax\t.*\t--dev\tLONGPIN_DEVDAX\t/dev/dax9.9\t' "$T/out" || fail "devdax does not follow LONGPIN_DEVDAX"
	pass "--list-types: a line per type, places resolved from their variables" ;;
pipe-lines)
	# piped, each row arrives when it is made: an interrupted run keeps
	# the rows it printed (on_signal's _exit flushes nothing)
	# each row takes 2 x 2 timed passes of 1 s: the first comes at ~4 s,
	# the run would end at ~12 s
	# (its own longpin interrupted by pid: another checkout's test may
	# run the same command on this machine at the same time)
	mkfifo "$T/pipe"
	cat "$T/pipe" >"$T/o" &
	"$LONGPIN" --mem anon --size 64K --prefault all --runtime 1 --repeat 2 2>/dev/null >"$T/pipe" &
	lp=$!
	for i in $(seq 80); do grep -q '^anon ' "$T/o" && break; sleep 0.1; done
	kill -INT "$lp" 2>/dev/null || true
	wait
	grep -q '^anon  *none ' "$T/o" || fail "no row reached the pipe within 8 s: $(cat "$T/o")"
	pass "the first row reached the pipe before the run ended" ;;
tty-progress)
	# a terminal gets progress on stderr past 2 s; a file or pipe gets none
	command -v script >/dev/null || skip "no script(1) to give longpin a terminal"
	# 4 timed passes of 1 s: progress from the third on
	script -qec "$LONGPIN --mem anon --size 64K --prefault write --runtime 1 --repeat 2 --quiet" "$T/tty" >/dev/null </dev/null
	grep -qE 'longpin: anon: fixed and plain reads \[[0-9]+%\] [0-9]/4, [0-9.]+ s, eta [0-9]+ s' "$T/tty" ||
		fail "no progress line on the terminal: $(tr '\r' '\n' <"$T/tty" | tail -3)"
	"$LONGPIN" --mem anon --size 64K --prefault write --runtime 1 --repeat 2 --quiet 2>"$T/err"
	! grep -q eta "$T/err" || fail "progress written to a file"
	pass "progress on a terminal, none on a file" ;;
table)
	# the table shows what was run for, in aligned columns and MiB/s
	run_longpin --mem anon --size 4M --prefault none,write --cycles 5 --mmap-probe --no-io
	[ "$rc" = 0 ] || fail "exit $rc"
	h=$(grep '^memtype ' "$T/out")
	for c in "thp kB" "cycles ns/pg med \[min-max\]" "probe us max / p99.9 / calls" "fixed MiB/s" "plain MiB/s"; do
		echo "$h" | grep -q "$c" || fail "no column '$c'"
	done
	grep -q "MB/s" "$T/out" && fail "MB/s where the numbers are MiB/s"
	grep -qE '^anon +write .* [0-9]+ \[[0-9]+-[0-9]+\] +[0-9]+ / [0-9]+ / [0-9]+$' "$T/out" || fail "no cycles or probe figures in the write row"
	# a column starts where its name starts
	at=$(echo "$h" | awk '{ print index($0, " verdict ") + 1 }')
	for l in $(grep -n '^anon ' "$T/out" | cut -d: -f1); do
		[ "$(sed -n "${l}p" "$T/out" | cut -c"$at-$((at + 3))")" = pass ] || fail "verdict not under its header in line $l"
	done
	run_longpin --mem anon --size 4M --no-io
	grep -q cycles "$T/out" && fail "a cycles column without --cycles"
	run_longpin --lifetime munmap --mem anon --size 4M --prefault write
	grep -qE '^case +memtype +prefault +size +result +expected +verdict +VmPin kB before/reg/after +data$' "$T/out" || fail "no lifetime header"
	grep -qE '^lifetime-munmap +anon +write +4M +0 +0 +pass +0 / 4096 / 0 +ok$' "$T/out" || fail "lifetime row: $(tail -1 "$T/out")"
	pass "columns for --cycles and --mmap-probe, thp kB, MiB/s, aligned; lifetime header and 4M" ;;
accel)
	run_longpin --print-accel
	[ "$rc" = 0 ] || fail "exit $rc"
	a=$(cat "$T/out")
	case $a in none|tcg|kvm|hyperv|xen|vmware|bhyve|vm|unknown) ;; *) fail "accel '$a' is no known word" ;; esac
	# the hypervisor bit of CPUID leaf 1 is "hypervisor" in /proc/cpuinfo
	if grep -qw hypervisor /proc/cpuinfo; then
		[ "$a" != none ] || fail "none, but /proc/cpuinfo has the hypervisor flag"
	elif grep -q '^flags' /proc/cpuinfo; then
		[ "$a" = none ] || fail "$a, but /proc/cpuinfo has no hypervisor flag"
	fi
	run_longpin --mem anon --size 64K --no-io --csv "$T/r.csv"
	ran_ok "longpin --mem anon"
	[ "$(csv_get "$T/r.csv" 1 accel)" = "$a" ] || fail "CSV accel '$(csv_get "$T/r.csv" 1 accel)', --print-accel '$a'"
	[ "$(csv_get "$T/r.csv" 1 schema)" = 4 ] || fail "schema is not 4"
	pass "accel $a in the CSV, as CPUID says" ;;
*)	fail "unknown case $case" ;;
esac
