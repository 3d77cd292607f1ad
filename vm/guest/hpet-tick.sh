#!/bin/sh
# hpet-tick.sh US: set the HPET's comparator 2 periodic every US
# microseconds, 32-bit, its interrupt off; 0 stops it (it fires once
# more). Under QEMU's -icount the vCPUs run in turns that last until the
# next deadline of the virtual clock; a comparator ticking every US is such
# a deadline, with nothing for the guest to do. Writes the registers with
# busybox devmem on /dev/mem. Exit 1, with the reason, without /dev/mem,
# without an HPET in /proc/iomem, or when the comparator does not move.
set -u
us=${1:?usage: hpet-tick.sh MICROSECONDS (0: stop)}
die() { echo "hpet-tick.sh: $*" >&2; exit 1; }
case $us in '' | *[!0-9]*) die "'$us': give whole microseconds (0: stop)" ;; esac
[ -c /dev/mem ] || die "no /dev/mem (a kernel without CONFIG_DEVMEM)"
base=$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : HPET 0$/\1/p' /proc/iomem)
[ -n "$base" ] || die "no 'HPET 0' in /proc/iomem"
base=$((0x$base))
cfg=$((base + 0x140)) cmp=$((base + 0x148))
if [ "$us" = 0 ]; then
	devmem $cfg 32 0x100 || die "cannot write the comparator's config"
	exit 0
fi
fs=$(devmem $((base + 4)) 32) || die "cannot read the HPET's period"
p=$((us * 1000000000 / fs))
# periodic, set-value, 32-bit. The first comparator write sets the first
# deadline, the second the period. The deadline is 100 ms ahead, so that
# it is still ahead when the second write lands (a devmem takes
# milliseconds here): QEMU arms a 32-bit comparator behind the counter for
# after the counter wraps, 43 s on.
devmem $cfg 32 0x148 &&
	now=$(devmem $((base + 0xf0)) 32) &&
	devmem $cmp 32 $(((now + 100000000000000 / fs) & 0xffffffff)) &&
	devmem $cmp 32 $p || die "cannot write the comparator"
sleep 0.2
# ticking: each tick moves the comparator on by the period
c1=$(devmem $cmp 32)
c2=$(devmem $cmp 32)
[ "$c1" != "$c2" ] || die "comparator 2 does not move ($c1) once set to tick every $us us"
