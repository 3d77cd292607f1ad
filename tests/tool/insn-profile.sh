#!/usr/bin/env bash
# scripts/insn-profile.sh without a longpin binary: it booted both guests,
# whose registrations then failed unseen, and printed a difference of
# noise (-5.4 instructions per page) with exit 0. Now: one line naming
# the missing binary and the fix, exit 2, no guest booted. CYCLES of 1
# leaves nothing over the baseline boot's one cycle: refused the same way.
. "$(dirname "$0")/../lib.sh"
LONGPIN=$T/none LONGPIN_CACHE=$T/cache timeout 30 "$REPO/scripts/insn-profile.sh" patched 4M 2 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 2 ]] || fail "exit status $rc, want 2"
grep -q "no longpin binary at $T/none" "$T/out" || fail "the missing binary is not named"
[[ $(wc -l <"$T/out") == 1 ]] || fail "want one line of output"
[[ ! -e $T/cache/runs ]] || fail "a guest was started"
LONGPIN_CACHE=$T/cache timeout 30 "$REPO/scripts/insn-profile.sh" patched 4M 1 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 2 ]] || fail "CYCLES 1: exit status $rc, want 2"
grep -q "CYCLES '1': give a count of 2 or more" "$T/out" || fail "CYCLES 1: the cause is not named"
[[ $(wc -l <"$T/out") == 1 ]] || fail "CYCLES 1: want one line of output"
[[ ! -e $T/cache/runs ]] || fail "CYCLES 1: a guest was started"
pass "no longpin binary, or CYCLES 1: one line naming it, exit 2, no boot"
