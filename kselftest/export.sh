#!/bin/sh
# export.sh DEST [LIBURING_SRC]: writes the longpin kselftest target to DEST
# (a kernel tree's tools/testing/selftests/longpin), whole: the files of
# kselftest/longpin/ and, in DEST/src/, what it builds from: harness/, the
# contracts and kernel-report headlines embedded as C by cmake/embed.cmake
# (the command CMake runs for its own build, so both binaries carry the
# same tables), kernel-patches/mainline's fixed-buf-unpin-dirty.c and
# liburing's test helpers (test/helpers.c, helpers.h) from LIBURING_SRC
# (default: where fetch-liburing-src.sh unpacks the installed release).
# The kernel tree's build then needs make, a C compiler, rsync and
# liburing-dev, no cmake. A DEST that exists is replaced. Prints DEST.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
die() { echo "export.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] && [ $# -le 2 ] || die "give the target's directory: export.sh DEST [LIBURING_SRC]"
dest=$1
case $dest in
/*) ;;
*) dest=$(pwd)/$dest ;;
esac
if [ $# = 2 ]; then
	lsrc=$2
else
	have=$(dpkg-query -W -f '${Version}' liburing-dev 2>/dev/null || true)
	have=${have#*:}
	lsrc=${LIBURING_SRC:-$cache/liburing-src/liburing-${have%-*}}
fi
[ -f "$lsrc/test/helpers.c" ] && [ -f "$lsrc/test/helpers.h" ] ||
	die "no test/helpers.c and helpers.h in $lsrc: give a liburing source tree, or unpack Debian's: kernel-patches/mainline/test/fetch-liburing-src.sh"
command -v cmake >/dev/null || die "no cmake (it writes the contracts as C); install it: apt-get install -y cmake"

rm -rf "$dest"
mkdir -p "$dest/src/gen" "$dest/src/liburing"
cp "$repo"/kselftest/longpin/Makefile "$repo"/kselftest/longpin/settings \
	"$repo"/kselftest/longpin/config "$repo"/kselftest/longpin/*.sh "$dest/"
cp -R "$repo/harness" "$dest/src/"
cp "$repo/kernel-patches/mainline/test/fixed-buf-unpin-dirty.c" "$dest/src/"
cp "$lsrc/test/helpers.c" "$lsrc/test/helpers.h" "$dest/src/liburing/"
# the file lists as CMakeLists.txt globs them
contracts=$(find "$repo/harness/contracts" -maxdepth 1 \( -name '*.contract' -o -name '*.inc' \) | LC_ALL=C sort | tr '\n' ';')
cmake -DOUT="$dest/src/gen/contracts_data.c" "-DFILES=${contracts%;}" \
	-P "$repo/cmake/embed.cmake"
cmake -DOUT="$dest/src/gen/reports_data.c" "-DFILES=$repo/harness/kernel-reports.list" \
	-DVAR=lp_reports -P "$repo/cmake/embed.cmake"
# where it came from, for a farm's records
{
	echo "longpin $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "liburing test helpers from $lsrc"
} >"$dest/src/ORIGIN"
echo "$dest"
