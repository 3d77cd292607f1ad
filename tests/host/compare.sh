#!/bin/bash
# compare.sh CASE: longpin-compare on the hand-made CSVs of
# tests/data/compare/ (and on real rows for CASE real).
. "$(dirname "$0")/../lib.sh"
COMPARE=${LONGPIN_COMPARE:-$REPO/build/longpin-compare}
D=$REPO/tests/data/compare
case=$1

# run_compare ARGS...: stdout in $T/out, stderr in $T/err, status in $rc.
run_compare() {
	echo "+ longpin-compare $*"
	rc=0
	"$COMPARE" "$@" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/out" "$T/err"
}

# has FILE TEXT: FILE contains the fixed string TEXT.
has() { grep -qF -- "$2" "$1" || fail "no '$2' in the output"; }
hasnt() { ! grep -qF -- "$2" "$1" || fail "'$2' in the output"; }

# rel_row KEY: the row of KEY in the table against the baseline.
rel_row() { sed -n '/^Against the baseline/,$p' "$T/out" | grep -F -- "  $1 "; }

# bad_input FILE MESSAGE: exit 2, MESSAGE as the one line on stderr, no stdout.
bad_input() {
	run_compare "$D/stock.csv" "$D/$1"
	[ "$rc" = 2 ] || fail "exit status $rc, expected 2"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "want one line on stderr"
	has "$T/err" "longpin-compare: $D/$1:$2"
	[ ! -s "$T/out" ] || fail "output on stdout despite the error"
}

# add_row KERNEL COLUMN=VALUE...: append to $T/KERNEL.csv the first
# written anon row of $D/KERNEL.csv with those columns set
add_row() {
	local k=$1
	shift
	csv_awk "$D/$k.csv" -v set="$*" '
		NR == 1 { n = split(set, a, " ")
			for (j = 1; j <= n; j++) { e = index(a[j], "="); c[j] = col(substr(a[j], 1, e - 1)); v[j] = substr(a[j], e + 1) }
			next }
		$col("memtype") == "anon" && $col("prefault") == "write" { for (j = 1; j <= n; j++) $c[j] = v[j]; print; exit }' >>"$T/$k.csv"
}

# to_schema2 KERNEL ACCEL: $D/KERNEL.csv as schema 2, every row's accel
# ACCEL (the column before note), into $T/KERNEL.csv
to_schema2() {
	csv_awk "$D/$1.csv" -v a="$2" '{ $col("note") = (NR == 1 ? "accel" : a) OFS $col("note")
		if (NR > 1) $col("schema") = 2; print }' >"$T/$1.csv"
}

case $case in
join)
	run_compare "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "file-private write 4M: stock -EOPNOTSUPP, patched 0"
	has "$T/out" "sysv-shm write 4M: stock -EOPNOTSUPP, patched 0"
	hasnt "$T/out" "anon write 4M: stock"
	grep -qE '^  stock \(baseline\) +[^ ]+stock.csv +5 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "stock verdict counts"
	grep -qE '^  patched +[^ ]+patched.csv +6 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "patched verdict counts"
	# patched anon write: two rows 48 and 52 ns/page, median 50; stock 100.
	# pages/s patched over stock = 100/50, range 90/55 .. 110/45.
	rel_row "anon write 4M" | grep -qF "x2.00 [1.64-2.44]" || fail "registration ratio is not x2.00 [1.64-2.44]"
	grep -qE '^  anon write 4M +patched +50.0 \[45.0-55.0\]' "$T/out" || fail "patched median of two rows"
	rel_row "file-private write 4M" | grep -qF "results differ" || fail "time of a refusal compared with a registration"
	pass "a verdict difference and a registration ratio x2.00 [1.64-2.44]" ;;
missing-row)
	run_compare "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "anon none 4M: stock 0, missing on patched-missing"
	has "$T/out" "readonly write 4M: missing on stock, patched-missing -EFAULT"
	has "$T/out" "2 are missing on some kernel"
	pass "rows on one side only are reported as missing, exit 0" ;;
schema-mismatch)
	bad_input schema9.csv "2: CSV schema 9, this longpin-compare reads schemas 1 to 3: use a matching longpin"
	pass "schema 9: exit 2 with the message" ;;
malformed)
	bad_input short-line.csv "3: 6 fields, the header has 63"
	pass "a short line: exit 2 naming file:line" ;;
no-header)
	bad_input no-header.csv "1: no header"
	bad_input empty.csv "1: empty file"
	run_compare "$D/stock.csv" "$T/absent.csv"
	[ "$rc" = 2 ] && grep -qF "absent.csv: No such file" "$T/err" || fail "a missing file"
	run_compare "$D/stock.csv" "$D"
	[ "$rc" = 2 ] || fail "a directory: exit status $rc"
	pass "no header, empty file, missing file, directory: exit 2" ;;
noise)
	run_compare "$D/stock.csv" "$D/patched.csv"
	row=$(rel_row "anon write 4M")
	echo "row: $row"
	# registration: [90,110] and [45,55] are disjoint; fixed MiB/s
	# [240,260] and [245,265] overlap.
	echo "$row" | grep -qE 'x2\.00 \[1\.64-2\.44\]  ' || fail "disjoint ranges marked noise"
	echo "$row" | grep -qF 'x1.02 [0.94-1.10] noise' || fail "overlapping ranges not marked noise"
	pass "overlapping ranges are noise, disjoint ones are not" ;;
report)
	run_compare --report "$T/r.md" --plots "$T/plots" "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ -f "$T/r.md" ] && [ ! -e "$T/r.md.tmp" ] || fail "report not written (or .tmp left)"
	has "$T/r.md" "| ! | file-private write 4M | -EOPNOTSUPP | 0 |"
	has "$T/r.md" "| ? | anon none 4M | 0 | missing |"
	has "$T/r.md" "| anon write 4M | patched-missing | x2.00 [1.64-2.44] |"
	for f in verdicts reg ratio; do
		[ -s "$T/plots/$f.gp" ] && [ -s "$T/plots/$f.dat" ] || fail "$f.gp/.dat missing"
	done
	# bad input: no report, no temp file
	run_compare --report "$T/bad.md" "$D/stock.csv" "$D/schema9.csv"
	[ "$rc" = 2 ] && [ ! -e "$T/bad.md" ] && [ ! -e "$T/bad.md.tmp" ] || fail "report written despite bad input"
	# no gnuplot on PATH: one line, data and scripts, exit 0
	rc=0
	PATH=/nonexistent "$COMPARE" --plots "$T/p2" "$D/stock.csv" "$D/patched.csv" >"$T/out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && grep -q "gnuplot not found" "$T/out" && [ -s "$T/p2/reg.gp" ] ||
		fail "without gnuplot: exit $rc"
	command -v gnuplot >/dev/null || skip "report checked; gnuplot not installed, PNGs not checked"
	for f in verdicts reg ratio; do
		[ "$(head -c 4 "$T/plots/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
			fail "$f.png is not a PNG"
	done
	pass "markdown report with the verdict table; verdicts.png, reg.png, ratio.png" ;;
mixed)
	# a repeat of anon write that answered -EFAULT and failed: the
	# combined result is mixed, the verdicts too
	cp "$D/patched.csv" "$T/patched.csv"
	add_row patched result=-14 errno=EFAULT verdict=fail
	run_compare "$D/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "anon write 4M: stock 0, patched mixed 0/-EFAULT"
	grep -qE '^  !  anon write 4M +0 +mixed 0/-EFAULT \(pass/fail\)' "$T/out" || fail "mixed verdicts not shown"
	grep -qE '^  patched +[^ ]+ +6 +1 +0 +0 +0 +0 +\?$' "$T/out" || fail "fail not counted"
	pass "repeats that disagree are shown as mixed" ;;
defect)
	# a lifetime-reclaim row that lost data as its contract expects
	# (verdict "defect"): counted apart, listed, DATA LOST in the table,
	# brown in the verdict grid (its data check says mismatch, as a real
	# defect row does: still brown, not the failure colour); never a pass
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row stock memtype=memfd prefault=read op=lifetime-reclaim result=-5 errno=EIO expected=-5 verdict=defect data_check=mismatch
	add_row patched memtype=memfd prefault=read op=lifetime-reclaim result=0 errno=- expected=0 verdict=pass
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +1 +0 +0 +0 +\?$' "$T/out" || fail "defect not counted apart"
	has "$T/out" "Data lost: known kernel defects"
	has "$T/out" "lifetime-reclaim memfd read 4M: stock -EIO"
	grep -qE 'lifetime-reclaim memfd read 4M +-EIO \(DATA LOST\) +0' "$T/out" || fail "no DATA LOST in the table"
	# in the grid: brown, white text, in the memfd row's stock reclaim column
	grep -qF '9268835 "EIO LOST" 16777215 "memfd" "stock" "io_uring lifetime-reclaim"' "$T/plots/verdicts.dat" ||
		fail "the grid cell is not brown"
	pass "a defect row: counted apart, listed under data lost, DATA LOST in the table and brown in the grid" ;;
leak-defect)
	# a vfio devdax row whose pins leak as its contract names
	# (leak=vfio-reserved-unpin, verdict "defect"): listed under pins
	# leaked, never under data lost; PINS LEAKED in the table, LEAK in the
	# grid's brown cell (schema 3: the pinner/ CSVs)
	D=$D/pinner
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row stock memtype=devdax prefault=write op=pin pinner=vfio result=0 errno=- expected=0 verdict=defect
	add_row patched memtype=devdax prefault=write op=pin pinner=vfio result=0 errno=- expected=0 verdict=pass
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "Pins leaked: known kernel defects"
	hasnt "$T/out" "Data lost: known kernel defects"
	has "$T/out" "vfio pin devdax write 4M: stock 0"
	grep -qE 'devdax write 4M +0 \(PINS LEAKED\) +0' "$T/out" || fail "no PINS LEAKED in the table"
	grep -qF '9268835 "0 LEAK" 16777215 "devdax" "stock" "vfio pin"' "$T/plots/verdicts.dat" ||
		fail "the grid cell is not brown with LEAK: $(grep -F devdax "$T/plots/verdicts.dat" | grep -F vfio)"
	pass "a pin-leak defect row: listed under pins leaked, PINS LEAKED in the table, LEAK in the grid" ;;
fixed)
	# a lifetime-reclaim row whose contract expects the known data loss,
	# and the data survived (verdict "fixed"): counted apart, listed
	# under its own heading and marked in the table, never a pass
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row stock memtype=mixed prefault=read op=lifetime-reclaim result=0 errno=- expected=-5 verdict=fixed data_check=ok
	run_compare --report "$T/r.md" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +0 +1 +0 +0 +\?$' "$T/out" || fail "fixed not counted apart"
	has "$T/out" "Known defects that did not show"
	has "$T/out" "lifetime-reclaim mixed read 4M: stock 0"
	grep -qE 'lifetime-reclaim mixed read 4M +0 \(defect did not show\) +missing' "$T/out" || fail "not marked in the table"
	has "$T/r.md" "- lifetime-reclaim mixed read 4M: stock 0"
	hasnt "$T/out" "Data lost: known kernel defects"
	pass "a fixed row: counted apart, listed under defects that did not show, marked in the table" ;;
failures)
	# a row that left pages pinned and one whose data check failed: both
	# fail, each listed in its own section, and their grid cells carry
	# the failure colour (white text on near black), not their errno's
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row patched memtype=memfd verdict=fail vmpin_leak_kb=4096
	add_row patched memtype=tmpfs-shared verdict=fail data_check=mismatch
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "Pins leaked"
	has "$T/out" "memfd write 4M: patched, 4096 kB still pinned"
	has "$T/out" "Data lost or corrupted"
	has "$T/out" "tmpfs-shared write 4M: patched, 1 row(s)"
	grep -qE '^  patched +[^ ]+ +[0-9]+ +2 +0 +0 +0 +0 +\?$' "$T/out" || fail "the two rows are not counted as failures"
	for t in memfd tmpfs-shared; do
		grep -qF "2171169 \"0 FAIL\" 16777215 \"$t\" \"patched\" \"io_uring register\"" "$T/plots/verdicts.dat" ||
			fail "$t: a failed cell is not in the failure colour"
	done
	grep -qE '^[0-9]+ [0-9]+ 6 6 2171169 [0-9]+ "FAIL"$' "$T/plots/verdicts.dat" || fail "no legend entry for FAIL"
	pass "leaked and corrupt rows: failed, listed under pins leaked and data lost or corrupted, failure colour in the grid" ;;
cycles-mix)
	# stock with --cycles (median 100 ns/page, first registration 1000),
	# patched without them (first registration 500): the ratio is of
	# first registrations, x2.00, not x0.20 (500 against stock's cycles)
	csv_awk "$D/stock.csv" 'NR > 1 && $col("memtype") == "anon" && $col("prefault") == "write" { $col("reg_ns_per_page") = 1000 } { print }' >"$T/stock.csv"
	csv_awk "$D/patched.csv" 'NR > 1 && $col("memtype") == "anon" && $col("prefault") == "write" {
		$col("reg_ns_per_page") = 500; $col("cycles") = 0
		$col("cycle_reg_ns_min") = "-"; $col("cycle_reg_ns_med") = "-"; $col("cycle_reg_ns_max") = "-" } { print }' >"$T/patched.csv"
	run_compare "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	rel_row "anon write 4M" | grep -q "x2.00" || fail "anon write 4M: want x2.00 (1000 against 500 ns/page, first registrations): $(rel_row "anon write 4M")"
	has "$T/out" "have --cycles rows in some files only"
	pass "a --cycles file against one without compares first registrations and says so" ;;
two-kernels)
	# one file holding two kernels' rows (stock and patched 6.1 share a
	# release; their contracts differ): compared, with a one-line warning
	cat "$D/stock.csv" >"$T/both.csv"
	tail -n +2 "$D/patched.csv" >>"$T/both.csv"
	run_compare "$T/both.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(grep -c 'warning' "$T/err")" = 1 ] || fail "want one warning line on stderr"
	grep -q "^longpin-compare: warning: $T/both.csv holds rows of more than one kernel (.*), merged under the label both: give one file per kernel$" "$T/err" ||
		fail "no warning naming the file, the kernels and the fix"
	run_compare "$D/stock.csv" "$D/patched.csv"
	hasnt "$T/err" "warning"
	pass "a file of two kernels is warned about, one file per kernel is not" ;;
fs-split)
	# file-shared on ext4 and xfs in one file (CRLF line ends): keyed by
	# fs_type, the xfs row differs.
	run_compare "$D/stock-fs.csv" "$D/patched-fs.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "file-shared write 4M (xfs): stock-fs -EOPNOTSUPP, patched-fs 0"
	has "$T/out" "1 of 2 keys differ"
	pass "rows split by fs_type, CRLF read" ;;
baseline)
	run_compare --baseline patched "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	rel_row "anon write 4M" | grep -qF "x0.50 [0.41-0.61]" || fail "stock against patched is not x0.50"
	run_compare --baseline nosuch "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 2 ] && grep -qF "give one of stock patched" "$T/err" || fail "unknown baseline"
	# the same basename in two directories: labelled by directory
	mkdir -p "$T/run1" "$T/run2"
	cp "$D/stock.csv" "$T/run1/stock.csv"
	cp "$D/patched.csv" "$T/run2/stock.csv"
	run_compare "$T/run1/stock.csv" "$T/run2/stock.csv"
	[ "$rc" = 0 ] && grep -qF "file-private write 4M: run1/stock -EOPNOTSUPP, run2/stock 0" "$T/out" ||
		fail "labels of two stock.csv"
	pass "--baseline, unknown label, same basename in two runs" ;;
usage)
	for args in "" "$D/stock.csv" "--bogus $D/stock.csv $D/patched.csv" "$D/stock.csv $D/patched.csv --report"; do
		# shellcheck disable=SC2086
		run_compare $args
		[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "'$args': exit $rc, want 2 and one line"
	done
	run_compare --help
	[ "$rc" = 0 ] || fail "--help: exit $rc"
	has "$T/out" "usage: longpin-compare"
	pass "usage errors exit 2 with one line" ;;
accel)
	# schema 2: the stock rows measured on bare metal, patched under TCG;
	# accel goes before note, the last column
	to_schema2 stock none; to_schema2 patched tcg
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +0 +0 +0 +0 +none$' "$T/out" || fail "accel none not in the files table"
	grep -qE '^  patched +[^ ]+ +6 +0 +0 +0 +0 +0 +tcg$' "$T/out" || fail "accel tcg not in the files table"
	grep -E '^  anon write 4M +patched ' "$T/out" | grep -qF "(tcg)" || fail "patched MiB/s not marked (tcg)"
	grep -E '^  anon write 4M +stock ' "$T/out" | grep -qF "(tcg)" && fail "stock MiB/s marked (tcg)"
	rel_row "anon write 4M" | grep -qF "(tcg)" || fail "ratio against the baseline not marked (tcg)"
	has "$T/out" "are emulated, not hardware figures"
	has "$T/plots/ratio.gp" "patched (tcg: emulated)"
	# schema 1 files do not say: no mark, "?" in the table
	run_compare "$D/stock.csv" "$D/patched.csv"
	hasnt "$T/out" "(tcg)"
	pass "accel: TCG figures marked (tcg) with a note, bare-metal ones not" ;;
pinner)
	# schema 3, two kernels, three pinners (io_uring, gup-fast, gup) and
	# gup's read-only pins: every pinner's row is its own key; per kernel
	# a table memory type x pinner, and the memory types where they
	# disagree (pinner/*.csv, the expected answers in the comments below)
	P=$D/pinner
	run_compare --report "$T/r.md" --plots "$T/plots" "$P/stock.csv" "$P/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	# 5 io_uring keys (one lifetime), 4 gup-fast, 4 gup, 2 read-only pins
	has "$T/out" "2 kernels, 15 keys"
	grep -qE '^  anon write 4M +stock +100 ' "$T/out" || fail "io_uring anon write is not 100 ns/page alone"
	grep -qE '^  gup-fast pin anon write 4M +stock +20.0 ' "$T/out" || fail "gup-fast anon write is not its own key"
	grep -qE '^  gup pin anon write 4M +stock +60.0 ' "$T/out" || fail "gup anon write is not its own key"
	has "$T/out" "gup-fast pin file-private write 4M: stock -REFUSED, patched 0"
	has "$T/out" "gup-fast pin file-shared write 4M: stock 0, patched -PARTIAL"
	# the tables, one per kernel; the lifetime row is no pin
	sed -n '/^What each long-term pinner gets$/,/^  Where the pinners/p' "$T/out" >"$T/pin"
	sed -n '/^  stock:$/,/^$/p' "$T/pin" >"$T/stock"
	sed -n '/^  patched:$/,/^$/p' "$T/pin" >"$T/patched"
	grep -qE '^  memory type +io_uring +gup-fast +gup +gup-fast ro +gup ro$' "$T/stock" || fail "stock: the columns"
	grep -qE '^  file-shared write 4M +-EOPNOTSUPP +0 +0 +- +-$' "$T/stock" || fail "stock: file-shared"
	grep -qE '^  file-private write 4M +-EOPNOTSUPP +-REFUSED +0 +- +-$' "$T/stock" || fail "stock: file-private"
	grep -qE '^  readonly write 4M +-EFAULT +-REFUSED +-EFAULT +0 +0$' "$T/stock" || fail "stock: readonly"
	grep -qE '^  file-shared write 4M +0 +-PARTIAL \(FAIL\) +0 +- +-$' "$T/patched" || fail "patched: file-shared, a fail not marked"
	grep -qE '^  readonly write 4M +-EFAULT +-EFAULT \(unchecked\) +-EFAULT +0 +-REFUSED \(unchecked\)$' "$T/patched" ||
		fail "patched: readonly, unchecked not marked"
	[ "$(grep -c 'write 4M' "$T/stock")" = 4 ] && [ "$(grep -c 'write 4M' "$T/patched")" = 4 ] ||
		fail "want 4 memory types a kernel (no lifetime row)"
	# where they disagree: read-write pins among themselves, read-only
	# too; pinned, refused or partly pinned: stock's readonly (-EFAULT,
	# -REFUSED, -EFAULT) is refused by all three, no disagreement
	sed -n '/^  Where the pinners disagree/,/^$/p' "$T/out" >"$T/dis"
	has "$T/dis" "Where the pinners disagree: 4 memory type(s) on some kernel"
	has "$T/dis" "  stock: file-shared write 4M: io_uring -EOPNOTSUPP, gup-fast 0, gup 0"
	has "$T/dis" "  stock: file-private write 4M: io_uring -EOPNOTSUPP, gup-fast -REFUSED, gup 0"
	has "$T/dis" "  patched: file-shared write 4M: io_uring 0, gup-fast -PARTIAL, gup 0"
	has "$T/dis" "  patched: readonly write 4M: gup-fast ro 0, gup ro -REFUSED"
	grep -q "stock: readonly" "$T/dis" && fail "refusals with different errnos listed as a disagreement"
	[ "$(grep -c ': .*: ' "$T/dis")" = 4 ] || fail "want 4 disagreement lines"
	# markdown
	has "$T/r.md" "## What each long-term pinner gets"
	sed -n '/^### stock$/,/^### patched$/p' "$T/r.md" | grep -qF "| file-shared write 4M | -EOPNOTSUPP | 0 | 0 | - | - |" ||
		fail "markdown: stock's file-shared row"
	has "$T/r.md" "- patched: file-shared write 4M: io_uring 0, gup-fast -PARTIAL, gup 0"
	# the grid: a column per kernel and pinner that ran (patched ran no
	# lifetime case), REFUSED teal, PARTIAL in the legend, a fail black
	for k in stock patched; do
		for l in "io_uring register" "gup-fast pin" "gup pin" "gup-fast pin-ro" "gup pin-ro"; do
			has "$T/plots/verdicts.dat" "\"anon\" \"$k\" \"$l\""
		done
	done
	has "$T/plots/verdicts.dat" '"memfd" "stock" "io_uring lifetime-munmap"'
	hasnt "$T/plots/verdicts.dat" '"patched" "io_uring lifetime-munmap"'
	for a in REFUSED PARTIAL; do
		grep -qE "^[0-9]+ [0-9]+ 6 6 [0-9]+ [0-9]+ \"$a\"\$" "$T/plots/verdicts.dat" || fail "no $a in the legend"
	done
	has "$T/plots/verdicts.dat" '2533018 "REFUSED" 0 "file-private" "stock" "gup-fast pin"'
	has "$T/plots/verdicts.dat" '2171169 "PARTIAL FAIL" 16777215 "file-shared" "patched" "gup-fast pin"'
	has "$T/plots/verdicts.dat" '2533018 "REFUSED ?" 0 "readonly" "patched" "gup pin-ro"'
	[ "$(grep -c '^$' "$T/plots/verdicts.dat")" = 8 ] || fail "want 5 data blocks"
	# one pinner: no such section, no REFUSED in the legend
	run_compare --plots "$T/p1" "$D/stock.csv" "$D/patched.csv"
	hasnt "$T/out" "What each long-term pinner gets"
	hasnt "$T/p1/verdicts.dat" '"REFUSED"'
	# an unknown pinner: exit 2, one line naming file, line and the fix
	csv_awk "$P/patched.csv" 'NR == 3 { $col("pinner") = "dma-buf" } { print }' >"$T/patched.csv"
	run_compare "$P/stock.csv" "$T/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "unknown pinner: exit $rc"
	has "$T/err" "longpin-compare: $T/patched.csv:3: unknown pinner 'dma-buf' (io_uring, gup-fast, gup, rdma, vfio): use the longpin-compare of the longpin that wrote it"
	command -v gnuplot >/dev/null || skip "pinner section checked; gnuplot not installed, PNG not checked"
	[ "$(head -c 4 "$T/plots/verdicts.png" | od -An -c | tr -d ' ')" = '211PNG' ] || fail "verdicts.png is not a PNG"
	pass "three pinners: keys apart, a table per kernel, 4 disagreements, a grid column per kernel and pinner" ;;
schema-mix)
	# a schema-2 stock (no pinner column: io_uring) against a schema-3
	# patched: the io_uring rows join, the gup rows are patched's only
	run_compare "$D/schema2/stock.csv" "$D/pinner/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "file-shared write 4M: stock -EOPNOTSUPP, patched 0"
	has "$T/out" "gup-fast pin anon write 4M: missing on stock, patched 0"
	hasnt "$T/out" "anon write 4M: stock 0, missing"
	rel_row "anon write 4M" | grep -qF "x2.00" || fail "io_uring anon write not joined: $(rel_row "anon write 4M")"
	has "$T/out" "  stock: only io_uring rows"
	has "$T/out" "  patched: file-shared write 4M: io_uring 0, gup-fast -PARTIAL, gup 0"
	# either order
	run_compare "$D/pinner/patched.csv" "$D/schema2/stock.csv"
	[ "$rc" = 0 ] && grep -qF "file-shared write 4M: patched 0, stock -EOPNOTSUPP" "$T/out" || fail "schema 3 first: exit $rc"
	# other missing columns are still refused: schema 1 has no accel
	run_compare "$D/stock.csv" "$D/pinner/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "schema 1 against 3: exit $rc"
	has "$T/err" "column 'accel' is in $D/pinner/patched.csv but not in $D/stock.csv"
	pass "schema 2 against schema 3: io_uring rows joined; a missing accel still refused" ;;
real)
	export TMPDIR=$T
	run_longpin --mem anon --size 4M --prefault all --ios 64 --repeat 3 --csv "$T/a.csv"
	ran_ok "longpin --mem anon"
	"$LONGPIN" --mem memfd --size 4M --prefault all --ios 64 --repeat 3 --csv "$T/b.csv" >"$T/l" 2>&1 ||
		{ cat "$T/l"; fail "longpin memfd failed"; }
	"$LONGPIN" --mem anon --size 4M --ios 64 --repeat 3 --csv "$T/b.csv" >"$T/l" 2>&1 ||
		{ cat "$T/l"; fail "longpin anon into b failed"; }
	run_compare --report "$T/r.md" "$T/a.csv" "$T/b.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "memfd write 4M: missing on a, b 0"
	has "$T/out" "anon none 4M: a 0, missing on b"
	rel_row "anon write 4M" | grep -qE 'x[0-9.]+' || fail "no ratio for anon write"
	pass "real rows of anon and memfd compared, exit 0" ;;
icount-tick)
	# a stall row's method: instructions with the HPET tick's turns
	# (accel tcg-icount0-tick10us, vm/guest/bench.sh), instructions alone
	# (tcg-icount0), or the wall clock (tcg)
	for k in stock patched; do
		to_schema2 $k tcg-icount0
		csv_awk "$T/$k.csv" -v k=$k 'NR == 1 || $col("memtype") != "anon" || $col("prefault") != "write" || done { print; next }
			{ done = 1; $col("op") = "register-mmap-probe"; $col("cycles") = 1
			  $col("cycle_reg_ns_min") = $col("cycle_reg_ns_med") = $col("cycle_reg_ns_max") = 300
			  $col("probe_calls") = 9; $col("probe_p999_us") = 90; $col("probe_max_us") = 100
			  $col("accel") = (k == "stock" ? "tcg-icount0-tick10us" : "tcg"); print }' >"$T/$k.tmp" &&
			mv "$T/$k.tmp" "$T/$k.csv"
	done
	run_compare "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	figs() { sed -n '/^Benchmark figures/,$p' "$T/out" | grep -F " $1 " | grep -F "$2"; }
	figs stock "stall us" | grep -qF "instructions, 10 us turns" || fail "stock's stall is not 'instructions, 10 us turns'"
	figs patched "stall us" | grep -qF "wall clock" || fail "patched's tcg stall is not 'wall clock'"
	figs patched "reg ns/page" | grep -vF "mmap-probe" | grep -qE ' instructions +[0-9]' ||
		fail "patched's tcg-icount0 registrations are not 'instructions'"
	has "$T/out" "N us turns: an HPET tick every N us"
	pass "icount-tick: a stall row's method says the HPET tick's turns" ;;
repeats)
	# --repeats: r1/K.csv ... r3/K.csv are one kernel; a figure is the
	# median of each repeat's own median, its spread their distance from it
	for r in 1 2 3; do
		mkdir -p "$T/r$r"
		cp "$D/stock.csv" "$T/r$r/stock.csv"
		head -n 1 "$D/patched.csv" >"$T/patched.csv"
		add_row patched "cycle_reg_ns_med=$((100 + r)) cycle_reg_ns_min=$((90 + r)) cycle_reg_ns_max=$((120 + r))"
		mv "$T/patched.csv" "$T/r$r/patched.csv"
	done
	run_compare --repeats "$T"/r1/stock.csv "$T"/r2/stock.csv "$T"/r3/stock.csv \
		"$T"/r1/patched.csv "$T"/r2/patched.csv "$T"/r3/patched.csv
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "2 kernels"
	sed -n '/^Benchmark figures/,$p' "$T/out" | grep -F " patched " | grep -F "reg ns/page" |
		grep -qE 'wall clock +102 +\+-1\.0% over repeats +3 repeats' ||
		fail "patched's reg figure is not 102 (wall clock) +-1.0% over 3 repeats"
	run_compare --repeats "$T"/r1/stock.csv "$T"/r2/stock.csv
	[ "$rc" = 2 ] && has "$T/err" "give files of 2 kernels or more" ||
		fail "--repeats of one kernel: exit $rc"
	pass "--repeats: one kernel per basename, the median of the repeats' medians" ;;
grid)
	# verdicts.png of a run as large as run.sh's default (two kernels,
	# every memory type of `longpin types` by 3 prefaults by io_uring,
	# gup-fast and gup, read-write and read-only; 3 lifetime cases; fio
	# jobs): at most 1,600 px tall, every type, kernel and pinner named,
	# prefaults sliced only where they differ, the data loss brown
	types=$("$LONGPIN" types | awk '!/^#/ { print $1 }')
	[ "$(echo "$types" | wc -w)" -ge 20 ] || fail "longpin types lists $(echo "$types" | wc -w) types"
	for k in stock patched; do
		csv_awk "$D/pinner/stock.csv" -v k="$k" -v types="$(echo $types)" '
			function row(src, mem, pf, op, pin, fs, res, err, v, size) {
				$col("source") = src; $col("memtype") = mem; $col("prefault") = pf
				$col("op") = op; $col("pinner") = pin; $col("fs_type") = fs
				$col("result") = res; $col("errno") = err; $col("verdict") = v
				$col("size") = size; $col("data_check") = v == "defect" ? "mismatch" : "ok"
				print
			}
			NR == 1 { print; next }
			NR == 2 {
				nt = split(types, t, " "); split("none read write", pfs, " ")
				split("register pin pin pin-ro pin-ro", ops, " "); split("io_uring gup-fast gup gup-fast gup", pins, " ")
				for (i = 1; i <= nt; i++) {
					fss = t[i] ~ /^(file|fsdax)-(shared|private)$/ ? "ext4 xfs" : "-"
					nf = split(fss, fs, " ")
					for (f = 1; f <= nf; f++) for (p = 1; p <= 3; p++) for (o = 1; o <= 5; o++) {
						res = 0; err = "-"
						if (k == "stock" && o == 1 && t[i] ~ /^file-/) { res = -95; err = "EOPNOTSUPP" }
						if (o == 2 && t[i] ~ /^fsdax-/ && pfs[p] != "write") { res = -4097; err = "REFUSED" }
						if (o == 1 && t[i] == "readonly") { res = -14; err = "EFAULT" }
						row("harness", t[i], pfs[p], ops[o], pins[o], fs[f], res, err, "pass", 16777216)
					}
					if (i > 15) continue
					for (l = 1; l <= 3; l++) for (p = 1; p <= 3; p++) {
						lost = k == "stock" && pfs[p] == "read" && t[i] ~ /^(anon-shared|memfd|tmpfs-shared|sysv-shm)$/
						row("harness", t[i], pfs[p], "lifetime-" (l == 1 ? "reclaim" : l == 2 ? "reclaim-pinned" : "lazyfree"),
						    "io_uring", fs[1], lost ? -5 : 0, lost ? "EIO" : "-", lost ? "defect" : "pass", 4194304)
					}
					if (i > 13) continue
					row("fio", t[i], "none", "randread-nullb", "io_uring", fs[1], 0, "-", "pass", 32768)
					row("fio", t[i], "write", "randwrite-nullb", "io_uring", fs[1], 0, "-", "pass", 32768)
				}
			}' >"$T/$k.csv"
	done
	echo "$(($(wc -l <"$T/stock.csv") - 1)) rows a kernel"
	echo "+ longpin-compare --plots $T/plots $T/stock.csv $T/patched.csv"
	rc=0
	"$COMPARE" --plots "$T/plots" "$T/stock.csv" "$T/patched.csv" >"$T/out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { tail -n 5 "$T/out"; fail "exit status $rc"; }
	size=$(sed -n "s/^set terminal png .* size \([0-9]*\),\([0-9]*\)$/\1 \2/p" "$T/plots/verdicts.gp")
	echo "verdicts.gp: size $size"
	[ -n "$size" ] && [ "${size#* }" -le 1600 ] || fail "verdicts.png is '$size' px, want at most 1,600 tall"
	# the labels drawn: rows, the columns' headers (kernel, pinner, op)
	sed -n 's/^[0-9.]* [0-9.]* "\(.*\)"$/\1/p' "$T/plots/verdicts.dat" >"$T/labels"
	for t in $types; do
		grep -qxF -e "$t" -e "$t (ext4)" "$T/labels" || fail "no row for memory type $t"
	done
	for n in stock patched io_uring gup-fast gup pin-ro reclaim reclaim-pinned lazyfree fio; do
		grep -qxF "$n" "$T/labels" || fail "no column header $n"
	done
	# the prefaults of a cell: one where they agree, sliced where not
	has "$T/plots/verdicts.dat" '6732650 "0" 0 "anon" "stock" "io_uring register"'
	has "$T/plots/verdicts.dat" '2533018 "n r: REFUSED" 0 "fsdax-shared (ext4)" "patched" "gup-fast pin"'
	has "$T/plots/verdicts.dat" '6732650 "w: 0" 0 "fsdax-shared (ext4)" "patched" "gup-fast pin"'
	has "$T/plots/verdicts.dat" '9268835 "r: EIO LOST" 16777215 "memfd" "stock" "io_uring lifetime-reclaim"'
	has "$T/plots/verdicts.dat" '"n w: 0" 0 "memfd" "stock" "io_uring lifetime-reclaim"'
	command -v gnuplot >/dev/null || skip "verdicts.gp checked; gnuplot not installed, PNG not checked"
	png=$(od -An -tu1 -j16 -N8 "$T/plots/verdicts.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }')
	[ "$png" = "$size" ] || fail "verdicts.png is $png px, verdicts.gp says $size"
	pass "verdicts.png of $(echo "$types" | wc -w) types, 2 kernels, 3 pinners: $png px" ;;
*)
	fail "unknown case $case" ;;
esac
