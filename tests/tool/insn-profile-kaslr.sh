#!/usr/bin/env bash
# scripts/insn-profile.sh on a kernel with KASLR (Debian's 6.1): the
# symbols of one boot named the addresses of another, and it printed
# -932.0 instructions per page with dummy_cleanup_module on top, exit 0.
# Now: each counted boot's _stext must be the symbol boot's; else one
# line naming the cause and the fix, exit 1, after two boots.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel debian-6.1
[[ -x $LONGPIN ]] || skip "no longpin binary at $LONGPIN (build it first)"
"$REPO/scripts/insn-profile.sh" debian-6.1 4M 2 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 1 ]] || fail "exit status $rc, want 1"
grep -qx "insn-profile.sh: kernel debian-6.1's _stext moves between boots (KASLR?): profile a kernel built without CONFIG_RANDOMIZE_BASE" "$T/out" ||
	fail "the cause is not named"
[[ $(wc -l <"$T/out") == 1 ]] || fail "want one line of output"
pass "debian-6.1 (KASLR): refused, one line, exit 1"
