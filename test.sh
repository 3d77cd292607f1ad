#!/bin/bash
# Runs all of longpin's tests: installs what they need (as root), builds
# with -Werror, runs ctest (labels host and vm). Extra args go to ctest,
# e.g. ./test.sh -L host  or  ./test.sh -R badinput
set -euo pipefail
cd "$(dirname "$0")"
. scripts/deps.sh
need_packages "${HARNESS_PACKAGES[@]}"
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
# The vm tests need the stock and patched kernels: build them first (cached
# after the first time; it also installs QEMU and the build dependencies).
case " $* " in
*" -L host "*|*" -LE vm "*) ;;
*) vm/longpin-vm build --kernel all ;;
esac
cd build
exec ctest --output-on-failure -j2 "$@"
