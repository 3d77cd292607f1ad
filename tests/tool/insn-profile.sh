#!/usr/bin/env bash
# scripts/insn-profile.sh without a longpin binary: it booted both guests,
# whose registrations then failed unseen, and printed a difference of
# noise (-5.4 instructions per page) with exit 0. Now: one line naming
# the missing binary and the fix, exit 2, no guest booted. CYCLES of 1
# leaves nothing over the baseline boot's one cycle: refused the same way.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"

# refused WHAT CAUSE ARGS...: insn-profile.sh ARGS says CAUSE in one line,
# exits 2 and boots nothing
refused() {
	local what=$1 cause=$2 rc
	shift 2
	LONGPIN_CACHE=$T/cache timeout 30 "$REPO/scripts/insn-profile.sh" "$@" >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	[[ $rc == 2 ]] || fail "$what: exit status $rc, want 2"
	grep -qF "$cause" "$T/out" || fail "$what: the cause is not named"
	[[ $(wc -l <"$T/out") == 1 ]] || fail "$what: want one line of output"
	[[ ! -e $T/cache/runs ]] || fail "$what: a guest was started"
}
LONGPIN=$T/none refused "no binary" "no longpin binary at $T/none" patched 4M 2
refused "CYCLES 1" "CYCLES '1': give a count of 2 or more" patched 4M 1
pass "no longpin binary, or CYCLES 1: one line naming it, exit 2, no boot"
