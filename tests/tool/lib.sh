# shellcheck shell=bash
# Common helpers for the vm/ tests.  Exit codes: 0 pass, 1 fail, 77 skip.
set -uo pipefail
VMDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../vm" && pwd)
# shellcheck disable=SC2034 # used by the tests that source this file
LPVM=$VMDIR/longpin-vm
CACHE=${LONGPIN_CACHE:-$HOME/.cache/longpin}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "PASS: $*"; exit 0; }
need_qemu() {
	command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (apt-get install -y qemu-system-x86)"
}
need_kernel() { # name
	"$LPVM" kernels --names | grep -qxF -- "$1" || fail "unknown kernel '$1'"
	case $1 in
	stock | patched*)
		[[ -f /usr/src/linux-source-6.1.tar.xz ]] || skip "no /usr/src/linux-source-6.1.tar.xz (apt-get install -y linux-source-6.1)" ;;
	debian-*)
		command -v apt-get >/dev/null || skip "no apt-get to fetch $1" ;;
	esac
}
# temp files of the tests live under the cache, removed on exit
TT=$(mkdir -p "$CACHE/tmp" && mktemp -d "$CACHE/tmp/test.XXXXXX")
trap 'rm -rf "$TT"' EXIT
