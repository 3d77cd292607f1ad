#!/bin/bash
# cost-profile.sh KERNEL [SIZE] [CYCLES]: what a registration of a written
# anonymous buffer of SIZE (default 64M) would cost on hardware, per page:
# instructions, locked atomics, loads and stores, misses of a simulated
# Zen 5 cache hierarchy and data TLB (scripts/costprof.c with its model
# scripts/cachesim.c, a QEMU TCG
# plugin), and the model's cycles, for the registration, the
# unregistration and the whole cycle, and the functions the cycles go to.
# Boots KERNEL as scripts/insn-profile.sh does: once for /proc/kallsyms
# (not counted), then under longpin-vm run --icount 0 with the plugin,
# CYCLES (default 20, at least 2) register/unregister cycles and one
# cycle; the difference per page over CYCLES - 1 cycles. The registration
# is what its task runs from io_sqe_buffers_register's entry until it
# returns to user space (across context switches and vCPUs, interrupts
# included), the unregistration the same from io_sqe_buffers_unregister's,
# the whole cycle both; what else differs between the boots (khugepaged,
# ticks, the syscalls' entry) is printed apart, as "outside". The model's
# constants come from $LONGPIN_CALIB (default <cache>/calib.txt), written
# by scripts/calib.c, which is built and run first when it is missing. Needs gcc, python3 and build/longpin (or
# LONGPIN); LONGPIN_CACHE as for longpin-vm. docs/benchmarks.md, "The
# cost model".
set -euo pipefail
me=cost-profile.sh
usage="usage: $me KERNEL [SIZE] [CYCLES]"
(($# >= 1 && $# <= 3)) || { echo "$me: $usage (KERNEL: one of vm/longpin-vm kernels --names)" >&2; exit 2; }
k=$1
size=${2:-64M}
cycles=${3:-20}
cd "$(dirname "$0")/.."
grep -qxF -- "$k" <(vm/longpin-vm kernels --names) ||
	{ echo "$me: KERNEL '$k': not a kernel of longpin-vm: give one of $(vm/longpin-vm kernels --names | paste -sd, -)" >&2; exit 2; }
[[ $size =~ ^[1-9][0-9]*M$ ]] || { echo "$me: SIZE '$size': give whole MiB, e.g. 64M" >&2; exit 2; }
[[ $cycles =~ ^[1-9][0-9]*$ && $cycles -ge 2 ]] || { echo "$me: CYCLES '$cycles': give a count of 2 or more" >&2; exit 2; }
bin=${LONGPIN:-$PWD/build/longpin}
[[ -x $bin ]] || { echo "$me: no longpin binary at $bin: build it (cmake -B build && cmake --build build) or set LONGPIN" >&2; exit 2; }
export LONGPIN=$bin
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
calib=${LONGPIN_CALIB:-$cache/calib.txt}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
if [[ ! -e $calib ]]; then
	mkdir -p "$(dirname "$calib")"
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$w/calib" scripts/calib.c
	"$w/calib" -o "$calib" >"$w/calib.log" 2>&1 || { cat "$w/calib.log" >&2; exit 1; }
fi
# a constant is a number, or "unmeasured" (calib.c: not steady here),
# which the model weighs 0 and names; the core clock must be measured
for c in CPI0 C_atomic C_L2 C_LLC C_mem C_walk f_core; do
	awk -v c="$c" '$1 == c && ($2 ~ /^-?[0-9.]+$/ || (c != "f_core" && $2 == "unmeasured")) { f = 1 } END { exit !f }' "$calib" 2>/dev/null ||
		{ echo "$me: calibration file $calib has no $c: write it anew with scripts/calib.c (or remove it and rerun)" >&2; exit 2; }
done
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden -o "$w/costprof.so" scripts/costprof.c scripts/cachesim.c
# as insn-profile.sh: the symbols from a boot of their own, each counted
# boot's _stext checked against them (KASLR would move them)
marks=
stext="grep ' _stext\$' /proc/kallsyms >/results/stext"
for c in syms "$cycles" 1; do
	t0=$SECONDS
	if [[ $c == syms ]]; then
		cmd="cat /proc/kallsyms >/results/kallsyms" plug=
	else
		cmd="longpin --mem anon --size $size --prefault write --cycles $c --no-io --quiet && $stext"
		plug="-plugin $w/costprof.so,out=$w/prof-$c.txt$marks"
	fi
	# the memory callbacks slow the boot: its first console line can take
	# minutes on a loaded host (the console watchdog's 60 s under TCG)
	LONGPIN_CONSOLE_WATCHDOG_S=${LONGPIN_CONSOLE_WATCHDOG_S:-1800} LONGPIN_QEMU_EXTRA=$plug vm/longpin-vm run --kernel "$k" --icount 0 --timeout 7200 \
		--out "$w/res-$c" -- sh -c "$cmd" >"$w/log-$c" 2>&1 || { cat "$w/log-$c" >&2; exit 1; }
	echo "boot $c: $((SECONDS - t0)) s" >>"$w/times"
	if [[ $c == syms ]]; then
		# the markers: the functions that register and unregister, and
		# gcc's clones of them (.constprop.0, .isra.0; not .cold, a part
		# jumped to from inside); the context switch, where a phase
		# leaves its vCPU with its task
		marks=
		for f in reg:io_sqe_buffers_register unreg:io_sqe_buffers_unregister switch:__switch_to_asm; do
			a=$(awk -v n="${f#*:}" '$2 ~ /^[tT]$/ && ($3 == n || (index($3, n ".") == 1 && $3 !~ /[.]cold$/)) { print $1 }' "$w/res-syms/kallsyms")
			[[ -n $a ]] || { echo "$me: kernel $k has no ${f#*:} in /proc/kallsyms: the phases cannot be told apart" >&2; exit 1; }
			for x in $a; do marks+=",${f%%:*}=$x"; done
		done
		continue
	fi
	if ! [[ -s $w/res-$c/stext ]] || ! grep -qxF "$(cat "$w/res-$c/stext")" "$w/res-syms/kallsyms"; then
		echo "$me: kernel $k's _stext moves between boots (KASLR?): profile a kernel built without CONFIG_RANDOMIZE_BASE" >&2
		exit 1
	fi
done
python3 - "$w/res-syms/kallsyms" "$w/prof-$cycles.txt" "$w/prof-1.txt" "$calib" \
	"$k" "$size" "$cycles" "$(((cycles - 1) * ${size%M} * 256))" "$w/times" <<'PY'
import sys, bisect, collections
ksyms, pa, pb, calib, kern, size, cycles, div, times = sys.argv[1:]
div = float(div)
syms = sorted((int(a, 16), n) for a, t, n, *_ in (l.split() for l in open(ksyms))
              if t in 'tTwW')
keys = [a for a, _ in syms]
NC = 8  # insns atomics loads stores l1m l2m llcm walks
def load(f):
    c = collections.defaultdict(lambda: [0] * NC)
    hdr = []
    for l in open(f):
        if l.startswith('#'):
            hdr.append(l[1:].strip())
            continue
        a, ph, *v = l.split()
        i = bisect.bisect_right(keys, int(a, 16)) - 1
        fn = syms[i][1] if i >= 0 else '?'
        row = c[(fn, int(ph))]
        for j in range(NC):
            row[j] += int(v[j])
    return c, hdr
a, hdr = load(pa)
b, hdrb = load(pb)
def entries(h):
    for x in h:
        if x.startswith('entries '):
            return [int(y) for y in x.split()[1:]]
    return [0, 0, 0]
d = {}
for key in set(a) | set(b):
    d[key] = [(a.get(key, [0] * NC)[j] - b.get(key, [0] * NC)[j]) / div for j in range(NC)]
K = {}
for l in open(calib):
    f = l.split()
    if f and not f[0].startswith('#') and len(f) >= 4:
        # unmeasured: weighed 0, and the report says which
        K[f[0]] = (0.0 if f[1] == 'unmeasured' else float(f[1]), float(f[2]), float(f[3]),
                   f[4] if len(f) > 4 else '', f[1] == 'unmeasured')
unmeasured = [n for n in ('CPI0', 'C_atomic', 'C_L2', 'C_LLC', 'C_mem', 'C_walk') if K[n][4]]
def cyc(v):
    ins, atom, ld, st, m1, m2, m3, wk = v
    return (ins * K['CPI0'][0] + atom * K['C_atomic'][0] + (m1 - m2) * K['C_L2'][0]
            + (m2 - m3) * K['C_LLC'][0] + m3 * K['C_mem'][0] + wk * K['C_walk'][0])
def tot(phs):
    s = [0.0] * NC
    for (fn, ph), v in d.items():
        if ph in phs:
            for j in range(NC):
                s[j] += v[j]
    return s
ghz = K['f_core'][0]
print("%s: kernel %s, written anonymous %s, %s - 1 cycles of %d pages; per page" %
      ("cost-profile.sh", kern, size, cycles, int(size[:-1]) * 256))
print("%-16s %9s %8s %8s %8s %8s %8s %8s %7s %10s %8s" % (
    "", "insns", "atomics", "loads", "stores", "L1 miss", "L2 miss", "LLC miss", "walks",
    "cycles", "ns"))
rows = [("registration", {1}), ("unregistration", {2}), ("whole cycle", {1, 2}), ("outside", {0})]
for name, phs in rows:
    v = tot(phs)
    c = cyc(v)
    print("%-16s %9.1f %8.2f %8.1f %8.1f %8.2f %8.2f %8.3f %7.3f %10.1f %8.1f" % (
        (name,) + tuple(v) + (c, c / ghz)))
w = tot({1, 2})
print("whole cycle = registration + unregistration; outside: what else differs between the boots (the")
print("  syscalls' entry up to the markers, other tasks, ticks; not the pin's), not in the whole cycle")
print("whole cycle: %.2f memory accesses per instruction; instructions alone %.1f of the %.1f cycles" % (
    (w[2] + w[3]) / w[0] if w[0] else 0, w[0] * K['CPI0'][0], cyc(w)))
print("model: modelled cycles = insns x CPI0 + atomics x C_atomic + L2 hits x C_L2 + LLC hits x C_LLC"
      " + memory x C_mem + walks x C_walk")
print("  L2 hits = L1 misses - L2 misses, LLC hits = L2 misses - LLC misses, memory = LLC misses; ns = cycles / f_core")
print("  constants (%s, median [min-max] over its repeats):" % calib)
for n in ('CPI0', 'C_atomic', 'C_L2', 'C_LLC', 'C_mem', 'C_walk', 'f_core'):
    if K[n][4]:
        print("    %-9s unmeasured [%.3f-%.3f] %s: not steady on this machine, weighed 0" % (
            (n,) + K[n][1:4]))
    else:
        print("    %-9s %9.3f [%.3f-%.3f] %s" % ((n,) + K[n][:4]))
if unmeasured:
    print("  the modelled cycles leave out %s (unmeasured here): a bound below what they would add" %
          ", ".join(unmeasured))
for h in hdr:
    if h.startswith('costprof:'):
        print("  cache model (scripts/costprof.c): " + h[len('costprof: '):])
print("top functions of the whole cycle by modelled cycles per page (reg / unreg: each phase's cycles)")
print("%9s %8s %8s %8s %8s %8s %7s %10s %8s %8s  %s" % (
    "insns", "atomics", "mem", "L1 miss", "L2 miss", "LLC miss", "walks", "cycles", "reg", "unreg", "function"))
fns = collections.defaultdict(lambda: [0.0] * NC)
php = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
for (fn, ph), v in d.items():
    if ph:
        for j in range(NC):
            fns[fn][j] += v[j]
        php[fn][ph] += cyc(v)
for fn, v in sorted(fns.items(), key=lambda x: -cyc(x[1]))[:25]:
    p = php[fn]
    print("%9.1f %8.2f %8.1f %8.2f %8.2f %8.3f %7.3f %10.1f %8.1f %8.1f  %s" % (
        v[0], v[1], v[2] + v[3], v[4], v[5], v[6], v[7], cyc(v), p[1], p[2], fn))
print("outside the markers, the top functions by modelled cycles per page")
out = sorted(((fn, v) for (fn, ph), v in d.items() if ph == 0), key=lambda x: -cyc(x[1]))
for fn, v in out[:8]:
    print("%9.1f %8.2f %8.1f %8.2f %8.2f %8.3f %7.3f %10.1f  %s" % (
        v[0], v[1], v[2] + v[3], v[4], v[5], v[6], v[7], cyc(v), fn))
ea, eb = entries(hdr), entries(hdrb)
print("markers entered: registration %d and %d times, unregistration %d and %d (want %d and 2 each)" % (
    ea[1], eb[1], ea[2], eb[2], int(cycles) + 1))
for x in hdr:
    if x.startswith('switches '):
        print("context switches " + x[len('switches '):] + " (the longer boot)")
print("boots: " + ", ".join(l.strip()[5:] for l in open(times)))
PY
