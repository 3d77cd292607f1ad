#!/usr/bin/env bash
# scripts/insn-profile.sh counts a registration: 5 registrations of a
# written 16 MiB buffer in patched, against a boot that makes the same
# buffer and registers it once. The pin's own functions must show, the
# total must be a registration and unregistration's (patched v7 313 per
# page at 64 MiB), and the buffer's set-up must cancel: clearing its pages
# (clear_page_*, 4,096 per page when a page is made) was counted before,
# about 1,000 per page over 5 cycles. What a registration clears itself
# stays: with init_on_alloc (as Debian builds) its page and bvec arrays,
# 96 KiB per 16 MiB, are zeroed at allocation, about 36 per page; with
# what two boots clear besides, under 100 per page. Three boots under
# -icount, the first (symbols only) not counted.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel patched
[[ -x $LONGPIN ]] || skip "no longpin binary at $LONGPIN (build it first)"
"$REPO/scripts/insn-profile.sh" patched 16M 5 >"$T/out" 2>&1
rc=$?
cat "$T/out"
[[ $rc == 0 ]] || fail "exit status $rc"
total=$(sed -n 's/^instructions per page and cycle (registration + unregistration): \(-\{0,1\}[0-9.]*\)$/\1/p' "$T/out")
[[ -n $total ]] || fail "no total line"
awk -v t="$total" 'BEGIN { exit !(t >= 200 && t <= 600) }' || fail "total $total per page: not a registration's"
clear=$(awk '$2 ~ /^clear_page/ { s += $1 } END { print s + 0 }' "$T/out")
awk -v c="$clear" 'BEGIN { exit !(c < 100) }' || fail "clear_page_* $clear per page: the set-up is counted"
for f in internal_get_user_pages_fast io_sqe_buffer_register; do
	grep -qE "^ +[0-9.]+  $f\$" "$T/out" || fail "$f not counted"
done
pass "patched, 5 x 16 MiB: $total instructions per page and cycle, clear_page_* $clear, GUP-fast and io_uring's register counted"
