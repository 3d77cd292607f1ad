#!/usr/bin/env bash
# ./run.sh (mode main), whole, on stock and patched: exit 0, RUN.txt with
# the mode, the time and "failed: none"; the summary's verdict counts,
# skips by reason, stock's data-loss rows and the 64 MiB benchmark lines;
# every reclaim and lazyfree row says what its pages did (pass and defect
# with pages out), stock shows the known loss, patched none; the CSVs
# hold the skip rows. About 3 min alone on 2 cores under TCG.
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
	"  registration, written: stock [0-9.]+, patched [0-9.]+: x[0-9.]+ fewer" "  stall, untouched: stock "; do
	grep -Eq "^$l" "$r" || fail "RUN.txt has no line /^$l/"
done
grep -q "patched.*defect" "$r" && fail "patched shows a known defect"
# the reclaim and lazyfree rows, judged by what their pages did
for k in stock patched; do
	python3 - "$T/r/$k.csv" "$T/$k-reclaim.csv" <<'PY' || fail "$k.csv: no reclaim rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
keep = [r for r in rows if r["op"] in ("lifetime-reclaim", "lifetime-reclaim-pinned", "lifetime-lazyfree")]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(keep)
sys.exit(0 if keep else 1)
PY
	python3 "$REPO/tests/py/reclaim_rows.py" "$T/$k-reclaim.csv" --want-exercised || fail "$k: reclaim rows"
	[ "$(csv_cols "$T/r/$k.csv" verdict | grep -c '^skip$')" -gt 0 ] || fail "$k.csv has no skip row"
done
[ -s "$T/r/report.md" ] && [ -s "$T/r/plots/verdicts.png" ] || fail "no report or verdict grid"
[ -s "$T/r/raw/stock.log" ] && grep -q '^ok 1 ' "$T/r/raw/stock.log" || fail "the guest's KTAP lines are not in raw/"
pass "./run.sh main: $(grep '^took:' "$r"); $(grep -E '^(stock|patched):' "$r" | tr '\n' ' ')"
