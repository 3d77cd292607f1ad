#!/bin/bash
# bisect-build.sh [BASE...]: build the kernel after each patch of a base's
# series, so that every patch is known to build on its own (git bisect
# stays usable). BASE: 6.1 or 6.12 (default: both):
#  - x86: the whole patched kernel, with vm/longpin-vm (incremental: only
#    what a patch touches is rebuilt, ccache helps);
#  - arm without an MMU (stm32_defconfig, Debian's gcc-arm-linux-gnueabi):
#    the objects of the files the series touches that such a kernel
#    builds (mm/gup.o, mm/vmstat.o, ...), from the same patched tree.
# A base's patches are those of its series directories in the order
# vm/longpin-vm applies them (SERIES_61 and SERIES_612 there). Exit 1 naming the first
# patch that does not build, 2 on bad setup. Set LONGPIN_BISECT_NOMMU=0
# to skip the arm builds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../vm/longpin-vm
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
nommu=${LONGPIN_BISECT_NOMMU:-1}
cross=arm-linux-gnueabi-
# base -> its series directories, in order (read from SERIES_61 and
# SERIES_612 of vm/longpin-vm, the one list), the kernel built with them
# and the pristine tree longpin-vm unpacks its tarball into
series_of() { sed -n "s/^$1=(\(.*\))\$/\1/p" "$vm"; }
declare -A sets=([6.1]="$(series_of SERIES_61)" [6.12]="$(series_of SERIES_612)") \
	kernel=([6.1]=patched [6.12]=patched-6.12) pristine=([6.1]=stock [6.12]=stock-6.12)
for b in 6.1 6.12; do
	[[ -n ${sets[$b]} ]] || { echo "bisect-build: no series of $b in $vm" >&2; exit 2; }
done
bases=("$@")
((${#bases[@]})) || bases=(6.1 6.12)
for b in "${bases[@]}"; do
	[[ -n ${sets[$b]:-} ]] || { echo "bisect-build: unknown base '$b'; use one of: ${!sets[*]}" >&2; exit 2; }
done
if [ "$nommu" = 1 ] && ! command -v ${cross}gcc >/dev/null; then
	[ "$(id -u)" = 0 ] || { echo "bisect-build: no ${cross}gcc: run as root: apt-get install -y --no-install-recommends gcc-arm-linux-gnueabi" >&2; exit 2; }
	echo "[$(date +%T)] bisect-build: installing gcc-arm-linux-gnueabi"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc-arm-linux-gnueabi >/dev/null
fi
mkdir -p "$cache/tmp"
work=$(mktemp -d "$cache/tmp/bisect.XXXXXX")
trap 'rm -rf "$work"' EXIT

# nommu_build BASE: mm/gup.o and the objects of the C files the prefix
# touches that this configuration builds (io_uring only with
# CONFIG_IO_URING; vfio's type1 backend never: it needs an MMU), from a
# tree of their own: the pristine tree (hard
# links) plus the prefix. Not the x86 kernel's tree: when the prefix is
# the whole series, longpin-vm finds that kernel in its cache and leaves
# its tree as the previous prefix made it. Every file the base's series
# touches gets a fresh mtime, so that no object of another prefix is
# taken for up to date.
nommu_build() {
	local o built=() t0=$SECONDS src armobj p f
	src=$cache/trees/arm-nommu-$1/src armobj=$cache/trees/arm-nommu-$1/obj
	rm -rf "$src"
	mkdir -p "${src%/src}"
	cp -al "$cache/trees/${pristine[$1]}/src" "$src" || return 1
	while read -r p; do
		patch -s -p1 --fuzz=0 --no-backup-if-mismatch -d "$src" -i "$work/p/$p" || return 1
	done <"$work/p/series"
	for f in "${all_files[@]}"; do [ -e "$src/$f" ] && touch "$src/$f"; done
	arm() { make -s -C "$src" O="$armobj" ARCH=arm CROSS_COMPILE=$cross "$@"; }
	if [ ! -f "$armobj/.config" ]; then
		mkdir -p "$armobj"
		arm stm32_defconfig >/dev/null
	fi
	grep -q '^# CONFIG_MMU is not set' "$armobj/.config" ||
		{ echo "bisect-build: stm32_defconfig has an MMU?" >&2; return 1; }
	for o in $( (echo mm/gup.c; find "$work/p" -name '*.patch' -exec sed -n 's/^+++ b\/\(.*\.c\)$/\1/p' {} +) |
		sort -u | sed 's/\.c$/.o/'); do
		case $o in
		io_uring/*) grep -q '^CONFIG_IO_URING=y' "$armobj/.config" || continue ;;
		mm/mmap.o) continue ;; # no-MMU builds mm/nommu.c instead
		# vfio's type1 backend needs an MMU (VFIO_CONTAINER selects it only with one)
		drivers/vfio/vfio_iommu_type1.o) grep -q '^CONFIG_VFIO_IOMMU_TYPE1=y' "$armobj/.config" || continue ;;
		esac
		arm "$o" || return 1
		built+=("$o")
	done
	echo "[$(date +%T)] bisect-build: arm no-MMU (stm32_defconfig): ${built[*]} built in $((SECONDS - t0)) s"
}

for b in "${bases[@]}"; do
	patches=()
	for d in ${sets[$b]}; do
		while read -r p; do patches+=("$d/$p"); done < <(grep -v '^\s*#' "$here/$d/series" | grep -v '^\s*$')
	done
	[ ${#patches[@]} -gt 0 ] || { echo "bisect-build: the series of $b are empty" >&2; exit 2; }
	mapfile -t all_files < <(for p in "${patches[@]}"; do
		sed -n 's/^+++ b\/\([^[:space:]]*\).*/\1/p' "$here/$p"; done | sort -u)
	rm -rf "$work/p"
	mkdir -p "$work/p"
	for ((i = 1; i <= ${#patches[@]}; i++)); do
		p=${patches[i - 1]}
		mkdir -p "$work/p/$(dirname "$p")"
		cp "$here/$p" "$work/p/$p"
		printf '%s\n' "${patches[@]:0:i}" >"$work/p/series"
		echo "[$(date +%T)] bisect-build: $b $i/${#patches[@]} $p"
		t0=$SECONDS
		if ! LONGPIN_PATCHES=$work/p "$vm" build --kernel "${kernel[$b]}"; then
			echo "bisect-build: the $b series does not build for x86 after $p" >&2
			exit 1
		fi
		echo "[$(date +%T)] bisect-build: x86 built in $((SECONDS - t0)) s"
		if [ "$nommu" = 1 ] && ! nommu_build "$b"; then
			echo "bisect-build: the $b series does not build for arm without an MMU after $p" >&2
			exit 1
		fi
	done
	echo "bisect-build: all ${#patches[@]} prefixes of the $b series build (x86$([ "$nommu" = 1 ] && echo ", arm no-MMU"))"
done
