#!/usr/bin/env bash
# A guest that prints nothing on its console is stopped by the console
# watchdog within its bound, not at the run's timeout: exit 5, one line
# naming the accelerator, the kernel and the console log; no QEMU and no
# temp dir left. QEMU is a stand-in (tests/tool/standin/) that runs and
# prints nothing; the bound is set to 3 s (LONGPIN_CONSOLE_WATCHDOG_S).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" build --kernel "$K" >/dev/null 2>&1 || true # not counted below
export PATH=$REPO/tests/tool/standin:$PATH STANDIN_MODE=silent STANDIN_LOG=$T/qemu.log
export LONGPIN_KVM_DEV=$T/no-kvm LONGPIN_CONSOLE_WATCHDOG_S=3
start=$SECONDS
"$LPVM" run --kernel "$K" --timeout 600 -- true >"$T/out" 2>"$T/err" &
pid=$!
wait $pid
rc=$?
took=$((SECONDS - start))
cat "$T/out" "$T/err"
((rc == 5)) || fail "expected exit status 5, got $rc"
grep -qE "the guest printed nothing on its console within 3s under tcg \(kvm: no $T/no-kvm\); kernel /.*; console log: /" "$T/err" ||
	fail "no message naming the bound, the accelerator, the kernel and the console log"
((took < 60)) || fail "took $took s (the watchdog's bound is 3 s)"
for q in $(cut -d' ' -f1 "$T/qemu.log"); do
	kill -0 "$q" 2>/dev/null && fail "the stand-in QEMU $q was left running"
done
compgen -G "$CACHE/tmp/lpvm.$pid.*" >/dev/null && fail "temp dir left: $(echo "$CACHE"/tmp/lpvm."$pid".*)"
pass "a silent guest stopped by the console watchdog after 3 s: exit 5 in $took s, named, nothing left"
