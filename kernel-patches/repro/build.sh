#!/bin/sh
# build.sh [OUT]: builds repro.c into OUT (default <cache>/repro/repro),
# static, so that it runs in any guest: vm/longpin-vm run --kernel K
# --add OUT:/repro -- /repro gap|shmem|madvfree. Needs liburing-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${LONGPIN_CACHE:-$HOME/.cache/longpin}/repro/repro}
mkdir -p "$(dirname "$out")"
cc -O2 -Wall -Wextra -Werror -static -o "$out" "$here/repro.c" -luring
echo "$out"
