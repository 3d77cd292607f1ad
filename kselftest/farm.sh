#!/bin/bash
# farm.sh [OUT [KERNEL...]]: the longpin kselftest as a test farm runs it,
# in guests of longpin's kernels (default: stock and patched). Builds and
# installs the kselftest tree with the kernel's own kselftest build
# (build.sh), copies it into each guest as /opt/kselftest (vm/longpin-vm
# run --add), runs run_kselftest.sh there, keeps what it printed in
# OUT/KERNEL.ktap (OUT default: <cache>/kselftest/farm) and checks it with
# kunit.py parse from the same kernel source (ktap_check.py): every line
# parses, and the kernel's contract decides what may fail. A contract that
# names the data loss of an unpin (lifetime reclaim/lazyfree rows marked
# defect: stock) must show it, and only it, as not ok: reclaim memfd,
# lazyfree anon, fixed-buf-unpin-dirty shmem among them; any other kernel
# (patched) must pass every case (skips with their reasons allowed).
# Prints each kernel's summary; exit 0 when every check held, 1 when one
# failed, 2 when nothing could run.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
out=${1:-$cache/kselftest/farm}
shift $(($# > 0 ? 1 : 0))
[ $# -gt 0 ] || set -- stock patched
say() { echo "[$(date +%T)] kselftest farm: $*" >&2; }

inst=$("$repo/kselftest/build.sh") || exit 2
kunit=$(cat "$cache/kselftest/tree")/tools/testing/kunit
mkdir -p "$out" || exit 2
# run_kselftest.sh's needs in the guest (busybox sh): /dev/stdout, which the
# runner reopens for its log and the guest's devtmpfs lacks; coreutils'
# timeout, without which the runner enforces no timeout (busybox's lacks
# --foreground); perl and stdbuf are optional (sed prefixes the lines)
guest='[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
cd /opt/kselftest && ./run_kselftest.sh'
bad=0
for k in "$@"; do
	contract=$("$repo/vm/longpin-vm" kernels --contract "$k") || exit 2
	say "$k (contract $contract): run_kselftest.sh in its guest"
	rc=0
	"$repo/vm/longpin-vm" run --kernel "$k" --timeout 1200 \
		--add "$inst:/opt/kselftest" --add /usr/bin/timeout:/usr/bin/timeout \
		-- sh -c "$guest" >"$out/$k.ktap" 2>"$out/$k.log" || rc=$?
	if [ $rc != 0 ]; then
		tail -n 5 "$out/$k.log" >&2
		say "$k: longpin-vm exited $rc (log $out/$k.log)"
		bad=1
		continue
	fi
	set --
	if grep -q '^lifetime \(reclaim\|reclaim-pinned\|lazyfree\) .*defect' \
		"$repo/harness/contracts/$contract.contract" 2>/dev/null; then
		set -- --not-ok '^(reclaim|reclaim-pinned|lazyfree|fixed-buf-unpin-dirty) ' \
			--want-not-ok 'reclaim memfd' --want-not-ok 'lazyfree anon' \
			--want-not-ok 'fixed-buf-unpin-dirty shmem'
	fi
	if python3 "$repo/kselftest/ktap_check.py" --kunit "$kunit" kselftest \
		"$out/$k.ktap" "$@" >"$out/$k.check"; then
		say "$k: $(grep '^kunit.py parsed' "$out/$k.check")"
	else
		grep -v '^\(PASS\|FAIL\|SKIP\) ' "$out/$k.check" >&2
		say "$k: the check failed ($out/$k.check)"
		bad=1
	fi
done
exit $bad
