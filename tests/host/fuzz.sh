#!/bin/bash
# fuzz.sh TARGET SECONDS: build the libFuzzer target fuzz-TARGET with clang
# (in build-fuzz/ beside build/) and run it for SECONDS on a copy of
# fuzz/corpus/TARGET. A crash, leak or sanitizer report fails the test and
# the input is printed: add it to fuzz/corpus/TARGET and fix the parser.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
target=$1 secs=$2
repo=$REPO
bdir=${LONGPIN_FUZZ_BUILD:-$repo/build-fuzz}
command -v clang >/dev/null || skip "clang missing (apt-get install -y clang libclang-rt-14-dev)"
echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >"$T/probe.c"
clang -fsanitize=fuzzer "$T/probe.c" -o "$T/probe" 2>/dev/null ||
	skip "clang cannot link libFuzzer here (apt-get install -y libclang-rt-14-dev)"
# one cmake at a time in build-fuzz/ (the lock lives there too)
mkdir -p "$bdir"
(flock 9
 CC=clang cmake -S "$repo" -B "$bdir" -DLONGPIN_FUZZ=ON >/dev/null &&
	cmake --build "$bdir" --target "fuzz-$target" >"$T/build.log" 2>&1) 9>"$bdir/.fuzz-build.lock" ||
	{ cat "$T/build.log"; fail "fuzz-$target does not build"; }
mkdir -p "$T/corpus"
cp "$repo/fuzz/corpus/$target/"* "$T/corpus/"
rc=0
"$bdir/fuzz-$target" -max_total_time="$secs" -close_fd_mask=3 -artifact_prefix="$T/" \
	-print_final_stats=1 "$T/corpus" >"$T/log" 2>&1 || rc=$?
grep -E "^stat::number_of_executed_units|^Done|^#[0-9]+.*DONE" "$T/log" | tail -n 3
if [ "$rc" != 0 ]; then
	tail -n 40 "$T/log"
	for f in "$T"/crash-* "$T"/leak-* "$T"/timeout-*; do
		[ -f "$f" ] && { echo "input $f:"; od -c "$f" | head -20; }
	done
	fail "fuzz-$target failed after $(grep -c . "$T/log") log lines"
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/log")
pass "fuzz-$target: $runs inputs in ${secs}s, no crash"
