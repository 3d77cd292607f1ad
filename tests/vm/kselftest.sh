#!/bin/bash
# vm/kselftest.sh: the longpin kselftest as a test farm runs it
# (kselftest/farm.sh): built and installed with the kernel's own kselftest
# build from Debian's linux-source-6.12, copied into a stock and a patched
# guest, run there by run_kselftest.sh, its output read by kunit.py parse
# of the same source: every line parses, skips give their reasons; stock
# shows the data-loss cases not ok (reclaim memfd, lazyfree anon and the
# reproducer's shmem among them) and nothing else, patched all ok. Two
# boots, ~1.5 min under TCG.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_kernel stock
need_kernel patched
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip "no /usr/src/linux-source-6.12.tar.xz, whose kselftest build and kunit.py this uses (apt-get install -y --no-install-recommends linux-source-6.12)"
command -v python3 >/dev/null || skip "no python3 for kunit.py (apt-get install -y python3)"
command -v rsync >/dev/null || skip "no rsync, which the kselftest build installs with (apt-get install -y rsync)"
rc=0
"$REPO/kselftest/farm.sh" "$T/farm" stock patched >"$T/log" 2>&1 || rc=$?
cat "$T/log"
for k in stock patched; do
	[ -f "$T/farm/$k.check" ] && { echo "== $k"; cat "$T/farm/$k.check"; }
done
[ $rc = 0 ] || fail "kselftest/farm.sh exited $rc"
s=$(sed -n 's/^kunit.py parsed //p' "$T/farm/stock.check")
p=$(sed -n 's/^kunit.py parsed //p' "$T/farm/patched.check")
# farm.sh held each kernel to its contract; what it found, said again
grep -q '^not ok: data-loss.sh: reclaim memfd ' "$T/farm/stock.check" ||
	fail "stock: reclaim memfd is not not ok"
grep -q '^not ok' "$T/farm/patched.check" && fail "patched: a case is not ok"
grep -q '^FAIL selftests: longpin: data-loss.sh' "$T/farm/stock.check" ||
	fail "stock: the runner did not report data-loss.sh failed"
pass "run_kselftest.sh in the guests, read by kunit.py: stock $s; patched $p"
