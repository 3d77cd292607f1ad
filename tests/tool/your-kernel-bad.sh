#!/usr/bin/env bash
# A kernel a user brings that cannot be one, or cannot run the guest,
# stops before any boot with one line naming why, exit 2
# (docs/your-kernel.md): a file that is not a kernel image (no "HdrS" at
# 0x202), a 32-bit one, a source tree built in place, a directory that is
# no tree, an image whose config lacks what the guest needs; through
# vm/longpin-vm run and check, and ./run.sh --kernels. No boot: seconds.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"

# stop2 WANT CMD...: CMD exits 2 with one line on stderr holding WANT,
# and boots nothing
stop2() {
	local want=$1 rc=0
	shift
	echo "+ $*"
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
	[ "$rc" = 2 ] || fail "$*: exit $rc, want 2"
	[ "$(grep -c . "$T/err")" = 1 ] || fail "$*: $(grep -c . "$T/err") lines on stderr, want one"
	grep -qF -- "$want" "$T/err" || fail "$*: no '$want' in: $(cat "$T/err")"
	grep -q 'starting QEMU' "$T/out" "$T/err" && fail "$*: booted"
	return 0
}

# not a kernel: a text file, an ELF program
stop2 "is not a kernel image: no bzImage header" "$LPVM" run --kernel image:/etc/passwd -- true
stop2 "is not a kernel image: no bzImage header" "$LPVM" check --kernel "image:$(command -v bash)"
stop2 "image:$T/none: no such file" "$LPVM" run --kernel "image:$T/none" -- true
# a 32-bit bzImage header (protocol 2.15, no XLF_KERNEL_64)
head -c 4096 /dev/zero >"$T/bz32"
printf 'HdrS\x0f\x02' | dd of="$T/bz32" bs=1 seek=514 conv=notrunc 2>/dev/null
stop2 "is a 32-bit kernel" "$LPVM" run --kernel "image:$T/bz32" -- true
# a tree configured in place: make O= refuses it, longpin writes nothing
mkdir -p "$T/tree/arch/x86"
echo 'VERSION = 6' >"$T/tree/Makefile"
: >"$T/tree/Kconfig"
: >"$T/tree/.config"
stop2 "was configured or built in place ($T/tree/.config): make O= refuses" "$LPVM" build --kernel "tree:$T/tree"
stop2 "is not a kernel source tree" "$LPVM" run --kernel "tree:$T" -- true
# ./run.sh checks --kernels before it builds or boots anything
stop2 "is not a kernel image" "$REPO/run.sh" --kernels stock,image:/etc/passwd
stop2 "is not a kernel source tree" "$REPO/run.sh" --kernels "tree:$T"
stop2 "--contract 'nope': no contract nope" "$REPO/run.sh" --kernels stock --contract nope
stop2 "--contract 'nope': no such contract" "$LPVM" run --kernel stock --contract nope -- true

# an image whose config lacks what the guest needs (a copy of stock's
# bzImage beside a config without DEVTMPFS and RD_GZIP): the check
# names both, nothing boots
img=$("$LPVM" kernels | awk '$1 == "stock" && $2 == "built" { print $4 }')
if [ -n "$img" ] && [ -f "$(dirname "$img")/config" ]; then
	mkdir -p "$T/img"
	cp "$img" "$T/img/vmlinuz-x"
	grep -vE '^CONFIG_(DEVTMPFS|RD_GZIP)=' "$(dirname "$img")/config" >"$T/img/config"
	rc=0
	"$LPVM" run --kernel "image:$T/img/vmlinuz-x" -- true >"$T/out" 2>"$T/err" || rc=$?
	cat "$T/err"
	[ "$rc" = 2 ] || fail "an image without DEVTMPFS: exit $rc, want 2"
	grep -q 'starting QEMU' "$T/err" && fail "an image without DEVTMPFS booted"
	[ "$(grep -c . "$T/err")" = 1 ] || fail "an image without DEVTMPFS: $(grep -c . "$T/err") lines on stderr, want one"
	for o in DEVTMPFS RD_GZIP; do
		grep -q "cannot run longpin's guest: .*CONFIG_$o" "$T/err" || fail "the line does not name CONFIG_$o"
	done
	pass "not a kernel, 32-bit, built in place, no tree, bad --contract, no DEVTMPFS: one line each, exit 2, no boot"
fi
pass "not a kernel, 32-bit, built in place, no tree, bad --contract: one line each, exit 2, no boot (stock not built: its config check not tried)"
