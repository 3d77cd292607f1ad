#!/bin/bash
# run-liburing.sh LIBURING_SRC [TEST_FILE...]: runs fixed-buf-unpin-dirty
# as liburing runs its tests. Copies the liburing source tree LIBURING_SRC
# (e.g. fetch-liburing-src.sh's) to a scratch directory, adds
# fixed-buf-unpin-dirty.c to its test/ and to test/Makefile's test_srcs,
# builds liburing (./configure, make -C src) and the test
# (make -C test fixed-buf-unpin-dirty.t), then runs, in test/,
# `./runtests.sh fixed-buf-unpin-dirty.t`. Each TEST_FILE goes to
# test/config.local's TEST_FILES, so runtests.sh runs the test once more
# with each as argv[1] (the file the O_DIRECT cases read; its first 64 KiB
# are overwritten). Prints runtests.sh's output and exits with its status
# (0 passed or skipped, 1 failed); 2 when nothing could be built. The
# scratch copy is removed unless WORKDIR names where to make it (it is
# then kept, with test/output/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "run-liburing.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "give a liburing source tree: run-liburing.sh LIBURING_SRC [TEST_FILE...]"
src=$1
shift
[ -f "$src/test/runtests.sh" ] && [ -f "$src/test/Makefile" ] && [ -x "$src/configure" ] ||
	die "$src is no liburing source tree (no configure, test/Makefile or test/runtests.sh)"
for f in "$@"; do
	[ -e "$f" ] || die "no test file $f"
done
command -v make >/dev/null || die "no make; install it: apt-get install -y make"

if [ -n "${WORKDIR:-}" ]; then
	work=$WORKDIR
	mkdir -p "$work" || die "cannot create $work"
else
	work=$(mktemp -d) || die "no scratch directory"
	trap 'rm -rf "$work"' EXIT
fi
tree=$work/liburing
rm -rf "$tree"
cp -a "$src/." "$tree" || die "cannot copy $src to $tree"
cp "$here/fixed-buf-unpin-dirty.c" "$tree/test/" || die "cannot copy the test"
# into the list after fixed-buf-iter.c, else first
if grep -q '^[[:space:]]*fixed-buf-iter\.c \\$' "$tree/test/Makefile"; then
	sed -i 's/^\([[:space:]]*\)fixed-buf-iter\.c \\$/&\n\1fixed-buf-unpin-dirty.c \\/' \
		"$tree/test/Makefile"
else
	sed -i 's/^test_srcs := \\$/&\n\tfixed-buf-unpin-dirty.c \\/' "$tree/test/Makefile"
fi
grep -q 'fixed-buf-unpin-dirty\.c' "$tree/test/Makefile" ||
	die "could not add the test to test_srcs of $tree/test/Makefile"

log=$work/build.log
jobs=$(nproc 2>/dev/null || echo 2)
echo "+ ./configure && make -C src && make -C test fixed-buf-unpin-dirty.t (in $tree)"
if ! (cd "$tree" && ./configure && make -j"$jobs" -C src &&
	make -C test fixed-buf-unpin-dirty.t) >"$log" 2>&1; then
	tail -n 30 "$log"
	die "building liburing or the test failed; the end of $log is above"
fi
if [ $# -gt 0 ]; then
	printf 'TEST_FILES="%s"\n' "$*" >"$tree/test/config.local"
	echo "+ test/config.local: TEST_FILES=\"$*\""
fi

echo "+ cd test && ./runtests.sh fixed-buf-unpin-dirty.t"
cd "$tree/test" || die "no $tree/test"
rc=0
./runtests.sh fixed-buf-unpin-dirty.t || rc=$?
echo "runtests.sh: exit $rc"
exit $rc
