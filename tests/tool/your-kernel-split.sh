#!/usr/bin/env bash
# image: of a Debian kernel split into packages, as Debian ships 6.17 and
# later (linux-binary-REL: usr/lib/modules/REL/vmlinuz; linux-modules-REL;
# linux-base-REL: the config; linux-image-REL only depends on them), and
# of a vmlinuz in that layout (Debian, Fedora, Arch), with and without a
# config beside it (docs/your-kernel.md). Packages made here around a
# copy of stock's bzImage (its release theirs), a config and a module
# file (not ELF: depmod lists it all the same): what
# `longpin-vm check` finds of them, without a boot. Seconds.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v dpkg-deb >/dev/null || skip "no dpkg-deb to make packages with"
img=$("$LPVM" kernels | awk '$1 == "stock" && $2 == "built" { print $4 }')
[ -n "$img" ] || skip "stock is not built (vm/longpin-vm build --kernel stock): its bzImage is the image here"
# the release the image says of itself (in its header), as a real
# package's directory names it
rel=$(cat "$(dirname "$img")/release")
v=$rel-1

# pkg NAME DIR [DEPENDS]: DIR/root packed as NAME_v_amd64.deb into DIR
pkg() {
	local name=$1 dir=$2 dep=${3:-}
	mkdir -p "$dir/root/DEBIAN"
	{
		echo "Package: $name"
		echo "Version: $v"
		echo "Architecture: amd64"
		echo "Maintainer: longpin test <test@example.org>"
		[ -z "$dep" ] || echo "Depends: $dep"
		echo "Description: a package longpin's test made"
	} >"$dir/root/DEBIAN/control"
	dpkg-deb -Zgzip --root-owner-group --build "$dir/root" "$dir/${name}_${v}_amd64.deb" >/dev/null ||
		fail "dpkg-deb --build $name"
	rm -rf "$dir/root"
}
mods=usr/lib/modules/$rel
# the config: stock's, ext4 as a module (the module package has it), no xfs
grep -vE '^CONFIG_(EXT4_FS|XFS_FS)=' "$(dirname "$img")/config" >"$T/config"
echo CONFIG_EXT4_FS=m >>"$T/config"
D=$T/debs
mkdir -p "$D/b/root/$mods" "$D/m/root/$mods/kernel/fs/ext4" "$D/s/root/$mods" "$D/i/root"
cp "$img" "$D/b/root/$mods/vmlinuz"
echo 'not ELF: depmod lists it all the same' >"$D/m/root/$mods/kernel/fs/ext4/ext4.ko"
cp "$T/config" "$D/s/root/$mods/config"
pkg "linux-binary-$rel" "$D/b" "linux-base-$rel (= $v)"
pkg "linux-modules-$rel" "$D/m" "linux-base-$rel (= $v)"
pkg "linux-base-$rel" "$D/s"
pkg "linux-image-$rel" "$D/i" "linux-binary-$rel (= $v), linux-modules-$rel (= $v)"
mkdir -p "$T/split"
mv "$D"/*/*.deb "$T/split/"
bin=$T/split/linux-binary-${rel}_${v}_amd64.deb
label=image-linux-binary-$rel

# ok WHAT SPEC: check exits 0, reads the config named, finds the module
# (ext4 is not missing) and says what xfs costs
ok() {
	local what=$1 spec=$2 from=$3 rc=0
	echo "+ longpin-vm check --kernel $spec"
	"$LPVM" check --kernel "$spec" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
	[ "$rc" = 0 ] || fail "$what: exit $rc"
	grep -q 'unbound variable\|line [0-9]*:' "$T/err" && fail "$what: a shell error"
	grep -qF "($from)" "$T/err" || fail "$what: the config is not read from $from"
	grep -q 'EXT4_FS' "$T/err" && fail "$what: ext4's module was not found"
	grep -q 'CONFIG_XFS_FS: the xfs rows' "$T/err" || fail "$what: the missing xfs is not reported"
	return 0
}
# stop2 WANT SPEC: check exits 2 with one line holding WANT
stop2() {
	local want=$1 rc=0
	echo "+ longpin-vm check --kernel $2"
	"$LPVM" check --kernel "$2" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
	[ "$rc" = 2 ] || fail "$2: exit $rc, want 2"
	[ "$(grep -c . "$T/err")" = 1 ] || fail "$2: $(grep -c . "$T/err") lines on stderr, want one"
	grep -qF -- "$want" "$T/err" || fail "$2: no '$want' in: $(cat "$T/err")"
}

# the binary package, its modules and base beside it
ok "linux-binary with its packages beside it" "image:$bin" "the package's $mods/config"
grep -qF "kernel $label: " "$T/err" || fail "not labelled $label"
# the linux-image package, which only depends on them
ok "linux-image (only Depends:) with the packages beside it" "image:$T/split/linux-image-${rel}_${v}_amd64.deb" "the package's $mods/config"
grep -qF "kernel $label: " "$T/err" || fail "linux-image: not labelled $label (the binary's package)"
# all three named, from three directories
mkdir -p "$T/a" "$T/b" "$T/c"
cp "$bin" "$T/a/"
cp "$T/split/linux-modules-"*.deb "$T/b/"
cp "$T/split/linux-base-"*.deb "$T/c/"
ok "the three named" "image:$T/a/$(basename "$bin"):$(echo "$T"/b/*.deb):$(echo "$T"/c/*.deb)" "the package's $mods/config"
# the binary alone: its modules are missing, named with the fix
stop2 "no linux-modules-$rel package is beside it in $T/a" "image:$T/a/$(basename "$bin")"
stop2 "is not a .deb file" "image:$bin:/etc/passwd"
# packages that hold no kernel
mkdir -p "$D/h/root/usr/src"
pkg "linux-headers-$rel" "$D/h"
stop2 "is the package linux-headers-$rel: give the kernel's linux-image or linux-binary one" "image:$D/h/linux-headers-${rel}_${v}_amd64.deb"

# the usr/lib/modules/REL/vmlinuz layout, unpacked: config and modules
# beside the image
mkdir -p "$T/root"
for f in "$T/split/"linux-{binary,modules,base}-*.deb; do dpkg-deb -x "$f" "$T/root"; done
ok "usr/lib/modules/REL/vmlinuz with config and modules beside it" "image:$T/root/$mods/vmlinuz" "$T/root/$mods/config beside the image"
# the same image with no config at all: checked for nothing, said so
mkdir -p "$T/bare/$mods"
cp "$img" "$T/bare/$mods/vmlinuz"
rc=0
"$LPVM" check --kernel "image:$T/bare/$mods/vmlinuz" >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
[ "$rc" = 0 ] || fail "an image with no config: exit $rc"
grep -q 'unbound variable\|line [0-9]*:' "$T/err" && fail "an image with no config: a shell error"
grep -q "config check of .*: no config" "$T/err" || fail "an image with no config: the check does not say it checked nothing"
pass "split packages (binary or image with the others beside them, or three named), the usr/lib/modules layout with and without a config: found and checked; a binary without its modules, a non-package and linux-headers refused in one line"
