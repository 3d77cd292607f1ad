#!/usr/bin/env bash
# A guest that dies while booting, before the command starts, is booted
# once more and the command still runs (its exit status and output come
# through); the stage line says so and names the first console log. A
# guest that dies twice is exit 4. The death is the test hook
# LONGPIN_VM_TEST_BOOT_DEATH=1: longpin.test=boot-death on the first
# boot's command line, on which the guest's init exits before the start.
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
LONGPIN_VM_TEST_BOOT_DEATH=1 "$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo OUT-LINE; exit 5' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
((rc == 5)) || fail "expected exit status 5 after the second boot, got $rc"
grep -qx 'OUT-LINE' "$T/out" || fail "the command's output did not come through"
grep -q 'the guest died while booting, before the command started (console log .*console.log): booting it once more' "$T/err" ||
	fail "no stage line announcing the second boot"
first=$(sed -n 's/.*before the command started (console log \(.*console.log\)).*/\1/p' "$T/err" | head -n1)
grep -q 'dying before the command starts' "$first" || fail "the first console log $first does not show the death"
[[ $(grep -c 'starting QEMU' "$T/err") == 2 ]] || fail "want exactly two boots"
pass "a guest dead before the start is booted once more: exit 5 and output of the second boot, first console log kept"
