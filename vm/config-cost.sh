#!/usr/bin/env bash
# config-cost.sh FRAGMENT [DIR...]: what adding the options of FRAGMENT to
# the stock kernel's config costs in a cold build. With DIRs (e.g. net/
# drivers/infiniband/): the stock config with FRAGMENT merged (olddefconfig,
# every option of FRAGMENT checked), `make prepare`, then the cold build
# (no ccache) of those directories alone, timed: a lower bound of the
# added cost that takes minutes, not two whole kernels. Without DIRs: two
# whole cold builds side by side, without and with FRAGMENT, and their
# difference and bzImage sizes. Nothing is kept. Used for issue 15's rule:
# rxe (vm/rxe.config) joins vm/kernel.config only if it costs at most 90 s
# of cold build.
set -euo pipefail
frag=$(readlink -f "${1:?usage: config-cost.sh FRAGMENT}")
[[ -f $frag ]] || { echo "config-cost.sh: no file $1: give a config fragment" >&2; exit 2; }
tree=${LONGPIN_CACHE:-$HOME/.cache/longpin}/trees/stock
[[ -f $tree/obj/.config ]] || { echo "config-cost.sh: no stock build in $tree: run vm/longpin-vm build --kernel stock first" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/longpin-config-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
src=$tree/src
now() { date +%s.%N; }
say() { echo "[$(date +%T)] $*"; }

for v in base with; do
	mkdir -p "$tmp/$v"
	cp "$tree/obj/.config" "$tmp/$v/.config"
	if [[ $v == with ]]; then
		"$src/scripts/kconfig/merge_config.sh" -m -O "$tmp/$v" "$tmp/$v/.config" "$frag" >/dev/null
	fi
	make -s -C "$src" O="$tmp/$v" olddefconfig >/dev/null
done
lost=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | while IFS= read -r l; do
	grep -qxF "$l" "$tmp/with/.config" || echo "${l%%=*}"
done)
[[ -z $lost ]] || { echo "config-cost.sh: options lost in olddefconfig (missing dependencies?): $lost" >&2; exit 1; }
shift
if (($#)); then
	say "make prepare (with ${frag##*/})"
	make -s -C "$src" O="$tmp/with" CC=gcc -j"$(nproc)" prepare >"$tmp/prep.log" 2>&1 ||
		{ tail -n 20 "$tmp/prep.log" >&2; exit 1; }
	say "cold build of $* (make -j$(nproc), no ccache)"
	t0=$(now)
	make -s -C "$src" O="$tmp/with" CC=gcc -j"$(nproc)" "$@" >"$tmp/dirs.log" 2>&1 ||
		{ tail -n 20 "$tmp/dirs.log" >&2; exit 1; }
	t1=$(now)
	printf '%s: cold build of %s with %s: %.0f s (%d objects)\n' "$(date +%T)" "$*" \
		"${frag##*/}" "$(echo "$t1 - $t0" | bc)" "$(find "$tmp/with" -name '*.o' -newer "$tmp/prep.log" | wc -l)"
	exit 0
fi
secs=() size=()
for v in base with; do
	say "cold build $v (make -j$(nproc) bzImage, no ccache)"
	t0=$(now)
	make -s -C "$src" O="$tmp/$v" CC=gcc -j"$(nproc)" bzImage >"$tmp/$v.log" 2>&1 ||
		{ tail -n 20 "$tmp/$v.log" >&2; exit 1; }
	t1=$(now)
	secs[${#secs[@]}]=$(echo "$t1 - $t0" | bc)
	size[${#size[@]}]=$(stat -c %s "$tmp/$v/arch/x86/boot/bzImage")
	say "cold build $v: ${secs[-1]} s, bzImage ${size[-1]} bytes"
done
printf 'base %.0f s, with %s %.0f s: +%.0f s; bzImage %d -> %d bytes\n' \
	"${secs[0]}" "${frag##*/}" "${secs[1]}" "$(echo "${secs[1]} - ${secs[0]}" | bc)" \
	"${size[0]}" "${size[1]}"
