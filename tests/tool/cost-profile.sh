#!/usr/bin/env bash
# scripts/cost-profile.sh on patched, 5 cycles of a written 16 MiB buffer
# (three boots, about 1.5 min here). The registration and the
# unregistration are told apart by where they start (markers) and follow
# their task: QEMU 10.0 without CF_PARALLEL hands a TB's callbacks the
# index of the vCPU that translated it, not the one running it, and a
# profile that trusted it put 229 of stock-6.12's 308 registration
# instructions per page "outside" both (GUP-fast and the unpin among them)
# and split single functions between phases. Now the vCPU is read from GS:
# the pin and the unpin must be inside their phases (none of their
# functions among those outside), each with an atomic per page at least
# (a pin, an unpin), the markers entered once per registration and
# unregistration, GUP-fast's walk in the registration, and the model's
# formula and constants printed.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel patched
[[ -x $LONGPIN ]] || skip "no longpin binary at $LONGPIN (build it first)"
command -v gcc >/dev/null || skip "no gcc"
"$REPO/scripts/cost-profile.sh" patched 16M 5 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 0 ]] || fail "exit status $rc"
# row NAME COLUMN: the per-page figure of row NAME (1 insns, 2 atomics, ...)
row() { awk -v n="$1" -v c="$2" 'index($0, n " ") == 1 && $(NF - 9) ~ /^-?[0-9.]+$/ { print $(NF - 10 + c) }' "$T/out"; }
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'; }
reg=$(row registration 1) unreg=$(row unregistration 1) out=$(row outside 1)
in_range "$reg" 100 400 || fail "registration: '$reg' instructions per page"
in_range "$unreg" 50 250 || fail "unregistration: '$unreg' instructions per page"
# outside: other tasks' work besides (clear_page_* of pages some other
# task allocated: 20 per page once), but none of the pin's or the unpin's
in_range "$out" -100 100 || fail "outside the phases: '$out' instructions per page"
awk '/^outside the markers/ { o = 1; next } /^markers entered/ { o = 0 }
	o && $NF ~ /^(internal_get_user_pages_fast|gup_put_folio|unpin_user_page_range_dirty_lock|io_buffer_unmap|io_sqe_buffer_register|try_grab_folio)$/ && $1 + 0 > 1 { print; f = 1 }
	END { exit f }' "$T/out" || fail "the pin or the unpin counted outside the phases"
in_range "$(row registration 2)" 1 10 || fail "registration: $(row registration 2) atomics per page, want one per pin at least"
in_range "$(row unregistration 2)" 1 10 || fail "unregistration: $(row unregistration 2) atomics per page"
grep -qx "markers entered: registration 6 and 2 times, unregistration 6 and 2 (want 6 and 2 each)" "$T/out" ||
	fail "the markers were not entered once per registration and unregistration"
grep -q "vCPUs told by GS base: 2" "$T/out" || fail "the two vCPUs were not told apart"
awk '$NF == "internal_get_user_pages_fast" && $(NF - 2) + 0 > 0 { f = 1 } END { exit !f }' "$T/out" ||
	fail "GUP-fast's walk is not in the registration"
grep -q "^model: modelled cycles = insns x CPI0 + atomics x C_atomic" "$T/out" || fail "no formula"
grep -q "^    CPI0 " "$T/out" || fail "no constants"
pass "patched, 5 x 16 MiB: registration $reg, unregistration $unreg, outside $out instructions per page; markers and vCPUs right"
