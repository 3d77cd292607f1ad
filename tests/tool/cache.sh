#!/usr/bin/env bash
# A second build with nothing changed rebuilds nothing: prints "cached" and
# takes less than 5 s.  (The first build may take minutes when nothing is cached.)
. "$(dirname "$0")/../lib.sh"
need_kernel stock
"$LPVM" build --kernel all >"$T/first" 2>&1 || { cat "$T/first"; fail "first build failed"; }
t0=${EPOCHREALTIME/./}
"$LPVM" build --kernel all >"$T/second" 2>&1 || { cat "$T/second"; fail "second build failed"; }
t1=${EPOCHREALTIME/./}
cat "$T/second"
ms=$(((t1 - t0) / 1000))
grep -q 'build stock: cached' "$T/second" || fail "stock was not reported cached"
grep -q 'build patched: cached' "$T/second" || fail "patched was not reported cached"
grep -qE 'make|configure' "$T/second" && fail "second build ran make"
((ms < 5000)) || fail "second build took $ms ms"
pass "second build: cached, $ms ms"
