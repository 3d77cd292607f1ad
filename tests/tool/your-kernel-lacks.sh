#!/usr/bin/env bash
# An image whose config lacks an NVDIMM option runs the rest: a copy of
# stock's bzImage beside a config without CONFIG_LIBNVDIMM stands in for
# a kernel built without it (no NVDIMM is attached, as for one). The
# config check names the option and the NVDIMM types; the guest carries
# on without NVDIMMs and says why; the matrix's anon and memfd rows are
# written and pass, its fsdax-shared and devdax lines skip naming
# CONFIG_LIBNVDIMM, and so do those of lifetime mremap (docs/your-kernel.md).
# One boot of stock, ~30 s under TCG.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
"$LPVM" build --kernel stock >"$T/build" 2>&1 || { cat "$T/build"; fail "building stock failed"; }
img=$("$LPVM" kernels | awk '$1 == "stock" && $2 == "built" { print $4 }')
{ [ -f "$img" ] && [ -f "$(dirname "$img")/config" ]; } || fail "no stock bzImage and config in: $("$LPVM" kernels)"
mkdir -p "$T/img"
cp "$img" "$T/img/vmlinuz-nonv"
grep -v '^CONFIG_LIBNVDIMM=' "$(dirname "$img")/config" >"$T/img/config"
spec=image:$T/img/vmlinuz-nonv
label=$("$LPVM" kernels --label "$spec") || fail "kernels --label $spec failed"
[ "$label" = image-vmlinuz-nonv-6.1.192 ] || [[ $label == image-vmlinuz-nonv-6.1.* ]] ||
	fail "label '$label', want image-vmlinuz-nonv-RELEASE"

rc=0
"$LPVM" run --kernel "$spec" --timeout 600 --out "$T/res" -- sh -c '
	LONGPIN_TYPES=anon,memfd,fsdax-shared,devdax LONGPIN_SIZE=4M \
		sh /opt/longpin/matrix.sh /results/m.csv
	sh /opt/longpin/lifetime.sh /results/l.csv mremap' >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err" "$T/out"
[ $rc = 0 ] || fail "run: exit $rc"
grep -q "config check of $label (.*beside the image): .*missing" "$T/err" || fail "no config check line"
grep -q "CONFIG_LIBNVDIMM: the NVDIMM types skip (fsdax-shared, fsdax-private, devdax, anon+devdax)" "$T/err" ||
	fail "the config check does not name CONFIG_LIBNVDIMM and the NVDIMM types"
grep -q "WARNING-NO-NVDIMM: the kernel lacks CONFIG_LIBNVDIMM" "$T/err" || fail "the guest did not say it runs without NVDIMMs"
for m in fsdax-shared devdax; do
	grep -qE "^ok [0-9]+ $m # SKIP .*: the kernel lacks CONFIG_LIBNVDIMM" "$T/out" || fail "$m: no skip line naming CONFIG_LIBNVDIMM"
done
for m in fsdax-shared devdax; do
	grep -qE "^ok [0-9]+ mremap $m # SKIP .*: the kernel lacks CONFIG_LIBNVDIMM" "$T/out" ||
		fail "lifetime mremap $m: no skip line naming CONFIG_LIBNVDIMM"
done
grep -qE "^ok [0-9]+ mremap anon( |$)" "$T/out" || fail "lifetime mremap anon did not run"
grep -q "^not ok" "$T/out" && fail "a line failed"
rows=$(csv_cols "$T/res/m.csv" memtype prefault verdict contract kernel | sort)
echo "$rows"
for m in anon memfd; do
	[ "$(grep -c "^$m .* pass linux-6.1 " <<<"$rows")" = 3 ] || fail "$m: want three pass rows judged by linux-6.1"
done
# the NVDIMM types' rows are skips, none judged
for m in fsdax-shared devdax; do
	[ "$(grep -c "^$m .* skip linux-6.1 " <<<"$rows")" = 3 ] || fail "$m: want three skip rows"
done
grep -E '^(fsdax|devdax)' <<<"$rows" | grep -qv " skip " && fail "an NVDIMM type has a judged row"
csv_cols "$T/res/m.csv" memtype note | grep -E '^(fsdax|devdax)' | grep -qv "CONFIG_LIBNVDIMM" &&
	fail "an NVDIMM skip row does not name CONFIG_LIBNVDIMM"
pass "$label: CONFIG_LIBNVDIMM named before the boot; anon and memfd pass, fsdax-shared and devdax skip naming it"
