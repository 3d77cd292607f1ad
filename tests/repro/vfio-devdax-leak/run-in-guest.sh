#!/usr/bin/env bash
# run-in-guest.sh KERNEL: build vfio-devdax-leak (static), run it in a
# guest of KERNEL booted with longpin-vm run --vfio (q35, intel-iommu, edu
# bound to vfio-pci) on the guest's devdax namespace, and check what
# README.md says: upstream kernels keep every pin of a devdax page after
# VFIO_IOMMU_UNMAP_DMA (acquired 512, released 0 for 2 MiB), the patched
# kernels (kernel-patches/*-vfio/0001 "vfio/type1: unpin the device-dax
# pages it pinned") release them all.
# The anonymous half balances on every kernel. A kernel that does other
# than its line here fails with the numbers seen.
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../../lib.sh
. "$(dirname "$0")/../../lib.sh"
K=${1:-stock}
dir=$(cd "$(dirname "$0")" && pwd)

case $K in
stock | stock-6.12 | stock-7.2 | debian-6.1 | debian-6.12 | debian-7.2) want="released 0 (leak)" ;;
patched | patched-6.12 | patched-7.2) want="released 512" ;;
*) fail "no expectation for kernel '$K'" ;;
esac
need_qemu
need_kernel "$K"
command -v cc >/dev/null || skip "no C compiler (apt-get install -y gcc)"
cc -O2 -Wall -static -o "$T/vfio-devdax-leak" "$dir/vfio-devdax-leak.c" 2>"$T/cc.err" ||
	skip "cannot build vfio-devdax-leak static: $(head -n1 "$T/cc.err") (apt-get install -y libc6-dev)"

rc=0
"$LPVM" run --kernel "$K" --vfio --timeout 600 \
	--add "$T/vfio-devdax-leak:/opt/vfio-devdax-leak" -- \
	sh -c '/opt/vfio-devdax-leak "$LONGPIN_DEVDAX"; echo "REPRO-EXIT $?"' >"$T/out" 2>"$T/err" || rc=$?
cat "$T/out" "$T/err"
[ "$rc" = 0 ] || fail "guest run exited $rc"
code=$(sed -n 's/^REPRO-EXIT //p' "$T/out")
[ "$code" = 77 ] && fail "$K: $(grep -m1 '^SKIP' "$T/out") (run --vfio gives every kernel a vfio device and a devdax namespace)"
grep -q '^anon: 512 pages mapped and unmapped: nr_foll_pin acquired 512, released 512$' "$T/out" ||
	fail "$K: the anonymous half does not balance"
line=$(grep '^devdax: ' "$T/out")
case $line in
*"acquired 512, $want") ;;
*) fail "$K: '$line', want acquired 512, $want" ;;
esac
case $want in
*leak*) [ "$code" = 1 ] || fail "exit $code with a leak, want 1" ;;
*) [ "$code" = 0 ] || fail "exit $code without a leak, want 0" ;;
esac
pass "$K: $line"
