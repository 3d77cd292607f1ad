#!/bin/bash
# Runs longpin's tests: installs what they need (as root), builds with
# -Werror, builds the kernels the tests boot, runs ctest (labels host, vm,
# tool). ./test.sh runs every test but those labelled "full" (the debug
# and 6.12 kernels' tests, whose three kernels it would otherwise build);
# ./test.sh --full builds every kernel and runs them all. Other args go to
# ctest, e.g. ./test.sh -L host  or  ./test.sh -R badinput
set -euo pipefail
cd "$(dirname "$0")"
full=0
if [ "${1:-}" = --full ]; then
	full=1
	shift
fi
# shellcheck source-path=SCRIPTDIR # the cd above made it the directory
. scripts/deps.sh
need_packages "${HARNESS_PACKAGES[@]}" "${KSELFTEST_PACKAGES[@]}"
need_liburing_src
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
# The vm tests need their kernels: build them first (cached after the
# first time; it also installs QEMU and the build dependencies).
case " $* " in
*" -L host "*|*" -LE vm "*) ;;
*)
	if [ $full = 1 ]; then
		vm/longpin-vm build --kernel all
	else
		vm/longpin-vm build --kernel stock
		vm/longpin-vm build --kernel patched
	fi ;;
esac
cd build
if [ $full = 1 ]; then
	exec ctest --output-on-failure -j2 "$@"
fi
exec ctest --output-on-failure -j2 -LE full "$@"
