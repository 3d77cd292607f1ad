#!/usr/bin/env bash
# A second build with nothing changed rebuilds nothing: prints "cached" and
# takes less than 5 s.  (The first build may take minutes when nothing is cached.)
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel stock
# stock and patched, the kernels ./test.sh builds (the others are the
# long tier's)
build2() { "$LPVM" build --kernel stock && "$LPVM" build --kernel patched; }
build2 >"$T/first" 2>&1 || { cat "$T/first"; fail "first build failed"; }
t0=${EPOCHREALTIME/./}
build2 >"$T/second" 2>&1 || { cat "$T/second"; fail "second build failed"; }
t1=${EPOCHREALTIME/./}
cat "$T/second"
ms=$(((t1 - t0) / 1000))
grep -q 'build stock: cached' "$T/second" || fail "stock was not reported cached"
grep -q 'build patched: cached' "$T/second" || fail "patched was not reported cached"
grep -qE 'make|configure' "$T/second" && fail "second build ran make"
((ms < 5000)) || fail "second build took $ms ms"
pass "second build: cached, $ms ms"
