#!/usr/bin/env bash
# scripts/insn-profile.sh counts a registration: 2 registrations of a
# written 4 MiB buffer in patched, against a boot that registers nothing.
# The pin's own functions must show, and the total must be a registration's
# (patched takes 400-500 instructions per page to register and unregister
# a written page; the buffer's set-up adds about 2,000 per page over 2
# cycles). Two boots under -icount.
. "$(dirname "$0")/../lib.sh"
need_kernel patched
[[ -x $LONGPIN ]] || skip "no longpin binary at $LONGPIN (build it first)"
"$REPO/scripts/insn-profile.sh" patched 4M 2 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 0 ]] || fail "exit status $rc"
total=$(sed -n 's/^instructions per page and cycle (registration + unregistration): \(-\{0,1\}[0-9.]*\)$/\1/p' "$T/out")
[[ -n $total ]] || fail "no total line"
awk -v t="$total" 'BEGIN { exit !(t >= 300 && t <= 10000) }' || fail "total $total per page: not a registration's"
for f in internal_get_user_pages_fast io_sqe_buffer_register; do
	grep -qE "^ +[0-9.]+  $f\$" "$T/out" || fail "$f not counted"
done
pass "patched, 2 x 4 MiB: $total instructions per page and cycle, GUP-fast and io_uring's register counted"
