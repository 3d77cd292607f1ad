#!/bin/sh
# bench.sh OUT.csv: the registration benchmarks of the kernel-patches issue,
# run inside one kernel; compare two kernels' OUT.csv with longpin-compare.
#  1. registration cost of written anon 4 KiB pages, 4 MiB to 512 MiB
#     (LONGPIN_BENCH_SIZES), each size registered 1 + CYCLES times;
#  2. mmap_lock stall: 64 MiB anon registered and unregistered CYCLES
#     times while a second thread loops mmap+munmap of one page;
#  3. a refused 64 MiB file-shared registration (needs LONGPIN_FILE_DIR),
#     for prefault write (nothing left to fault) and none.
# Rows go to OUT.csv (CSV schema 1, op "register", --no-io).
set -u
out=${1:?usage: bench.sh OUT.csv}
bin=${LONGPIN:-longpin}
cycles=${LONGPIN_BENCH_CYCLES:-5}
sizes=${LONGPIN_BENCH_SIZES:-4M 8M 16M 32M 64M 128M 256M 512M}
bad=0

run() {
	echo "# longpin $*"
	"$bin" "$@" --no-io --quiet --csv "$out" || bad=1
}
for s in $sizes; do
	run --mem anon --size "$s" --prefault write --cycles "$cycles"
done
run --mem anon --size 64M --prefault write --cycles $((cycles * 2)) --mmap-probe
if [ -n "${LONGPIN_FILE_DIR:-}" ]; then
	run --mem file-shared --dir "$LONGPIN_FILE_DIR" --size 64M --prefault write,none --cycles "$cycles"
fi
exit $bad
