#!/bin/bash
# bisect-build.sh: build the patched kernel after each patch of the series,
# so that every patch is known to build on its own (git bisect stays usable).
# Uses vm/longpin-vm (incremental: only what a patch touches is rebuilt,
# ccache helps). Exit 1 naming the first patch that does not build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../vm/longpin-vm
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
mapfile -t patches < <(grep -v '^\s*#' "$here/series" | grep -v '^\s*$')
[ ${#patches[@]} -gt 0 ] || { echo "bisect-build: $here/series is empty" >&2; exit 2; }
mkdir -p "$cache/tmp"
work=$(mktemp -d "$cache/tmp/bisect.XXXXXX")
trap 'rm -rf "$work"' EXIT
for ((i = 1; i <= ${#patches[@]}; i++)); do
	p=${patches[i - 1]}
	cp "$here/$p" "$work/"
	printf '%s\n' "${patches[@]:0:i}" >"$work/series"
	echo "[$(date +%T)] bisect-build: $i/${#patches[@]} $p"
	if ! LONGPIN_PATCHES=$work "$vm" build --kernel patched; then
		echo "bisect-build: the series does not build after $p" >&2
		exit 1
	fi
done
echo "bisect-build: all ${#patches[@]} prefixes of the series build"
