#!/usr/bin/env bash
# SIGTERM (and Ctrl-C) during a run kills QEMU and removes the temp files.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" build --kernel "$K" >/dev/null 2>&1 || true
"$LPVM" run --kernel "$K" --timeout 300 -- sleep 600 >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do
	pgrep -af qemu-system | grep -qF "lpvm.$pid." && break
	sleep 0.2
done
pgrep -af qemu-system | grep -qF "lpvm.$pid." || { cat "$T/err"; fail "QEMU did not start"; }
sleep 3
kill -TERM "$pid"
wait "$pid"
rc=$?
cat "$T/err"
((rc == 143)) || fail "expected exit status 143 after SIGTERM, got $rc"
sleep 0.5
left=$(pgrep -af qemu-system | grep -F "lpvm.$pid." || true)
[[ -z $left ]] || fail "QEMU left running: $left"
compgen -G "$CACHE/tmp/lpvm.$pid.*" >/dev/null && fail "temp dir left behind"
compgen -G "$CACHE/tmp/lpvm.$pid.*/nvdimm-*" >/dev/null && fail "NVDIMM files left behind"
pass "SIGTERM: exit 143, QEMU killed, temp files removed"
