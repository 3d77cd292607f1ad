#!/usr/bin/env bash
# A kernel warning in the guest's dmesg fails an otherwise successful run with
# exit status 3 and prints the offending line; a failing command keeps its status.
. "$(dirname "$0")/lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo "<4>WARNING: CPU: 0 PID: 1 at longpin/fake.c:1 longpin_fake_warning+0x0/0x0" >/dev/kmsg' \
	>"$TT/out" 2>"$TT/err"
rc=$?
cat "$TT/out" "$TT/err"
((rc == 3)) || fail "expected exit status 3 for a dmesg warning, got $rc"
grep -q 'kernel reported problems' "$TT/err" || fail "no 'kernel reported problems' message"
grep -q 'WARNING: CPU: 0 PID: 1 at longpin/fake.c:1' "$TT/err" || fail "offending line not printed"
"$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo "<4>BUG: longpin fake bug" >/dev/kmsg; exit 5' >"$TT/out" 2>"$TT/err"
rc=$?
cat "$TT/err"
((rc == 5)) || fail "expected the command's exit status 5 to win, got $rc"
grep -q 'BUG: longpin fake bug' "$TT/err" || fail "offending line not printed"
pass "dmesg warnings fail the run (3) and are printed; a failing command keeps its status"
