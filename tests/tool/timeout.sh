#!/usr/bin/env bash
# A hung guest is killed at --timeout with exit status 124 and a one-line
# message naming the timeout and the console log; no QEMU or temp dir is left.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" build --kernel "$K" >/dev/null 2>&1 || true # do not count a build against the timeout
start=$SECONDS
"$LPVM" run --kernel "$K" --timeout 30 -- sleep 600 >"$T/out" 2>"$T/err" &
pid=$!
wait $pid
rc=$?
cat "$T/out" "$T/err"
((rc == 124)) || fail "expected exit status 124, got $rc"
grep -qE 'killed after the 30s timeout.*console log: /' "$T/err" || fail "no timeout message naming the timeout and the console log"
log=$(sed -n 's/.*console log: \(\/.*\)$/\1/p' "$T/err" | tail -n1)
[[ -f $log ]] || fail "console log $log does not exist"
grep -q "running: sleep 600" "$log" || fail "the guest never reached the command (slow boot?); see $log"
sleep 0.5
left=$(pgrep -af qemu-system | grep -F "lpvm.$pid." || true)
[[ -z $left ]] || fail "QEMU left running: $left"
compgen -G "$CACHE/tmp/lpvm.$pid.*" >/dev/null && fail "temp dir left: $(echo "$CACHE"/tmp/lpvm."$pid".*)"
((SECONDS - start < 90)) || fail "took $((SECONDS - start)) s"
pass "timeout after 30 s (guest hung in sleep 600): exit 124, message, console log kept, nothing left behind"
