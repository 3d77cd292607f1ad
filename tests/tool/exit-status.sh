#!/usr/bin/env bash
# The guest command's exit status becomes longpin-vm's, its stdout/stderr
# reach the host, and files it writes to /results come back in --out DIR.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" run --kernel "$K" --timeout 600 --out "$T/res" -- \
	sh -c 'echo "hello from $LONGPIN_KERNEL" >/results/x.txt; mkdir -p /results/sub; echo deep >/results/sub/y; echo OUT-LINE; echo ERR-LINE >&2; exit 7' \
	>"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
((rc == 7)) || fail "expected exit status 7, got $rc"
grep -qx 'OUT-LINE' "$T/out" || fail "guest stdout did not reach host stdout"
grep -qx 'ERR-LINE' "$T/err" || fail "guest stderr did not reach host stderr"
[[ $(cat "$T/res/x.txt" 2>/dev/null) == "hello from $K" ]] || fail "/results/x.txt did not come back to --out"
[[ $(cat "$T/res/sub/y" 2>/dev/null) == deep ]] || fail "/results/sub/y did not come back"
"$LPVM" run --kernel "$K" --timeout 600 -- true >"$T/out2" 2>"$T/err2"
rc=$?
cat "$T/err2"
((rc == 0)) || fail "'true' gave exit status $rc"
pass "exit status 7 and 0 passed through, stdout/stderr streamed, /results copied back"
