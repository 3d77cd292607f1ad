#!/bin/bash
# insn-profile.sh KERNEL [SIZE] [CYCLES]: where a registration's guest
# instructions go, per kernel function and page. Builds scripts/insnprof.c
# (a QEMU TCG plugin), boots KERNEL twice under longpin-vm run --icount 0
# with it, each registering a written anonymous buffer of SIZE (default
# 64M): CYCLES times (default 100, at least 2), then once, and prints the
# difference per function (symbols from /proc/kallsyms of a first boot,
# not counted) divided by CYCLES - 1 times the buffer's pages:
# registration and unregistration together. The buffer's set-up and
# longpin's start and exit are in both boots and cancel; what the longer
# boot ran besides (ticks) stays. Needs gcc and build/longpin (or
# LONGPIN); LONGPIN_CACHE as for longpin-vm. Issue 25's table in
# docs/benchmarks.md.
set -euo pipefail
k=${1:?usage: insn-profile.sh KERNEL [SIZE] [CYCLES]}
size=${2:-64M}
cycles=${3:-100}
[[ $size =~ ^[1-9][0-9]*M$ ]] || { echo "insn-profile.sh: SIZE '$size': give whole MiB, e.g. 64M" >&2; exit 2; }
[[ $cycles =~ ^[1-9][0-9]*$ && $cycles -ge 2 ]] || { echo "insn-profile.sh: CYCLES '$cycles': give a count of 2 or more" >&2; exit 2; }
cd "$(dirname "$0")/.."
# the guest runs the longpin that longpin-vm puts in its initramfs: without
# one both boots register nothing and the difference is noise
bin=${LONGPIN:-$PWD/build/longpin}
[[ -x $bin ]] || { echo "insn-profile.sh: no longpin binary at $bin: build it (cmake -B build && cmake --build build) or set LONGPIN" >&2; exit 2; }
export LONGPIN=$bin
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
gcc -O2 -shared -fPIC -fvisibility=hidden -o "$w/insnprof.so" scripts/insnprof.c
# the baseline boot makes the same buffer and registers it once. Neither
# sends the symbols out: the serial line's interrupts for a megabyte of
# them vary with the host's load (8 million instructions once). A boot
# before them, not counted, does; each counted one sends _stext's line,
# which must be that boot's (a kernel with KASLR moves it every boot).
stext="grep ' _stext\$' /proc/kallsyms >/results/stext"
for c in syms "$cycles" 1; do
	if [[ $c == syms ]]; then
		cmd="cat /proc/kallsyms >/results/kallsyms" plug=
	else
		cmd="longpin --mem anon --size $size --prefault write --cycles $c --no-io --quiet && $stext"
		plug="-plugin $w/insnprof.so,out=$w/prof-$c.txt"
	fi
	LONGPIN_QEMU_EXTRA=$plug vm/longpin-vm run --kernel "$k" --icount 0 --timeout 3600 \
		--out "$w/res-$c" -- sh -c "$cmd" >"$w/log-$c" 2>&1 || { cat "$w/log-$c" >&2; exit 1; }
	[[ $c == syms ]] && continue
	if ! [[ -s $w/res-$c/stext ]] || ! grep -qxF "$(cat "$w/res-$c/stext")" "$w/res-syms/kallsyms"; then
		echo "insn-profile.sh: kernel $k's _stext moves between boots (KASLR?): profile a kernel built without CONFIG_RANDOMIZE_BASE" >&2
		exit 1
	fi
done
python3 - "$w/res-syms/kallsyms" "$w/prof-$cycles.txt" "$w/prof-1.txt" \
	"$(((cycles - 1) * ${size%M} * 256))" <<'PY'
import sys, bisect, collections
syms = sorted((int(a, 16), n) for a, t, n, *_ in (l.split() for l in open(sys.argv[1]))
              if t in 'tTwW')
keys = [a for a, _ in syms]
def load(f):
    c = collections.Counter()
    for l in open(f):
        a, x, y = l.split()
        i = bisect.bisect_right(keys, int(a, 16)) - 1
        c[syms[i][1] if i >= 0 else '?'] += int(x) + int(y)
    return c
a, b, div = load(sys.argv[2]), load(sys.argv[3]), float(sys.argv[4])
d = {f: (a[f] - b.get(f, 0)) / div for f in a}
print("instructions per page and cycle (registration + unregistration): %.1f" % sum(d.values()))
for f, v in sorted(d.items(), key=lambda x: -x[1])[:40]:
    print("%9.1f  %s" % (v, f))
PY
