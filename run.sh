#!/bin/bash
# run.sh [MODE] [OPTIONS]: longpin's main job, one CSV per kernel in
# results/<run-id>/, their comparison and a summary (README.md,
# docs/run-and-compare.md). MODE:
#   main     (the default) the answer in minutes: every memory type pinned
#            by io_uring, gup-fast and gup (read-write and read-only), and
#            the reclaim and lazyfree data-loss rows; one short benchmark
#            under -icount: 64 MiB written and untouched, registration
#            and the stall beside a prober (11 registrations each)
#   full     everything: main's rows, the fio jobs, rdma, vfio (a q35 boot
#            with an IOMMU), every lifetime case with --lifetime; the whole
#            benchmark set (registration 4 MiB to 512 MiB, stall 16 MiB to
#            1 GiB), --repeat N boots of it per kernel
#   bench    the whole benchmark set alone (--repeat N)
#   torture  longpin torture on every memory type (default kernels
#            stock,patched,patched-debug; --torture-seconds N, default 30,
#            60 on a -debug kernel)
# OPTIONS:
#   --kernels LIST   default stock,patched (full: and stock-7.2,patched-7.2;
#                    torture: and patched-debug); LIST from `vm/longpin-vm
#                    kernels --names`, host (this machine's kernel), and
#                    your own: image:PATH (a bzImage, a linux-image or
#                    linux-binary .deb), tree:DIR (a source tree, built
#                    out of tree): docs/your-kernel.md
#   --contract [K=]NAME   judge kernel K's rows (every kernel's, without
#                    K=) by harness/contracts/NAME.contract; repeatable
#   --out DIR        default results/<run-id>
#   --repeat N       benchmark boots per kernel (full, bench)
#   --bench-clock icount|wall   -icount boots of their own (default), or
#                    the wall clock in the verdicts' boot
#   --no-fio, --no-bench, --lifetime   (full) leave out / add a part
#   --torture-seconds N   (torture)
set -uo pipefail
cd "$(dirname "$0")" || exit 2
repo=$PWD
args="$*"
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}	# as vm/longpin-vm's
# shellcheck source-path=SCRIPTDIR # the cd above made it the directory
. scripts/deps.sh

usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }
err() { echo "run.sh: $*" >&2; exit 2; }
# value OPTION VALUE...: VALUE, when there is one (not empty)
value() { [ $# -ge 2 ] && [ -n "$2" ] && echo "$2"; }
# out_check DIR: --out is a directory or nothing yet, somewhere this user
# can write: refused now, before anything is installed or built
out_check() {
	local up=$1
	[ ! -e "$1" ] || [ -d "$1" ] || err "--out $1 is not a directory: give a new directory"
	while [ ! -e "$up" ]; do up=$(dirname "$up"); done
	[ -d "$up" ] || err "--out $1: $up is not a directory: give a writable place"
	findmnt -no OPTIONS -T "$up" 2>/dev/null | grep -Eq '(^|,)ro(,|$)' &&
		err "--out $1: $up is on a read-only file system: give a writable place"
	[ -w "$up" ] || err "--out $1: $up is not writable (uid $(id -u)): give a writable place"
}
mode=main
case ${1:-} in
main | full | bench | torture) mode=$1; shift ;;
esac
kernels=
out=
nofio=0
nobench=0
lifetime=0
tsecs=
bclock=icount
repeat=1
given=()
contracts=()	# --contract [K=]NAME, as given
# each guest instruction counts 2^0 ns: about what TCG runs here, so the
# guest's timers (the 4 ms tick, rwsem's one-jiffy handoff) keep the
# proportions they have in a wall-clock run
ICOUNT_SHIFT=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=$(value "$@") || err "--kernels needs a comma-separated list of kernels: see ./run.sh --help"; shift 2 ;;
	--contract)
		c=${2:-}
		[ -f "harness/contracts/${c#*=}.contract" ] ||
			err "--contract '$c': no contract ${c#*=}; give [KERNEL=]NAME, NAME one of: $(for f in harness/contracts/*.contract; do basename "$f" .contract; done | paste -sd' ')"
		contracts+=("$c"); shift 2 ;;
	--out) out=$(value "$@") || err "--out needs a directory: see ./run.sh --help"; shift 2 ;;
	--no-fio) nofio=1; given+=(--no-fio); shift ;;
	--no-bench) nobench=1; given+=(--no-bench); shift ;;
	--lifetime) lifetime=1; given+=(--lifetime); shift ;;
	--bench-clock)
		bclock=${2:-}
		[[ $bclock == icount || $bclock == wall ]] ||
			err "--bench-clock '$bclock': give icount (instructions) or wall (the wall clock)"
		given+=(--bench-clock); shift 2 ;;
	--repeat)
		repeat=${2:-}
		[[ $repeat =~ ^[1-9][0-9]*$ ]] && [ "$repeat" -le 20 ] ||
			err "--repeat '$repeat': give a whole number of benchmark boots from 1 to 20"
		given+=(--repeat); shift 2 ;;
	--torture-seconds)
		tsecs=${2:-}
		[[ $tsecs =~ ^[1-9][0-9]*$ ]] && [ "$tsecs" -le 3600 ] ||
			err "--torture-seconds '$tsecs': give whole seconds from 1 to 3600"
		given+=(--torture-seconds); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	main | full | bench | torture) err "the mode ($1) comes first: ./run.sh $1 [OPTIONS]" ;;
	--main | --full | --bench | --torture) err "'$1': a mode is a word, and first: ./run.sh ${1#--} [OPTIONS]" ;;
	*) err "unknown argument '$1': see ./run.sh --help" ;;
	esac
done
# which options each mode takes
takes() { # MODE -> the options it takes
	case $1 in
	main) echo "--bench-clock" ;;
	full) echo "--no-fio --no-bench --lifetime --bench-clock --repeat" ;;
	bench) echo "--bench-clock --repeat" ;;
	torture) echo "--torture-seconds" ;;
	esac
}
for o in "${given[@]}"; do
	[[ " $(takes $mode) " == *" $o "* ]] ||
		err "$o does not belong to mode $mode: drop it (or use a mode that takes it: ./run.sh --help)"
done
[ "$bclock" = icount ] || [ "$repeat" = 1 ] ||
	err "--repeat needs --bench-clock icount (a wall-clock repeat shares the verdicts' boot)"
[ -z "$out" ] || out_check "$out"
if [ -z "$kernels" ]; then
	case $mode in
	torture) kernels=stock,patched,patched-debug ;;
	# the newest upstream Debian ships, as built here and with the
	# mainline series, beside 6.1
	full) kernels=stock,patched,stock-7.2,patched-7.2 ;;
	*) kernels=stock,patched ;;
	esac
fi
IFS=, read -ra klist <<<"$kernels"
names=$(vm/longpin-vm kernels --names)	# the one list of kernel names
# benchmarks compare kernels of one config: ours, built here from Debian's
# source, and a user's tree built with our fragments (unless it starts
# from LONGPIN_TREE_CONFIG); Debian's own kernels and a user's image
# (another config, their modules) run the rest
built=$(vm/longpin-vm kernels --built)
benches() {
	grep -qxF -- "$1" <<<"$built" || { [[ ${spec[$1]:-} == tree:* ]] && [ -z "${LONGPIN_TREE_CONFIG:-}" ]; }
}
# A user's kernel (image:PATH, tree:DIR; docs/your-kernel.md) runs under
# its label (image-NAME, tree-NAME: the name of its CSV, its lanes and
# its column in the report); spec[LABEL] is what vm/longpin-vm is given
declare -A spec=()
list=()
for k in "${klist[@]}"; do
	[ "$k" = host ] && [ $mode = torture ] &&
		err "torture runs in guests: give VM kernels, not host (longpin torture runs here as it is)"
	case $k in
	image:* | tree:*)
		l=$(vm/longpin-vm kernels --label "$k") || exit 2
		[ -z "${spec[$l]:-}" ] || err "--kernels: $k and ${spec[$l]} are both labelled $l: give one of them (or rename a directory)"
		spec[$l]=$k
		echo "run.sh: kernel $k: results as $l ($l.csv)"
		k=$l ;;
	*)
		[ "$k" = host ] || grep -qxF -- "$k" <<<"$names" ||
			err "unknown kernel '$k': give host or one of: $(echo $names | tr ' ' ,); or your own: image:PATH, tree:DIR" ;;
	esac
	[[ " ${list[*]} " != *" $k "* ]] || err "--kernels names $k twice"
	list+=("$k")
done
kernels=$(IFS=,; echo "${list[*]}")	# the labels, for file names
# kspec K: what vm/longpin-vm is given for kernel K
kspec() { echo "${spec[$1]:-$1}"; }
# kcontract K: the contract --contract forces on K (K=NAME, by label or
# as given; else a NAME for all), or nothing
kcontract() {
	local c f=
	for c in "${contracts[@]}"; do
		case $c in
		*=*) [ "${c%%=*}" = "$1" ] || [ "${c%%=*}" = "$(kspec "$1")" ] && f=${c#*=} ;;
		*) [ -n "$f" ] || f=$c ;;
		esac
	done
	echo "$f"
}
# kopts K: the vm/longpin-vm options of K: --kernel, --contract
kopts() {
	local c
	c=$(kcontract "$1")
	echo "--kernel"
	kspec "$1"
	[ -z "$c" ] || printf '%s\n' --contract "$c"
}
for c in "${contracts[@]}"; do
	[[ $c != *=* ]] || [[ " ${list[*]} ${klist[*]} " == *" ${c%%=*} "* ]] ||
		err "--contract $c: ${c%%=*} is not a kernel of --kernels ($kernels)"
done
# A user's kernel is built (tree:), unpacked (.deb) or found, and its
# config checked before any boot: what it lacks and what that costs
# (vm/longpin-vm check); one that cannot run the guest stops the run
# here with one line, exit 2
for k in "${list[@]}"; do
	[ -n "${spec[$k]:-}" ] || continue
	mapfile -t ko < <(kopts "$k")
	vm/longpin-vm check "${ko[@]}" >/dev/null || { rc=$?; echo "run.sh: kernel ${spec[$k]}: its check failed (exit $rc, above): nothing was booted" >&2; exit $rc; }
done
verdicts=1 bench=1
case $mode in
bench) verdicts=0 ;;
torture) verdicts=0 bench=0 ;;
full) [ $nobench = 0 ] || bench=0 ;;
esac

run_id=$(date -u +%Y%m%d-%H%M%S)
out=${out:-results/$run_id}
[ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] &&
	err "--out $out exists and is not empty: give a new directory (a run's files are never mixed with another's)"

start=$(date +%s)
# the commit the run ran, taken now: the tree may move while it runs
commit="$(git rev-parse --short HEAD 2>/dev/null || echo -)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
stage() { echo "[$(date +%T) +$(($(date +%s) - start))s] $*"; }
need_packages "${HARNESS_PACKAGES[@]}"
need_liburing_src
stage "build: longpin and longpin-compare"
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null && cmake --build build -j"$(nproc)" >/dev/null ||
	err "the harness does not build: run cmake --build build to see why"
mkdir -p "$out/raw" || err "--out $out: cannot create it"
work=$(mktemp -d "${TMPDIR:-/tmp}/longpin-run.XXXXXX")
lanes=()	# pids of the lanes running in the background
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
# killtree PID...: SIGTERM to each process and its descendants, parents
# first, so that a lane's shell ends before it could report its boot as
# failed (a non-interactive shell's background children ignore SIGINT:
# Ctrl-C must stop their QEMUs itself; longpin-vm kills its QEMU on TERM)
killtree() {
	local p
	for p; do
		kill -TERM "$p" 2>/dev/null
		killtree $(pgrep -P "$p" 2>/dev/null)
	done
}
trap 'echo; stage "interrupted: what was written so far is in $out"; killtree "${lanes[@]}"; wait; exit 130' INT TERM

# A lane is one boot (or a host run) in the background: its output in
# raw/LANE.log (the guest's KTAP lines, longpin-vm's stage lines), its
# status in $work/LANE.rc. status_line prints every lane's phase while
# they run.
lane() { # NAME FUNCTION ARGS...
	local name=$1
	shift
	(
		rc=0
		"$@" >"$out/raw/$name.log" 2>&1 || rc=$?
		echo $rc >"$work/$name.rc"
	) &
	lanes+=($!)
	echo "$name" >>"$work/lanes"
	stage "$name: started (log $out/raw/$name.log)"
}
# the phase of a lane: its guest's last "# ..." header, or longpin-vm's
# last stage line; KTAP counts so far
lane_status() {
	local log=$out/raw/$1.log ok nok skip ph
	[ -f "$work/$1.rc" ] && { echo "$1 done (exit $(cat "$work/$1.rc"))"; return; }
	ok=$(grep -c '^ok [0-9]' "$log" 2>/dev/null) nok=$(grep -c '^not ok' "$log" 2>/dev/null)
	skip=$(grep -c '^ok [0-9].*# SKIP' "$log" 2>/dev/null)
	ph=$(grep -E '^# [a-z]|^\[[0-9:]+ \+[0-9.]+s\] ' "$log" 2>/dev/null | tail -n 1 | sed 's/^\[[^]]*\] //' | cut -c1-60)
	echo "$1: ${ph:-starting}; $((ok - skip)) ok, $nok not ok, $skip skip"
}
# wait for the lanes, a status line every 30 s (LONGPIN_STATUS_S) with
# the time so far and, from the last run of this mode here, the time to go
wait_lanes() {
	local every=${LONGPIN_STATUS_S:-30} n=0 l est eta
	est=$(cat "$cache/timings/run-$mode-$kernels" 2>/dev/null)
	while [ -n "$(jobs -rp)" ]; do
		sleep 1
		n=$((n + 1))
		[ $((n % every)) = 0 ] || continue
		eta=
		[ -n "$est" ] && eta=", about $((est - ($(date +%s) - start) > 0 ? est - ($(date +%s) - start) : 0)) s to go (the last run of this mode took $est s)"
		stage "status$eta:"
		while read -r l; do echo "    $(lane_status "$l")"; done <"$work/lanes"
	done
	wait
}

# host: the harness and benchmarks on this machine's own kernel, no VM
run_host() {
	local dir rc=0
	dir=$(mktemp -d "$repo/build/files.XXXXXX")
	# --contract host=NAME (or NAME): every longpin here judges by NAME
	[ -z "$(kcontract host)" ] || { LONGPIN_EXPECT=$(kcontract host); export LONGPIN_EXPECT; }
	if [ $verdicts = 1 ]; then
		LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir LONGPIN_ARGS="--cycles 3" \
			sh vm/guest/matrix.sh "$out/host.csv" || rc=1
		LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir \
			sh vm/guest/lifetime.sh "$out/host.csv" reclaim reclaim-pinned lazyfree || rc=1
	fi
	if [ $bench = 1 ]; then
		mkdir -p "$out/bench"
		LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir "${bench_env[@]}" \
			sh vm/guest/bench.sh "$out/bench/host.csv" || rc=1
	fi
	rm -rf "$dir"
	return $rc
}

# the verdicts of a VM kernel: one boot, the phases of vm/guest/run.sh,
# its matrix.csv to <kernel>.csv; in full mode then a q35 boot for
# --pinner vfio, whose rows join the same CSV
run_verdicts() {
	local k=$1 res rc=0 phases=(matrix pinners reclaim repro) adds pinners="gup-fast gup" ko
	res=$work/$k
	adds=(--add "$repo/build/lp-runas:/usr/bin/lp-runas")
	[ -x build/fixed-buf-unpin-dirty ] &&
		adds+=(--add "$repo/build/fixed-buf-unpin-dirty:/usr/bin/fixed-buf-unpin-dirty"
			--add "$repo/build/liburing-test:/opt/liburing-test")
	if [ $mode = full ]; then
		pinners="gup-fast gup rdma"
		[ $lifetime = 1 ] && phases+=(lifetime)
		[ $nofio = 0 ] && { adds+=(--fio); phases+=(fio); }
	fi
	[ "$bclock" = wall ] && [ $bench = 1 ] && benches "$k" && phases+=(bench)
	mapfile -t ko < <(kopts "$k")
	LONGPIN=$repo/build/longpin vm/longpin-vm run "${ko[@]}" --timeout 3600 \
		--out "$res" "${adds[@]}" -- env LONGPIN_LT_CYCLES=10000 LONGPIN_PINNERS="$pinners" \
		"${bench_env[@]}" sh /opt/longpin/run.sh "${phases[@]}" || rc=$?
	[ -f "$res/matrix.csv" ] && cp "$res/matrix.csv" "$out/$k.csv"
	[ -f "$res/bench.csv" ] && { mkdir -p "$out/bench"; cp "$res/bench.csv" "$out/bench/$k.csv"; }
	[ -f "$res/lifetime.csv" ] && cp "$res/lifetime.csv" "$out/lifetime-$k.csv"
	[ -f "$res/repro.txt" ] && cp "$res/repro.txt" "$out/raw/repro-$k.txt"
	[ -f "$res/repro-runtests.txt" ] && cp "$res/repro-runtests.txt" "$out/raw/repro-runtests-$k.txt"
	if [ -d "$res/fio" ]; then
		# fio's own JSON, compressed (~30x): kept to re-import, not to read
		tar -C "$res" --transform "s|^fio|fio-$k|" -cJf "$out/raw/fio-$k.tar.xz" fio
		bash fio-jobs/fio2csv.sh "$res/fio" "$out/$k.csv" || rc=1
	fi
	if [ $mode = full ]; then
		stage "kernel $k: --pinner vfio (a q35 boot with an IOMMU)"
		LONGPIN=$repo/build/longpin vm/longpin-vm run "${ko[@]}" --vfio --timeout 1800 \
			--out "$res-vfio" -- env LONGPIN_PINNERS=vfio sh /opt/longpin/run.sh pinners || rc=$?
		if [ -f "$res-vfio/matrix.csv" ]; then
			if [ -f "$out/$k.csv" ]; then tail -n +2 "$res-vfio/matrix.csv" >>"$out/$k.csv"
			else cp "$res-vfio/matrix.csv" "$out/$k.csv"; fi
		fi
	fi
	[ -f "$out/$k.csv" ] || { echo "run.sh: kernel $k produced no results (exit $rc)" >&2; return 1; }
	# the release and contract its rows were judged by
	stage "kernel $k: $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print "release " $c["kernel"] ", contract " $c["contract"]; exit }' "$out/$k.csv")"
	return $rc
}

# the benchmarks under -icount: a boot of their own per repeat; their CSV
# to bench/<kernel>.csv, or bench/rI/<kernel>.csv with --repeat. Counted
# in instructions, their figures do not depend on what else runs.
# bench_slot: at most one benchmark (4 GiB) or torture boot per core
# runs: the lane holds the lock of a free slot until it ends
bench_slot() {
	local s fd
	while :; do
		for ((s = 0; s < $(nproc); s++)); do
			exec {fd}>"$work/slot-$s"
			flock -n "$fd" && return 0
			exec {fd}>&-
		done
		sleep 2
	done
}
run_bench() { # KERNEL I
	local k=$1 i=$2 res dst rc=0 con ko
	res=$work/$k-bench$i dst=$out/bench/$k.csv
	bench_slot
	mkdir -p "$out/bench"
	[ "$repeat" = 1 ] || { mkdir -p "$out/bench/r$i"; dst=$out/bench/r$i/$k.csv; }
	# 4 GiB: the stall's 1 GiB buffer, its page array and bvecs, beside
	# the ram disks and huge pages of the guest's set-up
	mapfile -t ko < <(kopts "$k")
	LONGPIN=$repo/build/longpin vm/longpin-vm run "${ko[@]}" --icount "$ICOUNT_SHIFT" --mem 4G \
		--timeout 7200 --out "$res" -- env "${bench_env[@]}" sh /opt/longpin/run.sh bench || rc=$?
	if [ -f "$res/bench.csv" ]; then
		cp "$res/bench.csv" "$dst"
		[ -f "$res/bench-numa.txt" ] && cp "$res/bench-numa.txt" "${dst%.csv}-numa.txt"
		[ -f "$res/bench-cpu.txt" ] && cp "$res/bench-cpu.txt" "${dst%.csv}-cpu.txt"
	else
		con=$(sed -n 's/.*console log \([^ ]*\).*/\1/p' "$out/raw/bench-$k-$i.log" | head -n1)
		[ -n "$con" ] && [ -f "$con" ] && cp "$con" "$out/raw/bench-$k-$i.console.log"
		echo "run.sh: kernel $k produced no benchmark in boot $i (exit $rc)" >&2
		[ $rc != 0 ] || rc=1
	fi
	return $rc
}

# the cost model of a kernel's 64 MiB registration (scripts/cost-profile.sh:
# instructions, atomics, misses of a modelled cache, modelled cycles per
# page) into bench/cost-<kernel>.txt, with the calibration it used
run_cost() {
	local k=$1
	mkdir -p "$out/bench"
	bench_slot
	LONGPIN=$repo/build/longpin scripts/cost-profile.sh "$k" 64M 20 >"$out/bench/cost-$k.txt" || return 1
	cp "${LONGPIN_CALIB:-$cache/calib.txt}" "$out/bench/calib.txt"
}
# the hardware anchor: this machine's own kernel, natively, registering a
# written 64 MiB buffer 20 times, 7 processes (bench/native.csv)
run_native() {
	local i
	mkdir -p "$out/bench"
	for i in 1 2 3 4 5 6 7; do
		build/longpin register --mem anon --size 64M --prefault write --cycles 20 --no-io \
			--quiet --csv "$out/bench/native.csv" || return 1
	done
}

# torture: one boot per kernel, longpin torture on every memory type
# (vm/guest/torture.sh), the rows to torture-<kernel>.csv
run_torture() {
	local k=$1 res rc=0 secs=$tsecs ko
	res=$work/$k
	[ -n "$secs" ] || { secs=30; [[ $k == *-debug ]] && secs=60; }
	# one torture guest per core: its operations' floors are counts of
	# what it did in its seconds
	bench_slot
	mapfile -t ko < <(kopts "$k")
	LONGPIN=$repo/build/longpin vm/longpin-vm run "${ko[@]}" --timeout $((40 * secs + 900)) \
		--out "$res" -- env LONGPIN_TORTURE_SECONDS="$secs" \
		sh /opt/longpin/run.sh torture || rc=$?
	[ -f "$res/torture.csv" ] || { echo "run.sh: kernel $k produced no torture rows (exit $rc)" >&2; return 1; }
	cp "$res/torture.csv" "$out/torture-$k.csv"
	return $rc
}

# main's benchmark: 64 MiB only; the others: the whole set
bench_env=()
[ $mode = main ] && bench_env=(LONGPIN_BENCH_SIZES=64M LONGPIN_STALL_SIZES=64M)

# the accelerator of every guest of this run, proved by a boot of the
# first VM kernel (vm/lib/accel.sh), said once and kept in RUN.txt
accel_line=
for k in "${list[@]}"; do
	[ "$k" = host ] && continue
	accel_line=$(vm/longpin-vm accel --kernel "$(kspec "$k")") || exit $?
	stage "$accel_line"
	break
done

# every lane at once: the guests' figures are instructions (-icount) or
# verdicts, neither of which moves with the host's load
for k in "${list[@]}"; do
	if [ "$k" = host ]; then lane host run_host; continue; fi
	case $mode in
	torture) lane "torture-$k" run_torture "$k" ;;
	*)
		[ $verdicts = 1 ] && lane "$k" run_verdicts "$k"
		if [ $bench = 1 ] && [ "$bclock" = icount ]; then
			if benches "$k"; then
				for ((i = 1; i <= repeat; i++)); do lane "bench-$k-$i" run_bench "$k" "$i"; done
				[ $mode = main ] || [[ $k == tree-* ]] || lane "cost-$k" run_cost "$k"
			else
				stage "kernel $k: no benchmarks: Debian's config, not ours, so no ratio against our kernels would mean anything"
			fi
		fi ;;
	esac
done
# the full and bench modes' hardware anchor, after the guests: natively
# on this machine, beside nothing of ours
if [ $bench = 1 ] && [ $mode != main ] && [ "$(id -u)" = 0 ]; then
	wait_lanes
	lane native run_native
fi
wait_lanes
failed=()
while read -r l; do
	rc=$(cat "$work/$l.rc" 2>/dev/null || echo "?")
	[ "$rc" = 0 ] || failed+=("$l (exit $rc)")
done <"$work/lanes"
mkdir -p "$cache/timings"
[ ${#failed[@]} = 0 ] && echo $(($(date +%s) - start)) >"$cache/timings/run-$mode-$kernels"

csvs=() bcsvs=() tcsvs=()
for k in "${list[@]}"; do
	[ -f "$out/torture-$k.csv" ] && tcsvs+=("$out/torture-$k.csv")
	[ -f "$out/$k.csv" ] && csvs+=("$out/$k.csv")
	[ -f "$out/bench/$k.csv" ] && bcsvs+=("$out/bench/$k.csv")
	for ((i = 1; i <= repeat && repeat > 1; i++)); do
		[ -f "$out/bench/r$i/$k.csv" ] && bcsvs+=("$out/bench/r$i/$k.csv")
	done
done
if [ ${#tcsvs[@]} -ge 1 ]; then
	build/longpin torture-report "${tcsvs[@]}" >"$out/torture.md" || failed+=("torture report")
	stage "torture: $out/torture.md"
fi
if [ ${#csvs[@]} -ge 2 ]; then
	stage "compare: $out/report.md, $out/plots/"
	build/longpin-compare --report "$out/report.md" --plots "$out/plots" "${csvs[@]}" >/dev/null ||
		failed+=("compare")
fi
if [ ${#bcsvs[@]} -ge 2 ]; then
	ropt=()
	[ "$repeat" = 1 ] || ropt=(--repeats)	# bench/rI/K.csv: repeats of kernel K
	build/longpin-compare "${ropt[@]}" --report "$out/bench/report.md" --plots "$out/bench/plots" "${bcsvs[@]}" \
		>"$out/bench/compare.txt" || failed+=("bench compare")
	# the cost model's tables and the native anchor, beside the report's
	# instruction counts
	if compgen -G "$out/bench/cost-*.txt" >/dev/null; then
		{
			printf '\n## The cost model, per page (scripts/cost-profile.sh)\n\n'
			for c in "$out"/bench/cost-*.txt; do printf '```\n'; cat "$c"; printf '```\n\n'; done
			if [ -f "$out/bench/native.csv" ]; then
				printf 'Native, this machine (no VM), `longpin register --mem anon --size 64M --prefault write --cycles 20`, ns per page:\n\n'
				python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])): print("- kernel %s: registration %s (median of the cycles), unregistration %s" % (r["kernel"], r["cycle_reg_ns_med"], r["unreg_ns_per_page"]))' "$out/bench/native.csv"
			fi
		} >>"$out/bench/report.md"
	fi
	stage "benchmarks: $out/bench/report.md"
fi
summary=$(python3 compare/summary.py "$out" "$kernels") || failed+=("summary")
took=$(($(date +%s) - start))
{
	echo "command: ${LONGPIN_CACHE:+LONGPIN_CACHE=$LONGPIN_CACHE }./run.sh $args"
	echo "mode: $mode"
	echo "output: $out"
	echo "commit: $commit"
	echo "date: $(date -u +%FT%TZ)"
	echo "took: $((took / 60)) min $((took % 60)) s"
	echo "host: $(uname -r), $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)" GiB"}' /proc/meminfo)"
	[ -z "$accel_line" ] || echo "$accel_line"
	[ $bench = 0 ] || echo "benchmarks: $([ "$bclock" = icount ] &&
		echo "-icount shift=$ICOUNT_SHIFT (guest time counts instructions), $repeat boot(s) per kernel" ||
		echo "wall clock, in the verdicts' boot")"
	for c in "${csvs[@]}" "${tcsvs[@]}"; do
		echo "kernel $(basename "$c" .csv | sed 's/^torture-//'): $(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])), {}).get("kernel", "-"))' "$c")"
	done
	vm/longpin-vm kernels 2>/dev/null | grep -E '^(stock|patched|debian)'
	for s in kernel-patches/*/series; do
		echo "$s: $(grep -v '^#' "$s" | grep -c .) patches"
	done
	echo "failed: ${failed[*]:-none}"
	echo
	echo "$summary"
} >"$out/RUN.txt"
echo
echo "$summary"
stage "done in $((took / 60)) min $((took % 60)) s: $out (failed: ${failed[*]:-none})"
[ ${#failed[@]} = 0 ]
