#!/usr/bin/env bash
# Boot KERNEL (default stock) and check: fsdax and devdax namespaces exist, the
# two -o dax mounts really are DAX (statx STATX_ATTR_DAX), the other mounts and
# devices are there, and "boot to first result" is printed.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
# shellcheck disable=SC2016
"$LPVM" run --kernel "$K" --timeout 600 -- sh -c '
ndctl list -N
for m in "$LONGPIN_DAX_EXT4" "$LONGPIN_DAX_XFS" "$LONGPIN_EXT4" "$LONGPIN_XFS"; do
	: >"$m/daxcheck"
	echo "ATTR $m $(xfs_io -c "statx -r" "$m/daxcheck" | sed -n "s/^stat.attributes = //p")"
done
for d in "$LONGPIN_DEVDAX" "$LONGPIN_PMEM" "$LONGPIN_NULLBLK"; do [ -e "$d" ] && echo "DEV ok $d" || echo "DEV missing $d"; done
grep -q " $LONGPIN_TMPFS_DIR tmpfs " /proc/mounts && echo "MNT ok tmpfs"
grep -q " $LONGPIN_HUGETLBFS hugetlbfs " /proc/mounts && echo "MNT ok hugetlbfs"
echo "KERNEL $LONGPIN_KERNEL"
' >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
cat "$T/err"
((rc == 0)) || fail "longpin-vm run exited $rc"
grep -q '"mode":"fsdax"' "$T/out" || fail "no fsdax namespace in ndctl list -N"
grep -q '"mode":"devdax"' "$T/out" || fail "no devdax namespace in ndctl list -N"
check_attr() { # mount want(0|1)
	local a
	a=$(awk -v m="$1" '$1 == "ATTR" && $2 == m {print $3}' "$T/out")
	[[ -n $a ]] || fail "no statx attributes for $1"
	if (($2)); then (((a & 0x200000) != 0)) || fail "$1 is not DAX (statx attributes $a)"
	else (((a & 0x200000) == 0)) || fail "$1 is DAX but should not be (statx attributes $a)"; fi
}
check_attr /mnt/dax-ext4 1
check_attr /mnt/dax-xfs 1
check_attr /mnt/ext4 0
check_attr /mnt/xfs 0
grep -q 'DEV missing' "$T/out" && fail "$(grep 'DEV missing' "$T/out")"
grep -q 'MNT ok tmpfs' "$T/out" || fail "no tmpfs mount"
grep -q 'MNT ok hugetlbfs' "$T/out" || fail "no hugetlbfs mount"
grep -q "KERNEL $K" "$T/out" || fail "LONGPIN_KERNEL is not $K"
grep -qE 'boot to first result: [0-9]+\.[0-9] s' "$T/err" || fail "no 'boot to first result' line"
pass "$K: fsdax + devdax namespaces, DAX on ext4 and xfs, $(grep -oE 'boot to first result: [0-9.]+ s' "$T/err")"
