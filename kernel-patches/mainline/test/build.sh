#!/bin/sh
# build.sh [DIR [LIBURING_SRC]]: builds fixed-buf-unpin-dirty.c into
# DIR/fixed-buf-unpin-dirty (default DIR: <cache>/repro/, <cache> being
# $LONGPIN_CACHE or ~/.cache/longpin), against the installed liburing-dev,
# linked statically so that the one binary runs on this machine and in a
# guest's initramfs:
#   vm/longpin-vm run --kernel K --add DIR/fixed-buf-unpin-dirty:/fixed-buf-unpin-dirty -- /fixed-buf-unpin-dirty
# The test uses liburing's test helpers (test/helpers.c, test/helpers.h),
# taken from a liburing source tree: LIBURING_SRC (the argument, else the
# environment variable), else <cache>/liburing-src/liburing-<version of
# the installed liburing-dev>, where fetch-liburing-src.sh unpacks
# Debian's source. Prints the binary's path. Needs cc and liburing-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/fixed-buf-unpin-dirty.c
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}

if [ $# -gt 2 ] || case ${1:-}${2:-} in -*) true ;; *) false ;; esac; then
	echo "build.sh: takes the output directory and a liburing source tree (got: $*); run: build.sh [DIR [LIBURING_SRC]]" >&2
	exit 2
fi
dir=${1:-$cache/repro}
command -v cc >/dev/null 2>&1 ||
	{ echo "build.sh: no cc; install one: apt-get install -y gcc" >&2; exit 2; }
printf '#include <liburing.h>\n' | cc -E -x c - >/dev/null 2>&1 ||
	{ echo "build.sh: no liburing.h; install it: apt-get install -y liburing-dev" >&2; exit 2; }

# the installed liburing-dev's upstream version (2.3 of 2.3-3)
have=$(dpkg-query -W -f '${Version}' liburing-dev 2>/dev/null || true)
have=${have#*:}
have=${have%-*}
[ -n "$have" ] || have=$(pkg-config --modversion liburing 2>/dev/null || true)

lsrc=${2:-${LIBURING_SRC:-}}
[ -n "$lsrc" ] || lsrc=$cache/liburing-src/liburing-${have:-unknown}
if [ ! -f "$lsrc/test/helpers.c" ] || [ ! -f "$lsrc/test/helpers.h" ]; then
	echo "build.sh: no test/helpers.c and test/helpers.h in $lsrc; give a liburing source tree (LIBURING_SRC=DIR or build.sh DIR LIBURING_SRC), or unpack Debian's: $here/fetch-liburing-src.sh" >&2
	exit 2
fi
# helpers of another release may call what the installed liburing.h lacks
want=$(sed -n 's/^Version:[[:space:]]*//p' "$lsrc/liburing.spec" 2>/dev/null || true)
[ -z "$have" ] || [ -z "$want" ] || [ "$have" = "$want" ] ||
	echo "build.sh: note: the helpers are liburing $want's, the installed liburing-dev is $have" >&2

mkdir -p "$dir" ||
	{ echo "build.sh: cannot create $dir; give a writable directory: build.sh DIR" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# helpers.c with liburing's own test flags (test/Makefile), the test
# with -Werror; "helpers.h" from the tree, <liburing.h> the installed one
cc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-D_GNU_SOURCE -std=gnu11 -c -o "$tmp/helpers.o" "$lsrc/test/helpers.c"
out=${dir%/}/fixed-buf-unpin-dirty
cc -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -std=gnu11 \
	-iquote "$lsrc/test" -static -o "$out" "$src" "$tmp/helpers.o" -luring
echo "$out"
