#!/usr/bin/env bash
# image:PATH (docs/your-kernel.md): Debian's 6.12 image as longpin-vm
# fetches it for debian-6.12 (<cache>/kernels/debian-6.12/root/boot/
# vmlinuz-REL), given as a user's image: its config (boot/config-REL) and
# modules (root/lib/modules/REL) are found beside it, so the guest loads
# the NVDIMM, file system and soft-RoCE modules as debian-6.12's does,
# and a small matrix (register on anon, memfd, file-shared, fsdax-shared
# and devdax, every prefault; the rdma pinner on anon, memfd and
# file-shared) matches debian-6.12's row for row.
# Cost: two boots of a Debian kernel, ~2 min under TCG (and fetching
# debian-6.12 the first time).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel debian-6.12
SMALL='LONGPIN_TYPES=anon,memfd,file-shared,fsdax-shared,devdax LONGPIN_SIZE=4M sh /opt/longpin/matrix.sh /results/m.csv
LONGPIN_TYPES=anon,memfd,file-shared LONGPIN_SIZE=4M LONGPIN_ARGS="--pinner rdma" LONGPIN_LABEL="rdma " sh /opt/longpin/matrix.sh /results/m.csv'
rows() {
	csv_cols "$1" pinner op memtype prefault fs_type result errno expected verdict contract kernel data_check vmpin_leak_kb | sort
}
boot() { # NAME SPEC
	local rc=0
	echo "+ longpin-vm run --kernel $2"
	"$LPVM" run --kernel "$2" --timeout 1800 --out "$T/$1" -- sh -c "$SMALL" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	cat "$T/$1.err" "$T/$1.out"
	[ $rc = 0 ] || fail "run --kernel $2: exit $rc"
	[ -s "$T/$1/m.csv" ] || fail "run --kernel $2: no rows"
}
boot debian debian-6.12
img=$(find "$CACHE/kernels/debian-6.12/root/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1)
[ -f "$img" ] || fail "no vmlinuz in $CACHE/kernels/debian-6.12/root/boot after fetching debian-6.12"
rel=${img##*/vmlinuz-}
label=$("$LPVM" kernels --label "image:$img") || fail "kernels --label image:$img failed"
[ "$label" = "image-vmlinuz-$rel" ] || fail "label '$label', want image-vmlinuz-$rel"
boot image "image:$img"
grep -qF "kernel $label: image $img, release $rel" "$T/image.err" || fail "the label $label was not printed"
grep -qF "config check of $label ($CACHE/kernels/debian-6.12/root/boot/config-$rel beside the image)" "$T/image.err" ||
	fail "the config beside the image was not read"
grep -q "modules-$label-" "$T/image.err" || fail "no modules archive for $label in its initramfs"
grep -q '^ok [0-9]* rdma anon$' "$T/image.out" || fail "the rdma pinner did not run (no soft-RoCE: modules-rdma not loaded?)"
rows "$T/debian/m.csv" >"$T/debian.rows"
rows "$T/image/m.csv" >"$T/image.rows"
echo "$label rows:"
cat "$T/image.rows"
diff "$T/debian.rows" "$T/image.rows" >"$T/diff" || { cat "$T/diff"; fail "the image's rows differ from debian-6.12's (< debian-6.12, > image)"; }
n=$(wc -l <"$T/image.rows")
[ "$n" -ge 24 ] || fail "$n rows, want 24 (5 types x 3 prefaults, rdma 3 x 3)"
pass "$label ($img with its config and modules): $n rows as debian-6.12's"
