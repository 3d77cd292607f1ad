#!/bin/bash
# The main job: the whole matrix of memory types and prefaults on the
# selected kernels, one CSV per kernel in results/<run-id>/.
#   ./run.sh [--kernels host] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")"
. scripts/deps.sh

kernels=host
out=
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=${2:?--kernels needs a list}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	-h|--help) sed -n '2,4p' "$0"; exit 0 ;;
	*) echo "longpin: unknown argument '$1': see ./run.sh --help" >&2; exit 2 ;;
	esac
done
need_packages "${HARNESS_PACKAGES[@]}"
cmake -S . -B build -DLONGPIN_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
run_id=$(date -u +%Y%m%d-%H%M%S)
out=${out:-results/$run_id}
mkdir -p "$out"
start=$(date +%s)
stage() { echo "[$(date +%T) +$(( $(date +%s) - start ))s] $*"; }

run_host() {
	local dir
	dir=$(mktemp -d "$PWD/build/files.XXXXXX")
	LONGPIN=build/longpin LONGPIN_FILE_DIR=$dir sh harness/matrix.sh "$out/host.csv"
	local rc=$?
	rmdir "$dir"
	return $rc
}

failed=0
IFS=, read -ra list <<<"$kernels"
for k in "${list[@]}"; do
	stage "kernel $k: matrix -> $out/$k.csv"
	case $k in
	host) run_host || failed=1 ;;
	*) echo "longpin: unknown kernel '$k': give host" >&2; exit 2 ;;
	esac
done
{
	echo "command: ./run.sh --kernels $kernels"
	echo "date: $(date -u +%FT%TZ)"
	echo "host kernel: $(uname -r)"
} >"$out/RUN.txt"
stage "done: $out"
exit $failed
