#!/bin/bash
# chunk-study.sh [--chunks "128 512 2048"] [--out DIR]
#
# Chooses IO_PIN_CHUNK (pages per pin_user_pages_fast() call) by
# measurement. Builds the series once per chunk size (the 6.1 carry's
# "io_uring/rsrc: pin fixed buffers in chunks of 128 pages", its *-in-chunks-*
# file, with its #define changed, in a temporary copy of kernel-patches/)
# and once without it (the kernel patched-unchunked), boots each in turn in
# one command and runs vm/guest/bench.sh inside: registration cost of
# written and untouched anon and, per registration, the longest mmap+munmap
# call of a sibling thread on another CPU. longpin-compare puts them side
# by side, the unchunked series as baseline. Output: DIR/chunk-N.csv,
# DIR/unchunked.csv, DIR/compare.txt, DIR/RUN.txt (default
# results/<date>-chunk-study). Run time ~3 min per kernel once built; a
# build that only changes io_uring/rsrc.c takes a few minutes (ccache).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
repo=$PWD
chunks="128 512 2048"
out=
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--chunks) chunks=${2:?--chunks needs a list such as "128 512 2048"}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "chunk-study.sh: unknown argument '$1': see --help" >&2; exit 2 ;;
	esac
done
for n in $chunks; do
	case $n in
	''|*[!0-9]*|0) echo "chunk-study.sh: chunk '$n' is not a positive number of pages: give e.g. --chunks \"128 512\"" >&2; exit 2 ;;
	esac
done
# the patched kernel's series directories, in order (SERIES_61 in vm/longpin-vm)
sets="6.1-stable 6.1"
chunk_patch=$(cd kernel-patches && grep -l '^+#define IO_PIN_CHUNK' 6.1/0*.patch | head -n1)
[ -n "$chunk_patch" ] || { echo "chunk-study.sh: no patch in kernel-patches/6.1/ defines IO_PIN_CHUNK: nothing to vary" >&2; exit 2; }

start=$(date +%s)
stage() { echo "[$(date +%T) +$(( $(date +%s) - start ))s] $*"; }
out=${out:-results/$(date -u +%Y%m%d-%H%M%S)-chunk-study}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/longpin-chunks.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'echo; stage "interrupted: CSVs so far are in $out"; exit 130' INT TERM
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null && cmake --build build -j"$(nproc)" >/dev/null ||
	{ echo "chunk-study.sh: the harness does not build: run cmake --build build to see why" >&2; exit 2; }

# bench KERNEL LABEL [PATCHDIR]: boot KERNEL (built from PATCHDIR/series,
# else from kernel-patches/), bench.sh into $out/LABEL.csv
bench() {
	local k=$1 label=$2 res=$work/$2 rc=0
	stage "$label: kernel $k${3:+ from $3}"
	env ${3:+LONGPIN_PATCHES="$3"} LONGPIN="$repo/build/longpin" \
		vm/longpin-vm run --kernel "$k" --timeout 1800 --out "$res" \
		-- env LONGPIN_BENCH_SIZES="16M 64M 256M" \
		sh -c 'LONGPIN_FILE_DIR= sh /opt/longpin/bench.sh /results/bench.csv' || rc=$?
	[ -f "$res/bench.csv" ] || { echo "chunk-study.sh: $label produced no CSV (exit $rc)" >&2; return 1; }
	cp "$res/bench.csv" "$out/$label.csv"
	return $rc
}

failed=()
bench patched-unchunked unchunked || failed+=(unchunked)
csvs=("$out/unchunked.csv")
for n in $chunks; do
	dir=$work/patches-$n
	mkdir -p "$dir"
	for d in $sets; do
		cp -r "kernel-patches/$d" "$dir/"
		grep -v '^\s*#' "kernel-patches/$d/series" | grep -v '^\s*$' | sed "s|^|$d/|"
	done >"$dir/series"
	sed -i "s/^+#define IO_PIN_CHUNK\t.*/+#define IO_PIN_CHUNK\t$n/" "$dir/$chunk_patch"
	bench patched "chunk-$n" "$dir" || failed+=("chunk-$n")
	[ -f "$out/chunk-$n.csv" ] && csvs+=("$out/chunk-$n.csv")
done
{
	echo "command: kernel-patches/chunk-study.sh --chunks \"$chunks\""
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -r), $(nproc) cores, $(awk '/MemTotal/ {print int($2/1048576)" GiB"}' /proc/meminfo)"
	echo "varied: IO_PIN_CHUNK in $(basename "$chunk_patch"); unchunked: the series without it"
	for c in "${csvs[@]}"; do
		echo "kernel $(basename "$c" .csv): $(awk -F, 'NR == 2 {print $4; exit}' "$c")"
	done
	echo "failed: ${failed[*]:-none}"
} >"$out/RUN.txt"
[ -f "$out/unchunked.csv" ] && [ ${#csvs[@]} -ge 2 ] &&
	build/longpin-compare --report "$out/report.md" "${csvs[@]}" >"$out/compare.txt"
stage "done: $out/compare.txt (failed: ${failed[*]:-none})"
[ ${#failed[@]} = 0 ]
