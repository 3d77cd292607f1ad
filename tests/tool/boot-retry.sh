#!/usr/bin/env bash
# Only a host-side failure to start QEMU is tried once more; a guest that
# dies while booting is not, its kernel report is the finding.
#  - LONGPIN_VM_TEST_QEMU_FAIL=1: the first QEMU cannot open a backing
#    file and exits at once, with nothing on the console: QEMU is started
#    once more (a stage line says so, naming its stderr), and the
#    command's status and output come through;
#  - LONGPIN_VM_TEST_BOOT_DEATH=1: the guest's init exits before the
#    command (the kernel panics, "Attempted to kill init"): exit 4 after
#    one boot, the report printed, the console log named.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
LONGPIN_VM_TEST_QEMU_FAIL=1 "$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo OUT-LINE; exit 5' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
((rc == 5)) || fail "QEMU_FAIL: expected exit status 5 after the second start, got $rc"
grep -qx 'OUT-LINE' "$T/out" || fail "QEMU_FAIL: the command's output did not come through"
grep -q 'QEMU failed to start (exit 1, stderr .*qemu.stderr): starting it once more' "$T/err" ||
	fail "QEMU_FAIL: no stage line announcing the second start"
[[ $(grep -c 'starting QEMU' "$T/err") == 2 ]] || fail "QEMU_FAIL: want exactly two starts"
grep -q 'longpin-test-hook' "$T/err" || fail "QEMU_FAIL: the first QEMU's error was not shown"

LONGPIN_VM_TEST_BOOT_DEATH=1 "$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo OUT-LINE; exit 5' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
((rc == 4)) || fail "BOOT_DEATH: expected exit status 4, got $rc"
[[ $(grep -c 'starting QEMU' "$T/err") == 1 ]] || fail "BOOT_DEATH: the guest was booted again"
grep -q 'OUT-LINE' "$T/out" && fail "BOOT_DEATH: the command ran"
grep -q 'the guest stopped while booting, before the command started, with a kernel report (above); console log: /' "$T/err" ||
	fail "BOOT_DEATH: no message naming the report and the console log"
grep -q 'Kernel panic' "$T/err" || fail "BOOT_DEATH: the report was not printed"
log=$(sed -n 's/.*console log: \(\/.*\)$/\1/p' "$T/err" | tail -n1)
grep -q 'dying before the command starts' "$log" || fail "BOOT_DEATH: the console log $log does not show the death"
pass "a QEMU that failed to start is started once more; a guest that died booting is not (exit 4, report shown)"
