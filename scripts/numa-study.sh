#!/bin/bash
# numa-study.sh [--out DIR] [--clock icount,wall] [--kernels stock,patched]
#               [--procs N]
# Issue 25's question: why do two NUMA nodes cost the patched registration?
# Boots each kernel in three set-ups, for each clock:
#   numa-2node   the kernels of vm/kernel.config (CONFIG_NUMA=y), two nodes
#   numa-1node   the same kernels, one node (longpin-vm run --nodes 1)
#   nonuma-1node the same config without CONFIG_NUMA, one node: a scratch
#                build in $LONGPIN_NONUMA_CACHE (default
#                ~/.cache/longpin/scratch-numa: its own cache and ccache;
#                vm/kernel.config is not changed)
# and registers written anonymous buffers of 4 MiB to 512 MiB, 5 cycles
# each, in one process per size, then N processes of 64 MiB (--procs,
# default 8). Per row: the CSV (cycle medians, gup_fast_pages and
# gup_slow_pages of the first registration), the buffer's numa_maps lines
# (numa-*.txt) and the gup_longterm_* vm events around the process
# (vmstat-*.txt). icount: the guest's clock counts instructions (1 per
# ns), so one boot is the figure; wall: the wall clock of TCG, as noisy as
# the host. Writes DIR/<clock>/<setup>-<kernel>.{study.csv,numa.txt,
# vmstat.txt,nodes.txt,log}
# and DIR/STUDY.txt (command, commit, kernels). See results/README.md.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
repo=$PWD
args="$*"
out=results/$(date -u +%Y%m%d-%H%M%S)-numa-study
clocks=icount,wall
kernels=stock,patched
procs=8
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift 2 ;;
	--clock) clocks=${2:?}; shift 2 ;;
	--kernels) kernels=${2:?}; shift 2 ;;
	--procs) procs=${2:?}; shift 2 ;;
	*) echo "numa-study.sh: unknown argument '$1': see the head of $0" >&2; exit 2 ;;
	esac
done
[[ $procs =~ ^[0-9]+$ ]] || { echo "numa-study.sh: --procs '$procs': give a count" >&2; exit 2; }
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
nocache=${LONGPIN_NONUMA_CACHE:-$HOME/.cache/longpin/scratch-numa}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the CONFIG_NUMA-off copy of vm/: the same scripts, kernel.config without NUMA
cp -a vm kernel-patches "$work/" && mkdir -p "$work/nonuma" && mv "$work/vm" "$work/kernel-patches" "$work/nonuma/"
sed -i 's/^CONFIG_NUMA=y$/# CONFIG_NUMA is not set/' "$work/nonuma/vm/kernel.config"
grep -q '^# CONFIG_NUMA is not set' "$work/nonuma/vm/kernel.config" ||
	{ echo "numa-study.sh: vm/kernel.config has no CONFIG_NUMA=y line to turn off" >&2; exit 1; }

cat >"$work/guest.sh" <<'G'
#!/bin/sh
# in the guest: every size once, then $1 processes of 64 MiB
procs=$1
ev() { grep '^gup_longterm' /proc/vmstat | tr '\n' ' '; }
one() {
	echo "$1 before: $(ev)" >>/results/vmstat.txt
	longpin --mem anon --size "$1" --prefault write --cycles 5 --no-io --quiet --csv /results/study.csv
	echo "$1 after: $(ev)" >>/results/vmstat.txt
}
export LONGPIN_NUMA_MAPS=/results/numa.txt
ls -d /sys/devices/system/node/node* >/results/nodes.txt 2>&1
for s in 4M 8M 16M 32M 64M 128M 256M 512M; do one $s; done
i=0
while [ $i -lt "$procs" ]; do one 64M; i=$((i + 1)); done
G

rc=0
IFS=, read -ra cl <<<"$clocks"
IFS=, read -ra ks <<<"$kernels"
for c in "${cl[@]}"; do
	mkdir -p "$out/$c"
	for setup in numa-2node numa-1node nonuma-1node; do
		for k in "${ks[@]}"; do
			vmdir=$repo/vm nodes=2 lc=$cache
			[ $setup = numa-2node ] || nodes=1
			[ $setup = nonuma-1node ] && vmdir=$work/nonuma/vm lc=$nocache
			opt=(--nodes "$nodes")
			[ "$c" = icount ] && opt+=(--icount 0)
			echo "[$(date +%T)] $c $setup $k"
			LONGPIN=$repo/build/longpin LONGPIN_CACHE=$lc "$vmdir/longpin-vm" run --kernel "$k" \
				"${opt[@]}" --timeout 3600 --out "$work/res" --add "$work/guest.sh:/opt/study.sh" \
				-- sh /opt/study.sh "$procs" >"$out/$c/$setup-$k.log" 2>&1 || rc=1
			for f in study.csv numa.txt vmstat.txt nodes.txt; do
				[ -f "$work/res/$f" ] && mv "$work/res/$f" "$out/$c/$setup-$k.$f"
			done
			[ -f "$out/$c/$setup-$k.study.csv" ] || { echo "numa-study.sh: $c $setup $k: no rows (log $out/$c/$setup-$k.log)" >&2; rc=1; }
			rm -rf "$work/res"
		done
	done
done
{
	echo "command: ${LONGPIN_CACHE:+LONGPIN_CACHE=$LONGPIN_CACHE }${LONGPIN_NONUMA_CACHE:+LONGPIN_NONUMA_CACHE=$LONGPIN_NONUMA_CACHE }scripts/numa-study.sh $args"
	echo "commit: $(git rev-parse --short HEAD)$(git status --porcelain --untracked-files=no | grep -q . && echo ' (with uncommitted changes)')"
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
	LONGPIN_CACHE=$cache vm/longpin-vm kernels 2>/dev/null | grep -E '^(stock|patched) '
	LONGPIN_CACHE=$nocache "$work/nonuma/vm/longpin-vm" kernels 2>/dev/null |
		grep -E '^(stock|patched) ' | sed 's/^/CONFIG_NUMA off: /'
	echo "exit: $rc"
} >>"$out/STUDY.txt"	# a second call (another --clock) adds its lines
exit $rc
