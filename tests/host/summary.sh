#!/bin/bash
# summary.sh: compare/summary.py, the last lines of ./run.sh, gives every
# benchmarked kernel of a run against the first (stock), not only the
# last, a fresh buffer's first registration before the repeated one, and
# the native anchor once, first and repeated. Its input is tests/data/summary/: the
# 64 MiB rows and cost-model heads of three kernels' benchmarks (stock,
# patched, stock-6.12) and a native.csv, from a full run.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
run=$(mktemp -d)
on_exit rm -rf "$run"
mkdir "$run/bench"
cp "$REPO"/tests/data/summary/* "$run/bench/"
out=$(python3 "$REPO/compare/summary.py" "$run" stock,patched,stock-6.12) ||
	fail "summary.py exited $?: $out"
echo "$out"
for k in patched stock-6.12; do
	for want in "registration, written: first stock [0-9.]+, $k [0-9.]+: x[0-9.]+ fewer; repeated stock [0-9.]+, $k [0-9.]+: x" \
		"registration, untouched: first stock [0-9.]+, $k [0-9.]+: x[0-9.]+ fewer$" \
		"stall, untouched: stock .*, $k [0-9.]+ us" \
		"whole cycle: stock [0-9./ ]+, $k [0-9./ ]+: x[0-9.]+ in instructions, x[0-9.]+ in modelled cycles"; do
		n=$(grep -cE "^  $want" <<<"$out")
		[ "$n" = 1 ] || fail "$n lines (want 1) match '$want'"
	done
done
n=$(grep -cE "native, this machine's .*: registration first [0-9.]+ ns \[[0-9.]+-[0-9.]+\], repeated [0-9.]+ ns" <<<"$out")
[ "$n" = 1 ] || fail "the native anchor, first and repeated, $n times (want once)"
pass "patched and stock-6.12 each against stock, the native anchor once"
