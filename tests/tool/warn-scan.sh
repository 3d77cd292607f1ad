#!/usr/bin/env bash
# A kernel warning in the guest's dmesg fails an otherwise successful run with
# exit status 3 and prints the offending line and the first report whole (up to
# its end marker); a failing command keeps its status. The guest CPU has no
# LA57: 6.1 with KASAN gives a false report under 5-level paging (longpin-vm).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
"$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'grep -qw la57 /proc/cpuinfo && echo "LA57-IN-GUEST"
		echo "<4>WARNING: CPU: 0 PID: 1 at longpin/fake.c:1 longpin_fake_warning+0x0/0x0" >/dev/kmsg
		echo "<4>Call Trace: longpin_fake_caller+0x0/0x0" >/dev/kmsg
		echo "<4>---[ end trace 0000000000000000 ]---" >/dev/kmsg
		echo "<4>longpin after the report" >/dev/kmsg' \
	>"$T/out" 2>"$T/err"
rc=$?
cat "$T/out" "$T/err"
((rc == 3)) || fail "expected exit status 3 for a dmesg warning, got $rc"
grep -q 'kernel reported problems' "$T/err" || fail "no 'kernel reported problems' message"
grep -q 'WARNING: CPU: 0 PID: 1 at longpin/fake.c:1' "$T/err" || fail "offending line not printed"
grep -q '^first report' "$T/err" || fail "the first report is not printed whole"
grep -q 'longpin_fake_caller' "$T/err" || fail "the report's call trace is not printed"
grep -q '\] longpin after the report' "$T/err" && fail "the excerpt runs past the report's end marker"
grep -q 'LA57-IN-GUEST' "$T/out" && fail "the guest CPU has la57 (6.1 KASAN false reports under 5-level paging)"
"$LPVM" run --kernel "$K" --timeout 600 -- \
	sh -c 'echo "<4>BUG: longpin fake bug" >/dev/kmsg; exit 5' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/err"
((rc == 5)) || fail "expected the command's exit status 5 to win, got $rc"
grep -q 'BUG: longpin fake bug' "$T/err" || fail "offending line not printed"
pass "dmesg warnings fail the run (3) and are printed with the first report whole; a failing command keeps its status; no la57 in the guest"
