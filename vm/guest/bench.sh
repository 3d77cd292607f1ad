#!/bin/sh
# bench.sh OUT.csv: the registration benchmarks of the kernel-patches issue,
# run inside one kernel; compare two kernels' OUT.csv with longpin-compare.
#  1. registration cost of written anon 4 KiB pages, 4 MiB to 512 MiB
#     (LONGPIN_BENCH_SIZES), each size registered 1 + CYCLES times, and of
#     an untouched 64 MiB buffer (faulted by the registration);
#  2. mmap_lock and interrupts-off stall, per registration: a second
#     thread on another CPU loops mmap, a write and munmap of one page
#     while the buffer registers and unregisters (--cycles N --mmap-probe,
#     op register-mmap-probe); its longest call inside a registration is
#     that registration's stall. One process per size (16, 64, 256 MiB,
#     1 GiB: LONGPIN_STALL_SIZES), written and untouched, makes its buffer
#     once and registers it LONGPIN_STALL_RUNS times (11; 5 at 1 GiB:
#     LONGPIN_STALL_RUNS_1G); the row's stall_us_* are the median [min-max]
#     over the registrations, which longpin-compare shows;
#     each row also holds the instrument's floor: the prober's calls that
#     overlap no registration (probe_free_med_us, probe_free_p99_us);
#  3. a refused 64 MiB file-shared registration (needs LONGPIN_FILE_DIR),
#     for prefault write (nothing left to fault) and none.
# Rows go to OUT.csv (CSV schema 4, --no-io). In a guest booted with
# longpin-vm run --icount N (longpin.icount=N on its command line) the
# times are instructions (2^N ns each), not the wall clock: the rows'
# accel column says tcg-icountN. Where each buffer's pages sit, the lines
# of /proc/self/numa_maps that cover it, goes to OUT-numa.txt; the CPU the
# guest saw, its command line and which CPU mitigations were on
# (/sys/devices/system/cpu/vulnerabilities) to OUT-cpu.txt.
#
# Under -icount QEMU runs the two vCPUs in turns, and a turn lasts until
# the next timer deadline of the virtual clock (a guest tick away, up to
# 2 ms): a prober that spins for its IPI waits for the registrant's whole
# turn, not for the registrant's answer. For the stall runs the HPET's
# third comparator ticks every LONGPIN_STALL_TICK_US (10; 0: off) with
# its interrupt off (hpet-tick.sh): a deadline for QEMU, nothing for the
# guest to do. The stall rows then say tcg-icountN-tickUSus.
set -u
out=${1:?usage: bench.sh OUT.csv}
export LONGPIN_NUMA_MAPS=${out%.csv}-numa.txt
: >"$LONGPIN_NUMA_MAPS"
# what the figures ran on: the mitigations change the syscalls' entry and
# exit, and -cpu max's flags decide which of them apply
{
	echo "kernel: $(uname -r)"
	echo "cmdline: $(cat /proc/cmdline 2>/dev/null)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort -u | head -n 1), $(grep -c '^processor' /proc/cpuinfo) vCPUs"
	for v in /sys/devices/system/cpu/vulnerabilities/*; do
		[ -r "$v" ] && echo "vulnerabilities/${v##*/}: $(cat "$v")"
	done
} >"${out%.csv}-cpu.txt"
icount=$(sed -n 's/.*longpin\.icount=\([0-9]*\).*/\1/p' /proc/cmdline 2>/dev/null)
bin=${LONGPIN:-longpin}
cycles=${LONGPIN_BENCH_CYCLES:-5}
sizes=${LONGPIN_BENCH_SIZES:-4M 8M 16M 32M 64M 128M 256M 512M}
stall_sizes=${LONGPIN_STALL_SIZES:-16M 64M 256M 1G}
stall_runs=${LONGPIN_STALL_RUNS:-11}
stall_runs_1g=${LONGPIN_STALL_RUNS_1G:-5}
tick_us=${LONGPIN_STALL_TICK_US:-10}
hpet_tick=$(dirname "$0")/hpet-tick.sh
bad=0

run() {
	echo "# longpin register $*"
	"$bin" register "$@" --no-io --quiet --csv "$out" || bad=1
}
for s in $sizes; do
	run --mem anon --size "$s" --prefault write --cycles "$cycles"
done
run --mem anon --size 64M --prefault none
first_stall=$(($(cat "$out" 2>/dev/null | wc -l) + 1))
tick=
if [ -n "$icount" ] && [ "$tick_us" != 0 ]; then
	if sh "$hpet_tick" "$tick_us"; then
		tick=-tick${tick_us}us
		trap 'sh "$hpet_tick" 0' EXIT
		echo "# stall runs: HPET comparator 2 ticks every $tick_us us, interrupt off"
	else
		echo "bench.sh: no HPET tick (above): the stall runs would measure QEMU's turns; LONGPIN_STALL_TICK_US=0 runs them so on purpose" >&2
		bad=1
	fi
fi
for s in $stall_sizes; do
	n=$stall_runs
	[ "$s" = 1G ] && n=$stall_runs_1g
	for pf in write none; do
		run --mem anon --size "$s" --prefault $pf --cycles "$n" --mmap-probe
	done
done
if [ -n "$tick" ]; then
	sh "$hpet_tick" 0
	trap - EXIT
	sed -i "$first_stall,\$ s/,tcg,/,tcg-icount$icount$tick,/" "$out"
fi
if [ -n "${LONGPIN_FILE_DIR:-}" ]; then
	run --mem file-shared --dir "$LONGPIN_FILE_DIR" --size 64M --prefault write,none --cycles "$cycles"
fi
# the method, in the rows' own accel column (a field "tcg" alone)
[ -z "$icount" ] || sed -i "s/,tcg,/,tcg-icount$icount,/" "$out"
exit $bad
