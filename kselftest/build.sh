#!/bin/bash
# build.sh [INSTALL_PATH | --kunit]: builds the longpin kselftest tree with the
# kernel's own kselftest build, as a test farm does: takes the selftests of
# Debian's linux-source-6.12 (LONGPIN_KSFT_TARBALL, default
# /usr/src/linux-source-6.12.tar.xz), unpacked once into the cache
# (<cache>/kselftest/<tarball>-<key>/: tools/testing/selftests, the
# scripts/subarch.include its Makefile reads and tools/testing/kunit, the
# KTAP parser), writes the target into tools/testing/selftests/longpin
# (export.sh), then runs
#   make -C tools/testing/selftests TARGETS=longpin install INSTALL_PATH=...
# INSTALL_PATH (default <cache>/kselftest/install) is replaced; it holds
# run_kselftest.sh, kselftest/ and longpin/. Prints INSTALL_PATH;
# <cache>/kselftest/tree names the unpacked tree. --kunit: unpacks and
# prints the directory of kunit.py, builds nothing.
# <cache> is $LONGPIN_CACHE or ~/.cache/longpin. Needs the packages of
# KSELFTEST_PACKAGES (scripts/deps.sh; root installs them) and, once,
# the network for Debian's liburing source (fetch-liburing-src.sh).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
tarball=${LONGPIN_KSFT_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
say() { echo "[$(date +%T)] kselftest: $*" >&2; }
die() { echo "build.sh: $*" >&2; exit 2; }

[ $# -le 1 ] || die "takes one argument, the install path or --kunit (got: $*)"
kunit_only=0
[ "${1:-}" = --kunit ] && kunit_only=1 && shift
inst=${1:-$cache/kselftest/install}
case $inst in
/*) ;;
*) inst=$(pwd)/$inst ;;
esac
# shellcheck source=../scripts/deps.sh
. "$repo/scripts/deps.sh"
need_packages "${KSELFTEST_PACKAGES[@]}" >&2
[ -f "$tarball" ] || die "no $tarball; install it: apt-get install -y linux-source-6.12"

# the unpacked selftests, once per tarball (name, size, mtime)
mkdir -p "$cache/kselftest"
top=$(basename "$tarball" .tar.xz)
key=$(stat -c '%n %s %Y' "$tarball" | sha256sum | cut -c1-16)
tree=$cache/kselftest/$top-$key
exec 9>"$cache/kselftest/.lock"
flock 9
if [ ! -f "$tree/.unpacked" ]; then
	say "unpacking tools/testing/selftests of $tarball into $tree"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1 \
		"$top/tools/testing/selftests" "$top/tools/testing/kunit" \
		"$top/scripts/subarch.include"
	mv "$tree.tmp" "$tree"
	: >"$tree/.unpacked"
fi
ksft=$tree/tools/testing/selftests
# where the tree is, for farm.sh (kunit.py)
echo "$tree" >"$cache/kselftest/tree"
if [ $kunit_only = 1 ]; then
	echo "$tree/tools/testing/kunit"
	exit 0
fi
lsrc=$("$repo/kernel-patches/mainline/test/fetch-liburing-src.sh" 2>/dev/null) ||
	die "no liburing source (its test helpers); run kernel-patches/mainline/test/fetch-liburing-src.sh to see why"
"$repo/kselftest/export.sh" "$ksft/longpin" "$lsrc" >/dev/null
rm -rf "$inst"
log=$cache/kselftest/build.log
say "make -C $ksft TARGETS=longpin install INSTALL_PATH=$inst (log $log)"
if ! make -C "$ksft" TARGETS=longpin LONGPIN_WERROR=1 FORCE_TARGETS=1 \
	install INSTALL_PATH="$inst" >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "the kselftest build failed; its log: $log"
fi
[ -x "$inst/longpin/longpin" ] && [ -x "$inst/run_kselftest.sh" ] ||
	die "no $inst/longpin/longpin or run_kselftest.sh after the install; log: $log"
echo "$inst"
