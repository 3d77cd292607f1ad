#!/usr/bin/env bash
# ./run.sh (mode main), whole, on stock and patched: exit 0, RUN.txt with
# the mode, the time and "failed: none"; the summary's verdict counts,
# skips by reason, stock's data-loss rows and the 64 MiB benchmark lines;
# every reclaim and lazyfree row says what its pages did (pass and defect
# with pages out), stock shows the known loss, patched none, and
# kernel-patches/mainline's test in each guest agrees; the CSVs hold the
# skip rows; each benchmark boot names its CPU and mitigations; each boot's raw/LANE.log read by the kernel's kunit.py parse
# (kselftest/ktap_check.py documents, where linux-source-6.12 gives it):
# every KTAP document parses. About 3 min alone on 2 cores under TCG.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
rc=0
"$REPO/run.sh" --out "$T/r" >"$T/o" 2>&1 || rc=$?
tail -n 40 "$T/o"
[ $rc = 0 ] || fail "./run.sh: exit $rc"
r=$T/r/RUN.txt
for l in "mode: main" "took: " "failed: none" "stock: [0-9]+ pass, [0-9]+ defect" "patched: [0-9]+ pass" \
	"  skipped [0-9]+ x: " "  data lost: reclaim memfd read: [1-9][0-9]* pages left memory" \
	"  registration, written: first stock [0-9.]+, patched [0-9.]+: x[0-9.]+ fewer; repeated stock [0-9.]+, patched [0-9.]+: x[0-9.]+ fewer" "  stall, untouched: stock "; do
	grep -Eq "^$l" "$r" || fail "RUN.txt has no line /^$l/"
done
grep -q "patched.*defect" "$r" && fail "patched shows a known defect"
# kernel-patches/mainline's test in each guest agrees with the kernel's rows
grep -q "DISAGREES" "$r" && fail "fixed-buf-unpin-dirty disagrees with a kernel's rows: $(grep DISAGREES "$r")"
[ "$(grep -c "fixed-buf-unpin-dirty shmem: FAIL: lost .*reclaim memfd read reads defect: agrees" "$r")" = 1 ] ||
	fail "stock: the reproducer's shmem case did not fail with bytes lost"
[ "$(grep -c "fixed-buf-unpin-dirty shmem: PASS: .*reclaim memfd read reads pass: agrees" "$r")" = 1 ] ||
	fail "patched: the reproducer's shmem case did not pass"
# the reclaim and lazyfree rows, judged by what their pages did
for k in stock patched; do
	python3 "$REPO/tests/py/select_rows.py" "$T/r/$k.csv" "$T/$k-reclaim.csv" \
		lifetime-reclaim lifetime-reclaim-pinned lifetime-lazyfree || fail "$k.csv: no reclaim rows"
	python3 "$REPO/tests/py/reclaim_rows.py" "$T/$k-reclaim.csv" --want-exercised || fail "$k: reclaim rows"
	[ "$(csv_cols "$T/r/$k.csv" verdict | grep -c '^skip$')" -gt 0 ] || fail "$k.csv has no skip row"
done
[ -s "$T/r/report.md" ] && [ -s "$T/r/plots/verdicts.png" ] || fail "no report or verdict grid"
# what each benchmark boot ran on: its CPU and which mitigations were on
for k in stock patched; do
	grep -q '^cpu: .*, [0-9]* vCPUs$' "$T/r/bench/$k-cpu.txt" &&
		grep -q '^vulnerabilities/spectre_v2: ' "$T/r/bench/$k-cpu.txt" ||
		fail "bench/$k-cpu.txt does not name the guest's CPU and its mitigations"
done
[ -s "$T/r/raw/stock.log" ] && grep -q '^ok 1 ' "$T/r/raw/stock.log" || fail "the guest's KTAP lines are not in raw/"
parsed="raw/ not read by kunit.py: no linux-source-6.12"
if kunit=$("$REPO/kselftest/build.sh" --kunit 2>/dev/null); then
	python3 "$REPO/kselftest/ktap_check.py" --kunit "$kunit" documents \
		"$T/r/raw/stock.log" "$T/r/raw/patched.log" >"$T/ktap" ||
		{ cat "$T/ktap"; fail "a KTAP document of raw/ does not parse"; }
	parsed="raw/ by kunit.py: $(sed -n 's/^kunit.py parsed //p' "$T/ktap")"
fi
pass "./run.sh main: $(grep '^took:' "$r"); $(grep -E '^(stock|patched):' "$r" | tr '\n' ' '); $parsed"
