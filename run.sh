#!/bin/bash
# The main job: the whole matrix (harness, benchmarks, fio jobs) on each
# selected kernel, one CSV per kernel in results/<run-id>/, and their
# comparison (report.md, plots/). See README.md.
#   ./run.sh [--kernels LIST]   default stock,patched;
#            LIST from `vm/longpin-vm kernels --names`, and host
#            [--out DIR] [--no-fio] [--no-bench] [--lifetime]
#            [--bench-clock icount|wall] [--repeat N]
#            benchmarks: in a boot of their own under QEMU's -icount (the
#            guest's clock counts instructions: figures do not move with
#            the host's load), or in the matrix's boot on the wall clock;
#            --repeat N boots each kernel's benchmarks N times (bench/rI/)
#   ./run.sh --torture [--kernels LIST] [--torture-seconds N] [--out DIR]
#            longpin --torture on every memory type instead: 30 s per type
#            (60 s on a -debug kernel), kernels stock,patched,patched-debug
# patched-unchunked (the series without the chunking patch; not in the
# default list, its benchmark boot would run after the other two) runs
# only the benchmarks: the baseline for what pinning in chunks costs.
set -uo pipefail
cd "$(dirname "$0")"
repo=$PWD
args="$*"
. scripts/deps.sh

kernels=stock,patched
out=
nofio=0
nobench=0
lifetime=0
torture=0
kgiven=0
tsecs=
bclock=icount
repeat=1
# each guest instruction counts 2^0 ns: about what TCG runs here (patched
# registers a written page in 313 instructions and ~330 ns of wall clock),
# so the guest's timers (the 4 ms tick, rwsem's one-jiffy handoff) keep
# the proportions they have in a wall-clock run
ICOUNT_SHIFT=0
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=${2:?--kernels needs a comma-separated list}; kgiven=1; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--no-fio) nofio=1; shift ;;
	--no-bench) nobench=1; shift ;;
	--lifetime) lifetime=1; shift ;;
	--torture) torture=1; shift ;;
	--bench-clock)
		bclock=${2:-}
		[[ $bclock == icount || $bclock == wall ]] ||
			{ echo "run.sh: --bench-clock '$bclock': give icount (instructions) or wall (the wall clock)" >&2; exit 2; }
		shift 2 ;;
	--repeat)
		repeat=${2:-}
		[[ $repeat =~ ^[1-9][0-9]*$ ]] && [ "$repeat" -le 20 ] ||
			{ echo "run.sh: --repeat '$repeat': give a whole number of benchmark boots from 1 to 20" >&2; exit 2; }
		shift 2 ;;
	--torture-seconds)
		tsecs=${2:-}
		[[ $tsecs =~ ^[1-9][0-9]*$ ]] && [ "$tsecs" -le 3600 ] ||
			{ echo "run.sh: --torture-seconds '$tsecs': give whole seconds from 1 to 3600" >&2; exit 2; }
		shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument '$1': see ./run.sh --help" >&2; exit 2 ;;
	esac
done
if [ $torture = 1 ]; then
	[ $kgiven = 1 ] || kernels=stock,patched,patched-debug
	[ $nofio = 0 ] && [ $nobench = 0 ] && [ $lifetime = 0 ] ||
		{ echo "run.sh: --torture runs only the torture: drop --no-fio, --no-bench and --lifetime" >&2; exit 2; }
elif [ -n "$tsecs" ]; then
	echo "run.sh: --torture-seconds belongs to --torture: give --torture too" >&2
	exit 2
fi
if [ $torture = 1 ] || [ $nobench = 1 ]; then
	[[ $args != *--repeat* && $args != *--bench-clock* ]] ||
		{ echo "run.sh: --repeat and --bench-clock belong to the benchmarks: drop them with --torture or --no-bench" >&2; exit 2; }
fi
[ "$bclock" = icount ] || [ "$repeat" = 1 ] ||
	{ echo "run.sh: --repeat needs --bench-clock icount (a wall-clock repeat shares the matrix's boot)" >&2; exit 2; }
IFS=, read -ra list <<<"$kernels"
names=$(vm/longpin-vm kernels --names)	# the one list of kernel names
# benchmarks compare kernels of one config: ours, built here from Debian's
# source; Debian's own kernels (another config, their modules) run the rest
built=$(vm/longpin-vm kernels --built)
benches() { grep -qxF -- "$1" <<<"$built"; }
for k in "${list[@]}"; do
	[ "$k" = host ] && [ $torture = 1 ] &&
		{ echo "run.sh: --torture runs in guests: give VM kernels, not host (longpin --torture runs here as it is)" >&2; exit 2; }
	[ "$k" = host ] || grep -qxF -- "$k" <<<"$names" ||
		{ echo "run.sh: unknown kernel '$k': give host or one of: $(echo $names | tr ' ' ,)" >&2; exit 2; }
done

start=$(date +%s)
# first_of CSV COLUMN: COLUMN (by the header's name) of the first row
first_of() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		k { print $k; exit }' "$1"
}
stage() { echo "[$(date +%T) +$(( $(date +%s) - start ))s] $*"; }
need_packages "${HARNESS_PACKAGES[@]}"
stage "build: longpin and longpin-compare"
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null && cmake --build build -j"$(nproc)" >/dev/null ||
	{ echo "run.sh: the harness does not build: run cmake --build build to see why" >&2; exit 2; }

run_id=$(date -u +%Y%m%d-%H%M%S)
out=${out:-results/$run_id}
mkdir -p "$out/bench" "$out/raw"
work=$(mktemp -d "${TMPDIR:-/tmp}/longpin-run.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
# tree PID...: each PID and its descendants, parents first
tree() {
	local p c
	for p; do
		echo "$p"
		for c in $(sed -n 's/^\([0-9]*\) (.*) [A-Za-z] \([0-9]*\) .*/\1 \2/p' /proc/[0-9]*/stat 2>/dev/null |
			awk -v p="$p" '$2 == p { print $1 }'); do
			tree "$c"
		done
	done
}
# killtree PID...: SIGTERM to each process and its descendants, parents
# first, so that a benchmark boot's shell ends before it could report the
# boot it ran as failed. The benchmark boots run in the background, where
# a non-interactive shell's children ignore SIGINT: Ctrl-C must stop their
# QEMUs itself (longpin-vm kills its QEMU on SIGTERM).
killtree() {
	local pids
	pids=$(tree "$@")
	[ -z "$pids" ] || kill -TERM $pids 2>/dev/null
}
bench_pids=()
trap 'echo; stage "interrupted: rows written so far are in $out"; killtree "${bench_pids[@]}"; wait; exit 130' INT TERM

# host: the harness and benchmarks on this machine's own kernel, no VM
run_host() {
	local dir rc=0
	dir=$(mktemp -d "$repo/build/files.XXXXXX")
	LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir LONGPIN_ARGS="--cycles 3" \
		sh vm/guest/matrix.sh "$out/host.csv" || rc=1
	LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir sh vm/guest/bench.sh "$out/bench/host.csv" || rc=1
	rm -rf "$dir"
	return $rc
}

# run_vfio KERNEL: the pinners phase for --pinner vfio, in a boot of its
# own: vfio needs longpin-vm run --vfio's q35 machine (an intel-iommu and
# edu bound to vfio-pci), and the other phases keep the pc machine their
# earlier results came from. Its rows join <kernel>.csv.
run_vfio() {
	local k=$1 res=$work/$k-vfio rc=0
	stage "kernel $k: --pinner vfio (a q35 boot with an IOMMU)"
	LONGPIN=$repo/build/longpin vm/longpin-vm run --kernel "$k" --vfio --timeout 1800 \
		--out "$res" -- env LONGPIN_PINNERS=vfio sh /opt/longpin/run.sh pinners || rc=$?
	if [ -f "$res/matrix.csv" ]; then
		if [ -f "$out/$k.csv" ]; then tail -n +2 "$res/matrix.csv" >>"$out/$k.csv"
		else cp "$res/matrix.csv" "$out/$k.csv"; fi
	fi
	[ $rc = 0 ] || echo "run.sh: kernel $k: the vfio boot exited $rc" >&2
	return $rc
}

# a VM kernel: boot it once, run the phases of vm/guest/run.sh, bring the
# CSVs back
run_vm() {
	local k=$1 res=$work/$k rc=0 phases=(matrix pinners reclaim) benchonly=0
	local adds=(--add "$repo/build/lp-runas:/usr/bin/lp-runas")
	if [ "$k" = patched-unchunked ]; then
		[ $nobench = 1 ] && { stage "kernel $k: benchmarks only, and --no-bench: skipped"; return 0; }
		benchonly=1 phases=()
		[ "$bclock" = icount ] && return 0	# bench_all boots it
	fi
	benches "$k" || [ $nobench = 1 ] || stage "kernel $k: no benchmarks: Debian's config, not ours, so no ratio against our kernels would mean anything"
	[ $nobench = 0 ] && [ "$bclock" = wall ] && benches "$k" && phases+=(bench)
	[ $benchonly = 0 ] && [ $lifetime = 1 ] && phases+=(lifetime)
	if [ $benchonly = 0 ] && [ $nofio = 0 ]; then
		adds+=(--fio)
		phases+=(fio)
	fi
	# 10,000 lifetime cycles on every kernel, the debug one too: the 17
	# types cycle at once (vm/guest/lifetime.sh), ~7 min under KASAN + TCG
	# (the ctest run, bound by CI's time, gives the debug kernel 1,000)
	LONGPIN=$repo/build/longpin vm/longpin-vm run --kernel "$k" --timeout 3600 \
		--out "$res" "${adds[@]}" -- env LONGPIN_LT_CYCLES=10000 \
		sh /opt/longpin/run.sh "${phases[@]}" || rc=$?
	[ -f "$res/matrix.csv" ] && cp "$res/matrix.csv" "$out/$k.csv"
	[ -f "$res/bench.csv" ] && cp "$res/bench.csv" "$out/bench/$k.csv"
	[ -f "$res/lifetime.csv" ] && cp "$res/lifetime.csv" "$out/lifetime-$k.csv"
	if [ -d "$res/fio" ]; then
		# fio's own JSON, compressed (~30x): kept to re-import, not to read
		tar -C "$res" --transform "s|^fio|fio-$k|" -cJf "$out/raw/fio-$k.tar.xz" fio
		bash fio-jobs/fio2csv.sh "$res/fio" "$out/$k.csv" || rc=1
	fi
	[ $benchonly = 1 ] || run_vfio "$k" || rc=1
	[ -f "$out/$k.csv" ] || [ $benchonly = 1 ] || { echo "run.sh: kernel $k produced no results (exit $rc)" >&2; return 1; }
	[ $benchonly = 0 ] || [ -f "$out/bench/$k.csv" ] || { echo "run.sh: kernel $k produced no benchmark (exit $rc)" >&2; return 1; }
	return $rc
}

# the benchmarks under -icount: a boot of their own per repeat (the
# matrix's boot runs on the wall clock); their CSVs to bench/<kernel>.csv,
# or bench/rI/<kernel>.csv with --repeat. Counted in instructions, their
# figures do not depend on what else runs: the boots of every kernel go to
# the background before the first matrix, the longest part of a run, at
# most one per core at a time (bench_all), beside the matrices.
# bench_keep KERNEL I RC: a boot that left no benchmark: its log and the
# guest's console go to raw/ (the work dir and the cache's runs/ do not
# last), named in the one-line error
bench_keep() {
	local log=$out/raw/bench-$1-$2.log con
	cp "$work/bench-$1-$2.log" "$log"
	con=$(sed -n 's/.*console log \([^ ]*\).*/\1/p' "$log" | head -n1)
	[ -n "$con" ] && [ -f "$con" ] && cp "$con" "$out/raw/bench-$1-$2.console.log"
	echo "run.sh: kernel $1 produced no benchmark in boot $2 (exit $3; log $log, console $out/raw/bench-$1-$2.console.log)" >&2
}
bench_boot() { # KERNEL I: one boot; its status in $work/bench-KERNEL-I.rc
	local k=$1 i=$2 res=$work/$k-bench$2 dst=$out/bench/$k.csv rc=0
	[ "$repeat" = 1 ] || { mkdir -p "$out/bench/r$i"; dst=$out/bench/r$i/$k.csv; }
	# 4 GiB: the stall's 1 GiB buffer, its page array and bvecs, beside
	# the ram disks and huge pages of the guest's set-up
	LONGPIN=$repo/build/longpin vm/longpin-vm run --kernel "$k" --icount "$ICOUNT_SHIFT" --mem 4G \
		--timeout 7200 --out "$res" -- sh /opt/longpin/run.sh bench \
		>"$work/bench-$k-$i.log" 2>&1 || rc=$?
	if [ -f "$res/bench.csv" ]; then
		cp "$res/bench.csv" "$dst"
		[ -f "$res/bench-numa.txt" ] && cp "$res/bench-numa.txt" "${dst%.csv}-numa.txt"
	else
		bench_keep "$k" "$i" "$rc"
		[ $rc != 0 ] || rc=1
	fi
	echo $rc >"$work/bench-$k-$i.rc"
	stage "kernel $k: benchmarks boot $i of $repeat done (exit $rc)"
}
run_bench() {
	local k=$1 i
	for ((i = 1; i <= repeat; i++)); do
		while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
		stage "kernel $k: benchmarks under -icount, boot $i of $repeat (in the background)"
		bench_boot "$k" "$i" &
	done
}
# bench_all: every benchmark boot of the run, in a subshell of its own
# (so that the slots it waits for are its boots alone)
bench_all() {
	local k
	for k in "${list[@]}"; do
		[ "$k" != host ] && benches "$k" && run_bench "$k"
	done
	wait
}

# --torture: one boot per kernel, longpin --torture on every memory type
# (vm/guest/torture.sh), the rows to torture-<kernel>.csv
run_torture() {
	local k=$1 res=$work/$k rc=0 secs=$tsecs
	[ -n "$secs" ] || { secs=30; [[ $k == *-debug ]] && secs=60; }
	stage "kernel $k: longpin --torture $secs s per memory type"
	LONGPIN=$repo/build/longpin vm/longpin-vm run --kernel "$k" --timeout $((40 * secs + 900)) \
		--out "$res" -- env LONGPIN_TORTURE_SECONDS="$secs" \
		sh /opt/longpin/run.sh torture || rc=$?
	[ -f "$res/torture.csv" ] || { echo "run.sh: kernel $k produced no torture rows (exit $rc)" >&2; return 1; }
	cp "$res/torture.csv" "$out/torture-$k.csv"
	return $rc
}

# the accelerator of every guest of this run, proved by a boot of the
# first VM kernel (vm/lib/accel.sh), said once and kept in RUN.txt
accel_line=
for k in "${list[@]}"; do
	[ "$k" = host ] && continue
	accel_line=$(vm/longpin-vm accel --kernel "$k") || exit $?
	stage "$accel_line"
	break
done

failed=()
if [ $torture = 0 ] && [ $nobench = 0 ] && [ "$bclock" = icount ]; then
	bench_all &
	bench_pids=($!)
fi
i=0
for k in "${list[@]}"; do
	i=$((i + 1))
	stage "kernel $i/${#list[@]}: $k (then: ${list[*]:i})"
	if [ $torture = 1 ]; then run_torture "$k"
	elif [ "$k" = host ]; then run_host
	else
		run_vm "$k"
	fi
	rc=$?
	[ $rc = 0 ] || { failed+=("$k (exit $rc)"); stage "kernel $k: FAILED (exit $rc), going on with the others"; }
done

if [ ${#bench_pids[@]} -gt 0 ]; then
	stage "benchmarks: waiting for the boots still running"
	wait "${bench_pids[@]}"
	for k in "${list[@]}"; do
		for ((i = 1; i <= repeat; i++)); do
			[ -f "$work/bench-$k-$i.rc" ] || continue
			rc=$(cat "$work/bench-$k-$i.rc")
			[ "$rc" = 0 ] || failed+=("$k benchmarks boot $i (exit $rc)")
		done
	done
fi
csvs=() bcsvs=() tcsvs=()
for k in "${list[@]}"; do
	[ -f "$out/torture-$k.csv" ] && tcsvs+=("$out/torture-$k.csv")
	[ -f "$out/$k.csv" ] && csvs+=("$out/$k.csv")
	[ -f "$out/bench/$k.csv" ] && bcsvs+=("$out/bench/$k.csv")
	for ((i = 1; i <= repeat && repeat > 1; i++)); do
		[ -f "$out/bench/r$i/$k.csv" ] && bcsvs+=("$out/bench/r$i/$k.csv")
	done
done
{
	echo "command: ${LONGPIN_CACHE:+LONGPIN_CACHE=$LONGPIN_CACHE }./run.sh $args"
	echo "output: $out"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -r), $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)" GiB"}' /proc/meminfo)"
	[ -z "$accel_line" ] || echo "$accel_line"
	[ $nobench = 1 ] || [ $torture = 1 ] || echo "benchmarks: $([ "$bclock" = icount ] &&
		echo "-icount shift=$ICOUNT_SHIFT (guest time counts instructions), $repeat boot(s) per kernel" ||
		echo "wall clock, in the matrix's boot")"
	for c in "${csvs[@]}"; do
		echo "kernel $(basename "$c" .csv): $(first_of "$c" kernel)"
	done
	for c in "${tcsvs[@]}"; do
		echo "kernel $(basename "$c" .csv | sed 's/^torture-//'): $(first_of "$c" kernel)"
	done
	vm/longpin-vm kernels 2>/dev/null | grep -E '^(stock|patched|debian)'
	for s in kernel-patches/*/series; do
		echo "$s: $(grep -v '^#' "$s" | grep -c .) patches"
	done
	echo "failed: ${failed[*]:-none}"
} >"$out/RUN.txt"
if [ ${#tcsvs[@]} -ge 1 ]; then
	# a row per memory type, per kernel its operations, verdict and
	# what went wrong: longpin's, which writes the torture CSVs
	build/longpin torture-report "${tcsvs[@]}" >"$out/torture.md" || failed+=("torture report")
	stage "torture: $out/torture.md"
fi
if [ ${#csvs[@]} -ge 2 ]; then
	stage "compare: $out/report.md, $out/plots/"
	build/longpin-compare --report "$out/report.md" --plots "$out/plots" "${csvs[@]}" ||
		failed+=("compare")
fi
if [ ${#bcsvs[@]} -ge 2 ]; then
	ropt=()
	[ "$repeat" = 1 ] || ropt=(--repeats)	# bench/rI/K.csv: repeats of kernel K
	build/longpin-compare "${ropt[@]}" --report "$out/bench/report.md" --plots "$out/bench/plots" "${bcsvs[@]}" \
		>"$out/bench/compare.txt" || failed+=("bench compare")
	stage "benchmarks: $out/bench/report.md"
fi
stage "done: $out (failed: ${failed[*]:-none})"
[ ${#failed[@]} = 0 ]
