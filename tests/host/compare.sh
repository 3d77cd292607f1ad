#!/bin/bash
# compare.sh CASE: longpin-compare on the hand-made CSVs of
# tests/data/compare/ (and on real rows for CASE real).
# shellcheck source-path=SCRIPTDIR
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

# need_plots: skip unless Debian's python3 has matplotlib (--plots needs it).
need_plots() {
	/usr/bin/python3 -c 'import matplotlib' 2>/dev/null ||
		skip "python3-matplotlib missing (apt-get install -y python3-matplotlib)"
}

# png_size FILE: "WIDTH HEIGHT" of a PNG (its IHDR)
png_size() {
	od -An -tu1 -j16 -N8 "$1" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4, $5 * 16777216 + $6 * 65536 + $7 * 256 + $8 }'
}

# png_ok FILE: a PNG that longpin-compare wrote (its Software text chunk),
# at least 300 x 200 px and 5 kB
png_ok() {
	local size
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
	tr -d '\0' <"$1" | grep -qaF "Softwarelongpin-compare" || fail "$1 has no Software=longpin-compare"
	size=$(png_size "$1")
	[ "${size% *}" -ge 300 ] && [ "${size#* }" -ge 200 ] && [ "$(stat -c %s "$1")" -ge 5000 ] ||
		fail "$1: $size px, $(stat -c %s "$1") bytes"
}

# grid KIND FIELD...: the data of the verdict grid ($GRID, default
# $T/plots/verdicts.txt, tab-separated) has a line of KIND whose fields
# start with FIELD...: "grid cell ROW KERNEL LANE TEXT COLOUR" (a cell or
# slice), "grid legend COLOUR", "grid row LABEL", "grid column KERNEL
# PINNER OP", "grid size W H"
grid() {
	awk -F'\t' -v want="$(IFS=$'\t'; echo "$*")" 'index($0 "\t", want "\t") == 1 { f = 1 } END { exit !f }' \
		"${GRID:-$T/plots/verdicts.txt}"
}

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

# to_schema4 KERNEL: $D/pinner/KERNEL.csv as schema 4 (stall_us_*, moved_pages,
# dirty_unpin_kb, pages_out, pages_intact before accel, all -) into
# $T/s4/KERNEL.csv and $T/KERNEL.csv
to_schema4() {
	mkdir -p "$T/s4"
	csv_awk "$D/pinner/$1.csv" '{ $col("accel") = (NR == 1 ? "stall_us_min,stall_us_med,stall_us_max,probe_free_med_us,probe_free_p99_us,moved_pages,dirty_unpin_kb,pages_out,pages_intact" : "-,-,-,-,-,-,-,-,-") OFS $col("accel")
		if (NR > 1) $col("schema") = 4; print }' >"$T/s4/$1.csv"
	cp "$T/s4/$1.csv" "$T/$1.csv"
}

case $case in
join)
	run_compare "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "file-private write 4M: stock -EOPNOTSUPP, patched 0"
	has "$T/out" "sysv-shm write 4M: stock -EOPNOTSUPP, patched 0"
	hasnt "$T/out" "anon write 4M: stock"
	grep -qE '^  stock \(baseline\) +[^ ]+stock.csv +5 +0 +0 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "stock verdict counts"
	grep -qE '^  patched +[^ ]+patched.csv +6 +0 +0 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "patched verdict counts"
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
	bad_input schema9.csv "2: CSV schema 9, this longpin-compare reads schemas 1 to 4: use a matching longpin"
	pass "schema 9: exit 2 with the message" ;;
malformed)
	bad_input short-line.csv "3: 6 fields, the header has 63"
	# a header of no schema: one column renamed
	sed '1s/,verdict,/,verdikt,/' "$D/stock.csv" >"$T/renamed.csv"
	run_compare "$D/stock.csv" "$T/renamed.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "a renamed column: exit $rc"
	grep -qE "renamed.csv:1: not a header of longpin's CSV schemas 1 to 4 \(column [0-9]+ is 'verdikt', not 'verdict'\)" "$T/err" ||
		fail "a renamed column is not named"
	pass "a short line, a renamed column: exit 2 naming file:line" ;;
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
	need_plots
	run_compare --report "$T/r.md" --plots "$T/plots" "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ -f "$T/r.md" ] && ! compgen -G "$T/.r.md.*" >/dev/null || fail "report not written (or its temporary file left)"
	[ "$(head -n 1 "$T/r.md")" = "<!-- written by longpin-compare -->" ] || fail "the report's first line is not longpin-compare's mark"
	has "$T/r.md" "| ! | file-private write 4M | -EOPNOTSUPP | 0 |"
	has "$T/r.md" "| ? | anon none 4M | 0 | missing |"
	has "$T/r.md" "| anon write 4M | patched-missing | x2.00 [1.64-2.44] |"
	# each plot with data: its PNG and the data it shows beside it; every
	# row is of one size: no plot against the size
	for f in verdicts reg ratio; do
		png_ok "$T/plots/$f.png"
		[ "$(head -c 28 "$T/plots/$f.txt")" = "# written by longpin-compare" ] || fail "$f.txt missing"
	done
	has "$T/out" "plots in $T/plots: verdicts.png reg.png ratio.png"
	for f in reg-size stall-size; do
		[ ! -e "$T/plots/$f.png" ] && [ ! -e "$T/plots/$f.txt" ] || fail "$f written without data"
	done
	has "$T/plots/reg.txt" "$(printf 'anon 4M\tpatched-missing\t50\t45\t55')"
	# bad input: no report, no temp file
	run_compare --report "$T/bad.md" "$D/stock.csv" "$D/schema9.csv"
	[ "$rc" = 2 ] && [ ! -e "$T/bad.md" ] && ! compgen -G "$T/.bad.md.*" >/dev/null || fail "report written despite bad input"
	# no matplotlib: one line naming the package, exit 2, nothing written
	mkdir -p "$T/nompl/matplotlib"
	echo 'raise ImportError("No module named matplotlib")' >"$T/nompl/matplotlib/__init__.py"
	rc=0
	PYTHONPATH=$T/nompl "$COMPARE" --report "$T/r2.md" --plots "$T/p2" "$D/stock.csv" "$D/patched.csv" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && has "$T/err" "apt-get install python3-matplotlib" &&
		[ ! -e "$T/r2.md" ] && [ ! -e "$T/p2" ] && [ ! -s "$T/out" ] || fail "without matplotlib: exit $rc"
	pass "markdown report with the verdict table; verdicts.png, reg.png, ratio.png with their data" ;;
mixed)
	# a repeat of anon write that answered -EFAULT and failed: the
	# combined result is mixed, the verdicts too
	cp "$D/patched.csv" "$T/patched.csv"
	add_row patched result=-14 errno=EFAULT verdict=fail
	run_compare "$D/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "anon write 4M: stock 0, patched mixed 0/-EFAULT"
	grep -qE '^  !  anon write 4M +0 +mixed 0/-EFAULT \(pass/fail\)' "$T/out" || fail "mixed verdicts not shown"
	grep -qE '^  patched +[^ ]+ +6 +1 +0 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "fail not counted"
	pass "repeats that disagree are shown as mixed" ;;
defect)
	# a lifetime-reclaim row that lost data as its contract expects
	# (verdict "defect"): counted apart, listed, DATA LOST in the table,
	# brown in the verdict grid (its data check says mismatch, as a real
	# defect row does: still brown, not the failure colour); never a pass
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row stock memtype=memfd prefault=read op=lifetime-reclaim result=-5 errno=EIO expected=-5 verdict=defect data_check=mismatch
	add_row patched memtype=memfd prefault=read op=lifetime-reclaim result=0 errno=- expected=0 verdict=pass
	need_plots
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +1 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "defect not counted apart"
	has "$T/out" "Data lost: known kernel defects"
	has "$T/out" "lifetime-reclaim memfd read 4M: stock -EIO"
	grep -qE 'lifetime-reclaim memfd read 4M +-EIO \(DATA LOST\) +0' "$T/out" || fail "no DATA LOST in the table"
	# in the grid: brown, white text, in the memfd row's stock reclaim column
	grid cell memfd stock "io_uring lifetime-reclaim" "EIO LOST" lost || fail "the grid cell is not brown"
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
	need_plots
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "Pins leaked: known kernel defects"
	hasnt "$T/out" "Data lost: known kernel defects"
	has "$T/out" "vfio pin devdax write 4M: stock 0"
	grep -qE 'devdax write 4M +0 \(PINS LEAKED\) +0' "$T/out" || fail "no PINS LEAKED in the table"
	grid cell devdax stock "vfio pin" "0 LEAK" lost ||
		fail "the grid cell is not brown with LEAK: $(grep -F devdax "$T/plots/verdicts.txt" | grep -F vfio)"
	pass "a pin-leak defect row: listed under pins leaked, PINS LEAKED in the table, LEAK in the grid" ;;
fixed)
	# a lifetime-reclaim row whose contract expects the known data loss,
	# and the data survived (verdict "fixed"): counted apart, listed
	# under its own heading and marked in the table, never a pass
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	add_row stock memtype=mixed prefault=read op=lifetime-reclaim result=0 errno=- expected=-5 verdict=fixed data_check=ok
	run_compare --report "$T/r.md" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +0 +1 +0 +0 +0 +0 +\?$' "$T/out" || fail "fixed not counted apart"
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
	need_plots
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	has "$T/out" "Pins leaked"
	has "$T/out" "memfd write 4M: patched, 4096 kB still pinned"
	has "$T/out" "Data lost or corrupted"
	has "$T/out" "tmpfs-shared write 4M: patched, 1 row(s)"
	grep -qE '^  patched +[^ ]+ +[0-9]+ +2 +0 +0 +0 +0 +0 +0 +\?$' "$T/out" || fail "the two rows are not counted as failures"
	for t in memfd tmpfs-shared; do
		grid cell "$t" patched "io_uring register" "0 FAIL" fail || fail "$t: a failed cell is not in the failure colour"
	done
	grid legend fail FAIL || fail "no legend entry for FAIL"
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
	need_plots
	run_compare --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	grep -qE '^  stock \(baseline\) +[^ ]+ +5 +0 +0 +0 +0 +0 +0 +0 +none$' "$T/out" || fail "accel none not in the files table"
	grep -qE '^  patched +[^ ]+ +6 +0 +0 +0 +0 +0 +0 +0 +tcg$' "$T/out" || fail "accel tcg not in the files table"
	grep -E '^  anon write 4M +patched ' "$T/out" | grep -qF "(tcg)" || fail "patched MiB/s not marked (tcg)"
	grep -E '^  anon write 4M +stock ' "$T/out" | grep -qF "(tcg)" && fail "stock MiB/s marked (tcg)"
	rel_row "anon write 4M" | grep -qF "(tcg)" || fail "ratio against the baseline not marked (tcg)"
	has "$T/out" "are emulated, not hardware figures"
	has "$T/plots/ratio.txt" "patched (tcg: emulated)"
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
	need_plots
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
			grid cell anon "$k" "$l" || fail "no cell anon $k $l"
		done
	done
	grid cell memfd stock "io_uring lifetime-munmap" || fail "no stock lifetime-munmap column"
	! grid cell memfd patched "io_uring lifetime-munmap" || fail "a patched lifetime-munmap column"
	for a in REFUSED PARTIAL; do
		grid legend "$a" || fail "no $a in the legend"
	done
	grid cell file-private stock "gup-fast pin" REFUSED REFUSED || fail "file-private: no REFUSED cell"
	grid cell file-shared patched "gup-fast pin" "PARTIAL FAIL" fail || fail "file-shared: no PARTIAL FAIL cell"
	grid cell readonly patched "gup pin-ro" "REFUSED ?" REFUSED || fail "readonly: no 'REFUSED ?' cell"
	for kind in size caption column row cell legend; do
		grid "$kind" || fail "verdicts.txt has no $kind line"
	done
	png_ok "$T/plots/verdicts.png"
	# one pinner: no such section, no REFUSED in the legend
	run_compare --plots "$T/p1" "$D/stock.csv" "$D/patched.csv"
	hasnt "$T/out" "What each long-term pinner gets"
	! GRID=$T/p1/verdicts.txt grid legend REFUSED || fail "REFUSED in the legend of io_uring alone"
	# an unknown pinner: exit 2, one line naming file, line and the fix
	csv_awk "$P/patched.csv" 'NR == 3 { $col("pinner") = "dma-buf" } { print }' >"$T/patched.csv"
	run_compare "$P/stock.csv" "$T/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "unknown pinner: exit $rc"
	has "$T/err" "longpin-compare: $T/patched.csv:3: unknown pinner 'dma-buf' (io_uring, gup-fast, gup, rdma, vfio): use the longpin-compare of the longpin that wrote it"
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
	# repeats of one kernel written by two longpins (two headers)
	to_schema2 stock tcg
	mkdir -p "$T/s2"
	mv "$T/stock.csv" "$T/s2/stock.csv"
	run_compare --repeats "$T"/r1/stock.csv "$T"/s2/stock.csv "$T"/r1/patched.csv "$T"/r2/patched.csv
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "--repeats of two headers: exit $rc"
	has "$T/err" "$T/s2/stock.csv:1: its header differs from $T/r1/stock.csv's: give repeats written by the same longpin"
	pass "--repeats: one kernel per basename, the median of the repeats' medians; two headers of one kernel refused" ;;
grid)
	# verdicts.png of a run as large as run.sh's default (two kernels,
	# every memory type of `longpin types` by 3 prefaults by io_uring,
	# gup-fast and gup, read-write and read-only; 3 lifetime cases; fio
	# jobs): at most 1,600 px tall, every type, kernel and pinner named,
	# prefaults sliced only where they differ, the data loss brown
	need_plots
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
	png_ok "$T/plots/verdicts.png"
	size=$(png_size "$T/plots/verdicts.png")
	echo "verdicts.png: $size px"
	[ "${size#* }" -le 1600 ] || fail "verdicts.png is '$size' px, want at most 1,600 tall"
	grid size ${size% *} ${size#* } || fail "verdicts.txt does not say verdicts.png's size $size"
	# the labels drawn: rows, the columns' headers (kernel, pinner, op)
	awk -F'\t' '$1 == "column" { print $2; print $3; print $4 }' "$T/plots/verdicts.txt" >"$T/labels"
	for t in $types; do
		grid row "$t" || grid row "$t (ext4)" || fail "no row for memory type $t"
	done
	for n in stock patched io_uring gup-fast gup pin-ro reclaim reclaim-pinned lazyfree fio; do
		grep -qxF "$n" "$T/labels" || fail "no column header $n"
	done
	# the prefaults of a cell: one where they agree, sliced where not
	grid cell anon stock "io_uring register" 0 0 || fail "anon: no single 0 cell"
	grid cell "fsdax-shared (ext4)" patched "gup-fast pin" "n r: REFUSED" REFUSED || fail "fsdax-shared: no n r slice"
	grid cell "fsdax-shared (ext4)" patched "gup-fast pin" "w: 0" 0 || fail "fsdax-shared: no w slice"
	grid cell memfd stock "io_uring lifetime-reclaim" "r: EIO LOST" lost || fail "memfd: no r slice lost"
	grid cell memfd stock "io_uring lifetime-reclaim" "n w: 0" 0 || fail "memfd: no n w slice"
	pass "verdicts.png of $(echo "$types" | wc -w) types, 2 kernels, 3 pinners: $size px" ;;
schema4)
	# schema 4: skip and unexercised rows counted and listed, never a
	# pass; pages_out and pages_intact beside a lifetime row's verdict; in
	# the grid a lifetime case of a type the kernel refused (or skipped as
	# refused) is n/a, one the other kernel has and this one lacks missing
	to_schema4 stock; to_schema4 patched
	D=$T/s4
	add_row stock pinner=rdma op=pin verdict=skip result=- errno=- expected=- note=NOTE_RDMA
	add_row stock pinner=rdma op=pin memtype=memfd verdict=skip result=- errno=- expected=- note=NOTE_RDMA
	add_row patched pinner=rdma op=pin
	add_row stock op=lifetime-reclaim memtype=sysv-shm verdict=skip result=- errno=- expected=- note=NOTE_REFUSED
	add_row patched op=lifetime-reclaim memtype=sysv-shm pages_out=1024 pages_intact=1024
	add_row patched op=lifetime-reclaim memtype=file-private pages_out=1024 pages_intact=1024
	add_row patched op=lifetime-reclaim pages_out=1024 pages_intact=1024
	add_row stock op=lifetime-lazyfree verdict=unexercised pages_out=0 pages_intact=1024 note=NOTE_UNEX
	add_row patched op=lifetime-lazyfree pages_out=1024 pages_intact=0
	add_row stock op=lifetime-reclaim memtype=memfd prefault=read result=-5 errno=EIO expected=-5 verdict=defect data_check=mismatch pages_out=1024 pages_intact=0
	add_row patched op=lifetime-reclaim memtype=memfd prefault=read pages_out=1024 pages_intact=1024
	add_row patched pinner=gup-fast op=pin memtype=hugetlb result=-REFUSED errno=- expected=-REFUSED
	sed -i -e 's/,NOTE_RDMA$/,rdma: no RDMA device/' -e 's/,NOTE_REFUSED$/,register refused: -EOPNOTSUPP/' \
		-e 's/,NOTE_UNEX$/,pages never left memory: proves nothing/' "$T/stock.csv"
	need_plots
	run_compare --report "$T/r.md" --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	# stock: 3 skip, 1 unexercised, no more passes than its own 15 rows
	grep -qE '^  stock \(baseline\) +[^ ]+ +15 +0 +1 +0 +0 +3 +1 +0 +kvm$' "$T/out" || fail "stock verdict counts"
	has "$T/out" "  stock: 2 × rdma: no RDMA device"
	has "$T/out" "  stock: 1 × register refused: -EOPNOTSUPP"
	has "$T/r.md" "- stock: 2 × rdma: no RDMA device"
	has "$T/out" "Unexercised: the pages never left memory"
	has "$T/out" "lifetime-lazyfree anon write 4M: stock 0 (0 paged out, 1024 intact)"
	grep -qE 'lifetime-reclaim memfd read 4M +-EIO \(DATA LOST; 1024 paged out, 0 intact\) +0 \(1024 paged out, 1024 intact\)' "$T/out" ||
		fail "pages_out and pages_intact not beside the verdict"
	grep -qE 'lifetime-lazyfree anon write 4M +0 \(unexercised; 0 paged out, 1024 intact\) +0 \(1024 paged out, 0 intact\)' "$T/out" ||
		fail "unexercised not marked in the table"
	has "$T/out" "rdma pin anon write 4M: skipped on stock, patched 0"
	has "$T/out" "gup-fast pin hugetlb write 4M: missing on stock, patched -REFUSED"
	sed -n '/^  stock:$/,/^$/p' "$T/out" | grep -qE '^  anon write 4M +0 +0 +0 +skip ' || fail "no skip in stock's rdma column"
	hasnt "$T/out" "stock: anon write 4M: "    # a skipped pinner does not disagree
	# the grid: n/a (refused) apart from missing, skip and unexercised
	grid cell sysv-shm stock "io_uring lifetime-reclaim" n/a n/a || fail "sysv-shm: a skip as refused is not n/a"
	grid cell file-private stock "io_uring lifetime-reclaim" n/a n/a || fail "file-private: refused and not run is not n/a"
	grid cell anon stock "io_uring lifetime-reclaim" missing missing || fail "anon: a lacking row is not missing"
	grid cell memfd stock "rdma pin" skip skip || fail "memfd: no skip cell"
	grid cell anon stock "io_uring lifetime-lazyfree" "0 unexercised" unexercised || fail "anon lazyfree: not unexercised"
	for c in skip unexercised n/a missing; do
		grid legend "$c" || fail "no $c in the legend"
	done
	png_ok "$T/plots/verdicts.png"
	pass "schema 4: skip and unexercised counted, listed and coloured; n/a apart from missing; pages beside the verdict" ;;
out-input)
	# an output that is one of the inputs: refused, --force or not, with
	# one line; nothing written, the input byte for byte as it was
	cp "$D/stock.csv" "$D/patched.csv" "$T/"
	cp "$T/stock.csv" "$T/stock.orig"
	ln -s stock.csv "$T/link.md"
	for args in "--report $T/stock.csv" "--force --report $T/stock.csv" "--report $T/link.md" \
		"--plots $T/stock.csv" "--force --plots $T/stock.csv"; do
		# shellcheck disable=SC2086
		run_compare --plots "$T/p" $args "$T/stock.csv" "$T/patched.csv"
		[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "'$args': exit $rc"
		has "$T/err" "is one of the input files: give the"
		cmp -s "$T/stock.csv" "$T/stock.orig" || fail "'$args': the input changed"
		[ ! -e "$T/p" ] || fail "'$args': plots written"
	done
	pass "a report or plots path that is an input: exit 2, the input unchanged, nothing written" ;;
out-foreign)
	# a report or a plots directory that holds what longpin-compare did
	# not write: refused without --force, left as it was
	echo "my notes" >"$T/r.md"
	cp "$T/r.md" "$T/r.orig"
	run_compare --report "$T/r.md" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "a foreign report: exit $rc"
	has "$T/err" "longpin-compare: --report $T/r.md exists and longpin-compare did not write it: give a new path, or --force to overwrite it"
	cmp -s "$T/r.md" "$T/r.orig" || fail "the foreign report changed"
	need_plots
	mkdir "$T/plots"
	echo "set terminal png" >"$T/plots/reg.gp"
	run_compare --plots "$T/plots" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "a foreign file in --plots: exit $rc"
	has "$T/err" "--plots $T/plots holds reg.gp, which longpin-compare did not write"
	[ "$(ls -A "$T/plots")" = reg.gp ] || fail "written into a foreign plots directory"
	# --plots naming a file, not a directory, --force or not
	for args in "" --force; do
		# shellcheck disable=SC2086
		run_compare $args --plots "$T/r.md" "$D/stock.csv" "$D/patched.csv"
		[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] || fail "--plots of a file ($args): exit $rc"
		has "$T/err" "--plots $T/r.md is not a directory: give a new or empty directory"
		cmp -s "$T/r.md" "$T/r.orig" || fail "--plots of a file ($args): the file changed"
	done
	pass "a foreign report or plots directory, or plots onto a file: exit 2, left as it was" ;;
out-own)
	# its own report and plots of an earlier run: overwritten without
	# --force; a plot that has no data any more is removed
	need_plots
	for k in stock patched; do
		csv_awk "$D/$k.csv" 'NR > 1 && $col("memtype") == "anon" && $col("prefault") == "write" { print; $col("size") = 8388608 } { print }' >"$T/$k.csv"
	done
	run_compare --report "$T/r.md" --plots "$T/plots" "$T/stock.csv" "$T/patched.csv"
	[ "$rc" = 0 ] && [ -f "$T/plots/reg-size.png" ] || fail "first run: exit $rc, reg-size.png: $(ls "$T/plots")"
	run_compare --report "$T/r.md" --plots "$T/plots" "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] || fail "second run over its own files: exit $rc"
	has "$T/r.md" "patched-missing"
	[ ! -e "$T/plots/reg-size.png" ] && [ ! -e "$T/plots/reg-size.txt" ] || fail "reg-size of the first run left behind"
	png_ok "$T/plots/verdicts.png"
	mkdir "$T/empty"
	run_compare --plots "$T/empty" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "an empty plots directory: exit $rc"
	pass "its own report and plots overwritten, a stale plot removed, an empty directory taken" ;;
out-force)
	# --force: a foreign report overwritten, plots written beside foreign files
	need_plots
	echo "my notes" >"$T/r.md"
	mkdir "$T/plots"
	echo "keep me" >"$T/plots/notes.txt"
	run_compare --force --report "$T/r.md" --plots "$T/plots" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(head -n 1 "$T/r.md")" = "<!-- written by longpin-compare -->" ] || fail "the report was not overwritten"
	[ "$(cat "$T/plots/notes.txt")" = "keep me" ] || fail "a foreign file in --plots changed"
	png_ok "$T/plots/verdicts.png"
	pass "--force: a foreign report overwritten, plots beside foreign files" ;;
out-unsafe)
	# a --report path that is not a regular file: a device node, a FIFO,
	# a symlink to either, refused with --force too; nothing replaced,
	# nothing written into it, and a FIFO does not hang the reader
	mkfifo "$T/fifo"
	ln -s fifo "$T/to-fifo.md"
	ln -s nowhere "$T/dangling.md"
	kinds="fifo to-fifo.md dangling.md"
	if is_root; then
		# nodes of this test's own: /dev/null's and loop0's numbers, in $T
		mknod "$T/null" c 1 3 && mknod "$T/blk" b 7 0 || fail "mknod in $T"
		ln -s null "$T/to-null.md"
		kinds="$kinds null blk to-null.md"
	fi
	for f in $kinds; do
		before=$(stat -c '%F %t:%T %i' "$T/$f" 2>/dev/null || readlink "$T/$f")
		for force in "" --force; do
			rc=0
			timeout 20 "$COMPARE" $force --report "$T/$f" "$D/stock.csv" "$D/patched.csv" >"$T/out" 2>"$T/err" || rc=$?
			cat "$T/err"
			[ "$rc" != 124 ] || fail "--report $f $force: hung (killed after 20 s)"
			[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "--report $f $force: exit $rc"
			grep -Eq "^longpin-compare: --report $T/$f (is|points to .*, which is|points to) (a FIFO|a character device|a block device|nothing)" "$T/err" ||
				fail "--report $f $force: no line naming what the path is"
			grep -q "give the path of a new or regular file" "$T/err" || fail "--report $f $force: no fix named"
			[ "$(stat -c '%F %t:%T %i' "$T/$f" 2>/dev/null || readlink "$T/$f")" = "$before" ] ||
				fail "--report $f $force: the path was replaced"
			[ -L "$T/$f" ] || [ "${f%.md}" = "$f" ] || fail "--report $f $force: the symlink was replaced"
		done
	done
	! compgen -G "$T/.*.md.*" >/dev/null || fail "a temporary file left behind: $(ls -a "$T")"
	# a plot's own name in --plots that is a symlink: refused, --force too
	if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
		mkdir "$T/plots" && ln -s ../fifo "$T/plots/verdicts.png"
		run_compare --force --plots "$T/plots" "$D/stock.csv" "$D/patched.csv"
		[ "$rc" = 2 ] && [ -L "$T/plots/verdicts.png" ] || fail "--force --plots over a symlink: exit $rc"
		has "$T/err" "--plots $T/plots holds verdicts.png, which is a symlink: give a new or empty directory"
	fi
	pass "device nodes, FIFOs and symlinks to them or to nothing: exit 2, one line, left as they were, no hang" ;;
out-edited)
	# its own report, edited by hand: refused without --force (the mark
	# is there, the checksum of what it wrote is not that of the file);
	# unedited, overwritten; a symlink to its own report writes the report
	run_compare --report "$T/r.md" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] || fail "first report: exit $rc"
	tail -n 1 "$T/r.md" | grep -Eq '^<!-- longpin-compare sha256 [0-9a-f]{64} -->$' || fail "the report does not end in its checksum"
	run_compare --report "$T/r.md" "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] && grep -q patched-missing "$T/r.md" || fail "its own unedited report: exit $rc, not overwritten"
	sed -i '3s/$/ my note/' "$T/r.md"
	cp "$T/r.md" "$T/r.orig"
	run_compare --report "$T/r.md" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -s "$T/out" ] || fail "an edited report: exit $rc"
	has "$T/err" "longpin-compare: --report $T/r.md was written by longpin-compare and edited since (its checksum differs): give a new path, or --force to overwrite it"
	cmp -s "$T/r.md" "$T/r.orig" || fail "the edited report changed"
	# the mark alone, as an older longpin-compare wrote it: not proof
	printf '<!-- written by longpin-compare -->\nmine\n' >"$T/old.md"
	run_compare --report "$T/old.md" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 2 ] && [ "$(cat "$T/old.md")" = "$(printf '<!-- written by longpin-compare -->\nmine')" ] || fail "a mark without a checksum: exit $rc"
	has "$T/err" "carries no checksum of what longpin-compare wrote"
	run_compare --force --report "$T/r.md" "$D/stock.csv" "$D/patched.csv"
	[ "$rc" = 0 ] && ! grep -q "my note" "$T/r.md" || fail "--force over an edited report: exit $rc"
	ln -s r.md "$T/link.md"
	run_compare --report "$T/link.md" "$D/stock.csv" "$D/patched-missing.csv"
	[ "$rc" = 0 ] && [ -L "$T/link.md" ] && grep -q patched-missing "$T/r.md" || fail "a symlink to its own report: exit $rc"
	pass "an edited report or a mark without a checksum refused (left as it was), --force overwrites, a symlink writes its file" ;;
*)
	fail "unknown case $case" ;;
esac
