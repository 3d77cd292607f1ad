#!/usr/bin/env bash
# fio and its libraries are in the guest only with `run --fio`: the other
# boots unpack a smaller initramfs.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
"$LPVM" run --kernel stock --timeout 300 -- sh -c 'command -v fio || echo "NO FIO"' >"$T/out1" 2>"$T/err1" ||
	{ cat "$T/out1" "$T/err1"; fail "boot without --fio failed"; }
"$LPVM" run --kernel stock --timeout 300 --fio -- fio --version >"$T/out2" 2>"$T/err2" ||
	{ cat "$T/out2" "$T/err2"; fail "boot with --fio failed"; }
cat "$T/out1" "$T/out2"
grep -q 'NO FIO' "$T/out1" || fail "fio in a guest booted without --fio"
grep -q '^fio-' "$T/out2" || fail "no fio --version with --fio"
s1=$(sed -n 's/.*initramfs: \([0-9.]*[KMG]\) .*/\1/p' "$T/err1") s2=$(sed -n 's/.*initramfs: \([0-9.]*[KMG]\) .*/\1/p' "$T/err2")
grep -q 'fio-.*cpio.gz' "$T/err2" || fail "the --fio boot does not name the fio layer"
pass "fio only with --fio (initramfs $s1 without, $s2 with)"
