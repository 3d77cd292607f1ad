#!/usr/bin/env bash
# your-kernel-image.sh [KERNEL]: image:PATH (docs/your-kernel.md) of a
# Debian kernel as longpin-vm fetches it for KERNEL, given as a user has
# it, boots as that kernel does. debian-6.12 (the default): its
# boot/vmlinuz-REL, whose config (boot/config-REL) and modules
# (lib/modules/REL) are found beside it. debian-7.2: Debian's split
# packages, the linux-binary .deb with its linux-modules and linux-base
# .debs beside it (as fetched, <cache>/kernels/debian-7.2/debs/). Either
# way the guest loads the NVDIMM, file system and soft-RoCE modules as
# KERNEL's does, and a small matrix (register on anon, memfd, file-shared,
# fsdax-shared and devdax, every prefault; the rdma pinner on anon, memfd
# and file-shared) matches KERNEL's row for row.
# Cost: two boots of a Debian kernel, ~2 min under TCG (and fetching
# KERNEL the first time).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-debian-6.12}
need_qemu
need_kernel "$K"
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
boot debian "$K"
case $K in
debian-7.2)
	spec=$(find "$CACHE/kernels/$K/debs" -name 'linux-binary-*.deb' 2>/dev/null | head -n1)
	[ -f "$spec" ] || fail "no linux-binary .deb in $CACHE/kernels/$K/debs after fetching $K"
	rel=$(cat "$CACHE/kernels/$K/release")
	label=image-linux-binary-$rel
	config="the package's usr/lib/modules/$rel/config"
	shown="image $spec -> " ;;
*)
	spec=$(find "$CACHE/kernels/$K/root/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1)
	[ -f "$spec" ] || fail "no vmlinuz in $CACHE/kernels/$K/root/boot after fetching $K"
	rel=${spec##*/vmlinuz-}
	label=image-vmlinuz-$rel
	config="$CACHE/kernels/$K/root/boot/config-$rel beside the image"
	shown="image $spec, release $rel" ;;
esac
got=$("$LPVM" kernels --label "image:$spec") || fail "kernels --label image:$spec failed"
[ "$got" = "$label" ] || fail "label '$got', want $label"
boot image "image:$spec"
grep -qF "kernel $label: $shown" "$T/image.err" || fail "the label $label was not printed with its image"
grep -qF "config check of $label ($config)" "$T/image.err" ||
	fail "the config ($config) was not read"
grep -q "modules-$label-" "$T/image.err" || fail "no modules archive for $label in its initramfs"
grep -q '^ok [0-9]* rdma anon$' "$T/image.out" || fail "the rdma pinner did not run (no soft-RoCE: modules-rdma not loaded?)"
rows "$T/debian/m.csv" >"$T/debian.rows"
rows "$T/image/m.csv" >"$T/image.rows"
echo "$label rows:"
cat "$T/image.rows"
diff "$T/debian.rows" "$T/image.rows" >"$T/diff" || { cat "$T/diff"; fail "the image's rows differ from $K's (< $K, > image)"; }
n=$(wc -l <"$T/image.rows")
[ "$n" -ge 24 ] || fail "$n rows, want 24 (5 types x 3 prefaults, rdma 3 x 3)"
pass "$label ($spec with its config and modules): $n rows as $K's"
