#!/bin/sh
# build.sh [DIR]: builds fixed-buf-unpin-dirty.c into DIR/fixed-buf-unpin-dirty
# (default DIR: <cache>/repro/, <cache> being $LONGPIN_CACHE or
# ~/.cache/longpin), linked statically so that the one binary runs on this
# machine and in a guest's initramfs:
#   vm/longpin-vm run --kernel K --add DIR/fixed-buf-unpin-dirty:/fixed-buf-unpin-dirty -- /fixed-buf-unpin-dirty
# Prints the binary's path. Needs cc and liburing-dev (its liburing.a).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/fixed-buf-unpin-dirty.c

if [ $# -gt 1 ] || case ${1:-} in -*) true ;; *) false ;; esac; then
	echo "build.sh: takes one argument, the output directory (got: $*); run: build.sh [DIR]" >&2
	exit 2
fi
dir=${1:-${LONGPIN_CACHE:-$HOME/.cache/longpin}/repro}
command -v cc >/dev/null 2>&1 ||
	{ echo "build.sh: no cc; install one: apt-get install -y gcc" >&2; exit 2; }
printf '#include <liburing.h>\n' | cc -E -x c - >/dev/null 2>&1 ||
	{ echo "build.sh: no liburing.h; install it: apt-get install -y liburing-dev" >&2; exit 2; }
mkdir -p "$dir" ||
	{ echo "build.sh: cannot create $dir; give a writable directory: build.sh DIR" >&2; exit 2; }

out=${dir%/}/fixed-buf-unpin-dirty
cc -O2 -Wall -Wextra -Werror -std=gnu11 -static -o "$out" "$src" -luring
echo "$out"
