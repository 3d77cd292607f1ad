# shellcheck shell=bash
# longpin-vm, phase: user. The kernels a user brings, given wherever a
# kernel name goes (run, shell, build, check --kernel; ./run.sh --kernels):
#   image:PATH  a bzImage, its config and modules found beside it, or a
#               linux-image .deb (unpacked into the cache, never installed)
#   tree:DIR    a kernel source tree, configured as ours are (tinyconfig,
#               or LONGPIN_TREE_CONFIG, + vm/kernel.config + vm/base-BASE.config)
#               and built out of tree (make O=) into the cache, keyed by
#               what DIR holds; nothing is ever written into DIR
# A Debian kernel split into packages (from 6.17 on: linux-binary-REL, the
# image; linux-modules-REL; linux-base-REL, its config; linux-image-REL
# only depends on them) is given as the binary or the image package with
# the others beside it, or as all of them: image:A.deb:B.deb:C.deb.
# Each gets a label, a file name derived from it (image-NAME, tree-NAME:
# the name of its CSV, the guest's longpin.kernel), and a check before
# any boot: a kernel image at all? what does its config lack, and what
# does that cost longpin? (docs/your-kernel.md)

USER_DIR=$CACHE/user
# how a tree is configured and built: bump when that changes (cache keys)
TREE_RECIPE="v1: tinyconfig or LONGPIN_TREE_CONFIG; merge_config.sh -m fragments; olddefconfig; make O= bzImage"
declare -A USER_KIND=() USER_PATH=() USER_REL=() USER_DEBS=()
USER_IMG='' USER_CONFIG='' USER_CONFIG_FROM='' USER_MODROOT='' USER_LACKS='' NVDIMM_OFF=''

is_user_spec() { [[ $1 == image:* || $1 == tree:* ]]; }
is_user() { [[ -n ${USER_KIND[$1]:-} ]]; }

# safe_name STRING: STRING as a file name: [A-Za-z0-9._+-], the rest '-'
safe_name() {
	local s
	s=$(printf '%s' "$1" | tr -c 'A-Za-z0-9._+-' '-' | tr -s '-')
	s=${s#-}
	s=${s%-}
	printf '%s' "${s:0:64}"
}
# user_abs PATH: PATH with a leading ~ expanded, made absolute
user_abs() {
	local p=$1
	# shellcheck disable=SC2088 # a literal ~, expanded here
	[[ $p == "~" || $p == "~/"* ]] && p=$HOME${p#"~"}
	[[ $p == /* ]] || p=$PWD/$p
	printf '%s' "$p"
}

# ---------------------------------------------------------------- images
bz_u16() { od -An -tu2 -j"$2" -N2 "$1" 2>/dev/null | tr -d ' '; } # FILE OFFSET
# bz_release FILE: the first word of a bzImage's kernel_version string
bz_release() {
	local p
	p=$(bz_u16 "$1" 526) # 0x20e: its offset - 0x200
	[[ -n $p ]] && ((p > 0)) || return 0
	dd if="$1" bs=1 skip=$((p + 512)) count=200 2>/dev/null | tr '\0' '\n' | head -n1 | cut -d' ' -f1
}
# bz_check FILE WHAT: exit 2, one line, unless FILE is a 64-bit x86 bzImage
bz_check() {
	local f=$1 what=$2 proto xlf
	[[ $(dd if="$f" bs=1 skip=514 count=4 2>/dev/null | tr -d '\0') == HdrS ]] ||
		usage_err "$what is not a kernel image: no bzImage header (\"HdrS\" at offset 0x202); give an x86 bzImage (arch/x86/boot/bzImage, /boot/vmlinuz-*) or a linux-image .deb"
	proto=$(bz_u16 "$f" 518) xlf=$(bz_u16 "$f" 566)
	((proto >= 0x20c)) ||
		usage_err "$what: boot protocol $((proto >> 8)).$((proto & 255)) is older than 2.12 (Linux 3.8): longpin's guest needs a 64-bit kernel that says so"
	((xlf & 1)) || usage_err "$what is a 32-bit kernel (no XLF_KERNEL_64 in its header): the guest's programs are x86-64"
}

# ---------------------------------------------------------------- trees
# tree_version DIR: VERSION.PATCHLEVEL.SUBLEVEL of its Makefile
tree_version() {
	awk -F'= *' '/^VERSION *=/ { v = $2 } /^PATCHLEVEL *=/ { p = $2 } /^SUBLEVEL *=/ { s = $2 }
		END { if (v != "") print v "." p "." (s == "" ? 0 : s) }' "$1/Makefile"
}
# base_of RELEASE: the base whose fragments a kernel of RELEASE takes
# (base_fragment): 7.2 from 7.0 on (no PREEMPT_VOLUNTARY), 6.12 from 6.9
# on (the mitigations' MITIGATION_* names), else 6.1
base_of() {
	local maj min
	IFS=. read -r maj min _ <<<"$1"
	if ((maj >= 7)); then echo "$DEB_UNSTABLE_BASE"
	elif ((maj == 6 && min >= 9)); then echo 6.12
	else echo 6.1; fi
}
tree_fragments() { echo "$FRAGMENT"; base_fragment "$(kernel_base "$1")"; }
# tree_content DIR: a key of what DIR holds, read-only and fast. In a git
# work tree (DIR its top): HEAD, then each path git status reports (changed,
# staged, untracked) with its size and mtime; GIT_OPTIONAL_LOCKS=0 keeps
# git from refreshing the index (its one write). Elsewhere, or where git
# will not read (another owner's tree): every file's path, size and mtime
# (make's own test of what changed).
tree_content() {
	local d=$1 head e
	if head=$(git -C "$d" rev-parse --verify -q HEAD 2>/dev/null) &&
		[[ $(git -C "$d" rev-parse --show-toplevel 2>/dev/null) == "$d" ]]; then
		echo "git $head"
		GIT_OPTIONAL_LOCKS=0 git -C "$d" status --porcelain=v1 -z --untracked-files=all --no-renames |
			while IFS= read -r -d '' e; do
				printf '%s ' "$e"
				stat -c '%s %.9Y' -- "$d/${e:3}" 2>/dev/null || echo gone
			done
	else
		echo "files"
		find "$d" -path "$d/.git" -prune -o ! -type d -printf '%P %s %T@\n' | LC_ALL=C sort
	fi
}
tree_key() { # LABEL
	{
		echo "$TREE_RECIPE"
		tree_content "${USER_PATH[$1]}"
		tree_fragments "$1" | xargs cat
		[[ -z ${LONGPIN_TREE_CONFIG:-} ]] || sha256sum <"$LONGPIN_TREE_CONFIG"
		gcc -dumpfullversion 2>/dev/null || true
	} | sha
}
# tree_build LABEL OUT: configure and build the tree into OUT (bzImage,
# config, release, source), in an O= directory of its path's own
tree_build() {
	local l=$1 out=$2 dir=${USER_PATH[$1]} w obj cfg cc=gcc frags=() lost=() o here=$PWD
	local bstart=${EPOCHREALTIME/./}
	w=$USER_DIR/trees/$l-$(printf '%s' "$dir" | sha)
	obj=$w/obj cfg=$w/cfg
	mkdir -p "$obj" "$cfg" "$CACHE/logs"
	printf '%s\n' "$dir" >"$w/source"
	LOG=$CACHE/logs/build-$l.log
	: >"$LOG"
	if command -v ccache >/dev/null; then
		export CCACHE_DIR=$CACHE/ccache
		mkdir -p "$CCACHE_DIR"
		cc="ccache gcc"
	fi
	mapfile -t frags < <(tree_fragments "$l")
	if [[ -n ${LONGPIN_TREE_CONFIG:-} ]]; then
		stage "build $l: configure ($LONGPIN_TREE_CONFIG + ${frags[*]#"$REPO/"}; $dir untouched: O=$w; log $LOG)"
		cp "$LONGPIN_TREE_CONFIG" "$cfg/.config"
	else
		stage "build $l: configure (tinyconfig + ${frags[*]#"$REPO/"}; $dir untouched: O=$w; log $LOG)"
		vq make -C "$dir" O="$cfg" tinyconfig || die "build $l: make tinyconfig failed (log $LOG)"
	fi
	# merge_config.sh makes its temp file in the working directory: ours
	mktmp
	cd "$TMPD" || die "no $TMPD"
	vq "$dir/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "${frags[@]}" ||
		die "build $l: merge_config.sh failed (log $LOG)"
	cd "$here" || true
	vq make -C "$dir" O="$cfg" olddefconfig || die "build $l: make olddefconfig failed (log $LOG)"
	while IFS= read -r o; do
		grep -qxF "$o" "$cfg/.config" || lost+=("${o%=y}")
	done < <(wanted_y "${frags[@]}")
	((${#lost[@]} == 0)) ||
		stage "build $l: options of the fragments this tree does not have (or whose dependencies it lacks): ${lost[*]}"
	cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"
	stage "build $l: make -j$NPROC bzImage (CC=\"$cc\", O=$obj)"
	build_progress_start "$l" "$obj"
	if ! vq make -C "$dir" O="$obj" CC="$cc" -j"$NPROC" bzImage; then
		build_progress_stop
		((VERBOSE)) || tail -n 40 "$LOG" >&2
		die "build $l: make failed (full log: $LOG)"
	fi
	build_progress_stop "$obj"
	rm -rf "$out.new"
	mkdir -p "$out.new"
	cp "$obj/arch/x86/boot/bzImage" "$out.new/bzImage"
	cp "$obj/.config" "$out.new/config"
	make -s -C "$dir" O="$obj" kernelrelease >"$out.new/release" 2>/dev/null || echo unknown >"$out.new/release"
	printf '%s\n' "$dir" >"$out.new/source"
	rm -rf "$out"
	mv "$out.new" "$out"
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -dt "$CACHE/kernels/$l"-???????????????? 2>/dev/null | tail -n +3 | xargs -r rm -rf
	stage "build $l: done in $(_fmt_s $(($(_now_us) - bstart))) s -> $out/bzImage ($(cat "$out/release"))"
}

# ---------------------------------------------------------------- packages
# deb_pkg FILE: the package a .deb is (exit 2 when dpkg-deb cannot read it)
deb_pkg() {
	dpkg-deb -f "$1" Package 2>/dev/null ||
		usage_err "image:$1 is not a Debian package (dpkg-deb cannot read it)"
}
# deb_set SPEC FIRST ARG: the packages of image:ARG, ARG being
# FIRST[:MORE.deb...]:
# DEB_FILES (their paths, one a line), DEB_PKG (the one holding the
# image), DEB_REL. A linux-image package with its image is whole; a
# linux-binary package, or a linux-image one that only depends on the
# split packages, takes linux-modules-REL and linux-base-REL from the
# files named after it, else from beside it (the newest version there).
deb_set() {
	local spec=$1 first=$2 rest='' pkg f rel m files=() named=() base dir
	pkg=$(deb_pkg "$first")
	[[ $3 == *:* ]] && rest=${3#*:}
	IFS=: read -ra named <<<"$rest"
	for f in "${named[@]}"; do
		f=$(user_abs "$f")
		[[ -f $f && $f == *.deb ]] || usage_err "$spec: '$f' is not a .deb file: give image:BINARY.deb[:MODULES.deb:BASE.deb]"
		files+=("$(readlink -f "$f")")
	done
	case $pkg in
	linux-image-*-dbg | linux-headers-* | linux-source-*)
		usage_err "$spec is the package $pkg: give the kernel's linux-image or linux-binary one" ;;
	linux-image-* | linux-binary-*) ;;
	*) usage_err "$spec is the package $pkg: give a linux-image or linux-binary one" ;;
	esac
	rel=${pkg#linux-image-}
	rel=${rel#linux-binary-unsigned-}
	rel=${rel#linux-binary-}
	rel=${rel%-unsigned}
	DEB_PKG=$pkg DEB_REL=$rel
	if [[ $pkg == linux-image-* ]] && dpkg-deb -c "$first" | grep -qE '/(boot/vmlinuz-|modules/[^/]+/vmlinuz)'; then
		DEB_FILES=$first
		return 0
	fi
	# split: the image of linux-binary-REL (or -unsigned), its modules and base
	dir=$(dirname "$first")
	for base in "linux-binary-$rel linux-binary-unsigned-$rel" "linux-modules-$rel" "linux-base-$rel"; do
		m=
		for f in "$first" "${files[@]}"; do
			[[ " $base " == *" $(deb_pkg "$f") "* ]] && { m=$f; break; }
		done
		if [[ -z $m ]]; then
			m=$(find "$dir" -maxdepth 1 -name '*.deb' | sort -rV | while read -r f; do
				[[ " $base " == *" $(dpkg-deb -f "$f" Package 2>/dev/null) "* ]] && { echo "$f"; break; }
			done || true)
		fi
		[[ -n $m ]] || usage_err "$spec: $pkg is split, and no ${base%% *} package is beside it in $dir: download it there (apt-get download ${base%% *}), or name it: image:$first:${base%% *}_VERSION_amd64.deb"
		[[ $m == "$first" ]] || files+=("$m")
		[[ $base == linux-binary* ]] && DEB_PKG=$(deb_pkg "$m")
	done
	DEB_FILES=$(printf '%s\n' "$first" "${files[@]}" | awk '!seen[$0]++')
	[[ $pkg == linux-image-* ]] && DEB_FILES=$(grep -vxF "$first" <<<"$DEB_FILES")
	return 0
}

# ---------------------------------------------------------------- resolve
# user_resolve SPEC: check SPEC (exit 2, one line, when it cannot be a
# kernel) and add it to the kernels of this call under its label: KLABEL
user_resolve() {
	local spec=$1 kind=${1%%:*} arg=${1#*:} p l rel pkg base in
	[[ -n $arg ]] || usage_err "$kind: give a path: $kind:PATH"
	p=$(user_abs "$arg")
	case $kind in
	image)
		[[ $arg == *.deb:* ]] && p=$(user_abs "${arg%%:*}")
		[[ -e $p ]] || usage_err "$spec: no such file"
		[[ -f $p ]] || usage_err "$spec is not a file: give a bzImage or a linux-image .deb (a source tree is tree:DIR)"
		p=$(readlink -f "$p")
		if [[ $p == *.deb ]]; then
			deb_set "$spec" "$p" "$arg"
			rel=$DEB_REL
			kind=deb l=image-$(safe_name "$DEB_PKG")
			USER_DEBS[$l]=$DEB_FILES
		else
			bz_check "$p" "$spec"
			rel=$(bz_release "$p")
			l=$(basename "$p")
			[[ $l == *"$rel"* ]] || l+=-$rel
			l=image-$(safe_name "$l")
		fi ;;
	tree)
		[[ -d $p ]] || usage_err "$spec: no such directory"
		p=$(cd "$p" && pwd -P)
		[[ -f $p/Makefile && -f $p/Kconfig && -d $p/arch/x86 ]] ||
			usage_err "$spec is not a kernel source tree (it has no Makefile, Kconfig and arch/x86)"
		for in in .config include/config arch/x86/include/generated; do
			[[ -e $p/$in ]] &&
				usage_err "$spec was configured or built in place ($p/$in): make O= refuses such a tree, and longpin never writes into it; save its .config (to give as LONGPIN_TREE_CONFIG=FILE) and run make -C $p mrproper"
		done
		rel=$(tree_version "$p")
		[[ -n $rel ]] || usage_err "$spec: no VERSION in $p/Makefile"
		l=tree-$(safe_name "$(basename "$p")") ;;
	*) usage_err "unknown kernel '$spec'; give one of: ${KERNELS[*]}, image:PATH or tree:DIR" ;;
	esac
	base=$(base_of "$rel")
	USER_KIND[$l]=$kind USER_PATH[$l]=$p USER_REL[$l]=$rel
	KERNEL_TABLE+=("$l $kind $base -")
	KERNELS+=("$l")
	# shellcheck disable=SC2034 # read by vm/longpin-vm's kernel_arg, which sources this file
	KLABEL=$l
}

# ---------------------------------------------------------------- prepare
# user_prepare LABEL: the kernel built, unpacked or found: USER_IMG, its
# release (USER_REL), config (USER_CONFIG, from USER_CONFIG_FROM or none)
# and modules (USER_MODROOT, a directory with modules.dep, or none)
user_prepare() {
	local l=$1 p=${USER_PATH[$1]} key out w
	USER_IMG='' USER_CONFIG='' USER_CONFIG_FROM='' USER_MODROOT=''
	case ${USER_KIND[$l]} in
	tree)
		# the O= directories of trees that are gone (a test's temp tree)
		for w in "$USER_DIR"/trees/*/; do
			[[ -f $w/source && ! -d $(cat "$w/source") ]] && rm -rf "$w"
		done
		key=$(tree_key "$l")
		out=$CACHE/kernels/$l-$key
		if [[ ! -f $out/bzImage ]]; then
			lock_named "user-$(printf '%s' "$p" | sha)" "building $p"
			[[ -f $out/bzImage ]] || tree_build "$l" "$out"
			unlock_named "user-$(printf '%s' "$p" | sha)"
		else
			stage "build $l: cached: $p unchanged ($out/bzImage, $(cat "$out/release"))"
		fi
		USER_IMG=$out/bzImage USER_CONFIG=$out/config USER_CONFIG_FROM="its build's .config"
		USER_REL[$l]=$(cat "$out/release") ;;
	deb)
		deb_unpack "$l"
		local c
		for c in "boot/config-${USER_REL[$l]}" "usr/lib/modules/${USER_REL[$l]}/config"; do
			[[ -f $USER_DEBROOT/$c ]] || continue
			USER_CONFIG=$USER_DEBROOT/$c USER_CONFIG_FROM="the package's $c"
			break
		done
		user_modroot "$l" "$USER_DEBROOT/boot" ;;
	image)
		USER_IMG=$p
		image_config "$l"
		user_modroot "$l" "$(dirname "$p")" ;;
	esac
}

# deb_unpack LABEL: the package(s) unpacked (dpkg-deb -x, depmod) into
# the cache once per set of files: USER_DEBROOT, USER_IMG, USER_REL
deb_unpack() {
	local l=$1 p=${USER_PATH[$1]} key dir img rel f files=()
	mapfile -t files <<<"${USER_DEBS[$l]}"
	key=$(for f in "${files[@]}"; do printf '%s %s\n' "$f" "$(stat -c '%s %Y' "$f")"; done | sha)
	dir=$USER_DIR/deb-$l-$key
	if [[ ! -f $dir/ready ]]; then
		lock_named "user-deb-$key" "unpacking $p"
		if [[ ! -f $dir/ready ]]; then
			stage "kernel $l: unpacking ${files[*]} into $dir (never installed)"
			rm -rf "$dir.new"
			mkdir -p "$dir.new"
			for f in "${files[@]}"; do
				v dpkg-deb -x "$f" "$dir.new/root" || die "kernel $l: dpkg-deb -x $f failed"
			done
			img=$(deb_image "$dir.new/root") ||
				{ rm -rf "$dir.new"; usage_err "image:$p holds no kernel image (boot/vmlinuz-* or usr/lib/modules/*/vmlinuz): give a linux-image-VERSION or linux-binary-VERSION package, not a metapackage"; }
			rel=$(image_release "$img")
			local m
			for m in lib/modules usr/lib/modules; do
				[[ -d $dir.new/root/$m/$rel && ! -e $dir.new/root/lib/modules/$rel ]] || continue
				mkdir -p "$dir.new/root/lib/modules"
				ln -s "../../$m/$rel" "$dir.new/root/lib/modules/$rel"
			done
			[[ -d $dir.new/root/lib/modules/$rel/kernel ]] && v depmod -b "$dir.new/root" "$rel"
			echo "$rel" >"$dir.new/release"
			echo "${img#"$dir.new/root/"}" >"$dir.new/image"
			touch "$dir.new/ready"
			mv "$dir.new" "$dir"
			# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
			ls -dt "$USER_DIR/deb-$l"-???????????????? 2>/dev/null | tail -n +3 | xargs -r rm -rf
		fi
		unlock_named "user-deb-$key"
	fi
	USER_DEBROOT=$dir/root
	USER_REL[$l]=$(cat "$dir/release")
	USER_IMG=$USER_DEBROOT/$(cat "$dir/image")
	bz_check "$USER_IMG" "image:$p (its $(cat "$dir/image"))"
}

# user_modroot LABEL BOOTDIR: USER_MODROOT, the modules of release REL:
# BOOTDIR itself when it is a .../modules/REL (the image at
# usr/lib/modules/REL/vmlinuz, as Debian from 6.17 on, Fedora and Arch
# keep it), BOOTDIR/../lib/modules/REL or ../usr/lib/modules/REL (an
# unpacked or installed root: boot/ beside lib/), else this machine's
# /lib/modules/REL. Without modules.dep (made
# by depmod at install) depmod writes one into a copy of symlinks in the
# cache, never beside the modules.
user_modroot() {
	local l=$1 b=$2 rel=${USER_REL[$1]} m s
	for m in "$b" "$(dirname "$b")/lib/modules/$rel" "$(dirname "$b")/usr/lib/modules/$rel" "/lib/modules/$rel"; do
		[[ $m != "$b" || $(basename "$b") == "$rel" ]] || continue
		[[ -d $m/kernel ]] || continue
		m=$(readlink -f "$m")
		if [[ ! -s $m/modules.dep ]]; then
			s=$USER_DIR/mods-$l-$(printf '%s %s\n' "$m" "$(stat -c '%Y' "$m")" | sha)
			if [[ ! -s $s/lib/modules/$rel/modules.dep ]]; then
				stage "kernel $l: $m has no modules.dep: depmod into $s"
				rm -rf "$s"
				mkdir -p "$s/lib/modules"
				cp -rs "$m" "$s/lib/modules/$rel"
				v depmod -b "$s" "$rel" || die "kernel $l: depmod of $m failed"
			fi
			m=$s/lib/modules/$rel
		fi
		USER_MODROOT=$m
		return 0
	done
}

# image_config LABEL: USER_CONFIG of a bzImage: config-REL, config or
# .config beside it (or the build's .config, for arch/x86/boot/bzImage),
# else what it carries itself (CONFIG_IKCONFIG, read with the kernel's
# scripts/extract-ikconfig from a linux-source tarball here), else none
image_config() {
	local l=$1 p=${USER_PATH[$1]} d f n key s
	d=$(dirname "$p") n=$(basename "$p")
	for f in "$d/config-${USER_REL[$l]}" "$d/config-${n#vmlinuz-}" "$d/config" "$d/.config" "$d/../../../.config"; do
		[[ -f $f ]] || continue
		USER_CONFIG=$(readlink -f "$f") USER_CONFIG_FROM="$(readlink -f "$f") beside the image"
		return 0
	done
	key=$(printf '%s %s\n' "$p" "$(stat -c '%s %Y' "$p")" | sha)
	f=$USER_DIR/ikconfig-$key
	if [[ ! -e $f ]]; then
		mkdir -p "$USER_DIR"
		s=$(ikconfig_script)
		if [[ -n $s ]] && "$s" "$p" >"$f.tmp" 2>/dev/null && grep -q '^CONFIG_' "$f.tmp"; then mv "$f.tmp" "$f"
		else rm -f "$f.tmp"; : >"$f"; fi
	fi
	[[ -s $f ]] || return 0
	USER_CONFIG=$f USER_CONFIG_FROM="the image's own (CONFIG_IKCONFIG, scripts/extract-ikconfig)"
}
# ikconfig_script: the kernel's scripts/extract-ikconfig, taken once from a
# linux-source tarball here into the cache (nothing when there is none)
ikconfig_script() {
	local s=$CACHE/extract-ikconfig t
	if [[ ! -x $s ]]; then
		for t in "$TARBALL_612" "$TARBALL"; do
			[[ -f $t ]] || continue
			stage "kernel: taking scripts/extract-ikconfig from $t (once)"
			tar -xJOf "$t" --wildcards '*/scripts/extract-ikconfig' >"$s.tmp" 2>/dev/null &&
				[[ -s $s.tmp ]] && chmod +x "$s.tmp" && mv "$s.tmp" "$s" && break
			rm -f "$s.tmp"
		done
	fi
	[[ -x $s ]] && echo "$s"
	return 0
}

# ---------------------------------------------------------------- check
# What the check reads: the option, the module that is it when built as
# one (-: a bool, or never a module here), the part of the guest (boot:
# without it no guest runs; nvdimm: the NVDIMMs, all or none; xfs; use:
# one thing longpin does), and what is lost without it. Options of one
# text are reported together.
NVDIMM_TYPES="fsdax-shared, fsdax-private, devdax, anon+devdax"
CONFIG_CHECKS=(
	"64BIT - boot the guest's programs are x86-64"
	"BLK_DEV_INITRD - boot the guest runs from an initramfs"
	"RD_GZIP - boot the guest's initramfs is gzip-compressed"
	"DEVTMPFS - boot the guest's /dev is a devtmpfs"
	"PROC_FS - boot the guest's /init reads /proc"
	"SYSFS - boot the guest's /init reads /sys"
	"BINFMT_ELF - boot the guest's programs are ELF"
	"BINFMT_SCRIPT - boot the guest's /init is a script"
	"TTY - boot the console and the result channel are serial ports (ttyS0-3)"
	"SERIAL_8250 - boot the console and the result channel are serial ports (ttyS0-3)"
	"SERIAL_8250_CONSOLE - boot the console and the result channel are serial ports (ttyS0-3)"
	"EXT4_FS ext4 boot the guest's files and I/O targets are on ext4"
	"BLK_DEV_RAM brd boot the guest's ext4, xfs and swap are on ram disks (brd)"
	"LIBNVDIMM libnvdimm nvdimm -"
	"ACPI_NFIT nfit nvdimm -"
	"BLK_DEV_PMEM nd_pmem nvdimm -"
	"NVDIMM_PFN - nvdimm -"
	"NVDIMM_DAX - nvdimm -"
	"ZONE_DEVICE - nvdimm -"
	"FS_DAX - nvdimm -"
	"DEV_DAX device_dax nvdimm -"
	"DEV_DAX_PMEM dax_pmem nvdimm -"
	"XFS_FS xfs xfs the xfs rows (the page-cache and fsdax types again on xfs) skip"
	"IO_URING - use the io_uring pinner skips: its register, reclaim and lifetime rows, fio and the benchmarks"
	"DEBUG_FS - use the gup-fast and gup pinners skip (gup_test, in debugfs)"
	"GUP_TEST - use the gup-fast and gup pinners skip (gup_test, in debugfs)"
	"HUGETLBFS - use the hugetlb types skip (hugetlb, memfd-hugetlb, sysv-shm-huge)"
	"TRANSPARENT_HUGEPAGE - use anon-thp gets no huge pages"
	"TMPFS - use the tmpfs types skip (tmpfs-shared, tmpfs-private)"
	"SYSVIPC - use the sysv-shm types skip"
	"SECRETMEM - use the secretmem type skips"
	"SWAP - use the reclaim rows of anonymous and shmem memory read unexercised (nothing to page out to)"
	"NUMA - use one NUMA node: torture's migrate op has nowhere to move pages"
	"BLK_DEV_NULL_BLK null_blk use fio's null_blk jobs skip (full mode)"
	"VFIO vfio use the vfio pinner skips (full mode)"
	"VFIO_PCI vfio_pci use the vfio pinner skips (full mode)"
	"VFIO_IOMMU_TYPE1 vfio_iommu_type1 use the vfio pinner skips (full mode)"
	"INTEL_IOMMU - use the vfio pinner skips (full mode)"
	"INFINIBAND_USER_ACCESS ib_uverbs use the rdma pinner skips (soft-RoCE; full mode)"
	"RDMA_RXE rdma_rxe use the rdma pinner skips (soft-RoCE; full mode)"
)

# user_check LABEL: after user_prepare: the release, the contract and
# what the config lacks, as stage lines; USER_LACKS (the guest's
# /etc/longpin/lacks: "PART CONFIG_X..." lines) and NVDIMM_OFF. A kernel
# that cannot run the guest at all ends it here: one line, exit 2.
user_check() {
	local l=$1 row opt mod part text val='' have n=0 item
	local -A miss=()
	local texts=() boot=() nv=() xfs=()
	local from="${USER_KIND[$l]/deb/image} ${USER_PATH[$l]}"
	[[ $USER_IMG == "${USER_PATH[$l]}" ]] || from+=" -> $USER_IMG"
	USER_LACKS='' NVDIMM_OFF=''
	for row in "${CONFIG_CHECKS[@]}"; do
		[[ -n $USER_CONFIG ]] || break
		read -r opt mod part text <<<"$row"
		val=$(sed -n "s/^CONFIG_$opt=//p" "$USER_CONFIG")
		have=0 item=CONFIG_$opt
		case $val in
		y) have=1 ;;
		m)
			if [[ $mod != - && -n $USER_MODROOT && -n $(mod_path "$USER_MODROOT" "$mod") ]]; then have=1
			elif [[ -n $USER_MODROOT ]]; then item+=" (=m, no $mod module)"
			else item+=" (=m, and no modules)"; fi ;;
		esac
		((have)) && continue
		case $part in
		boot) boot+=("$item ($text)") ;;
		nvdimm) nv+=("CONFIG_$opt") ;;
		xfs) xfs+=("CONFIG_$opt") ;;
		esac
		[[ $part == nvdimm ]] && text="the NVDIMM types skip ($NVDIMM_TYPES): no NVDIMM is attached"
		[[ -n ${miss[$text]:-} ]] || texts+=("$text")
		miss[$text]+="${miss[$text]:+, }$item"
		n=$((n + 1))
	done
	[[ -z $USER_CONFIG ]] || val=$(sed -n 's/^CONFIG_SERIAL_8250_RUNTIME_UARTS=//p' "$USER_CONFIG")
	[[ -z $val || $val -ge 4 ]] ||
		boot+=("CONFIG_SERIAL_8250_RUNTIME_UARTS=$val (the console and the result channel are ttyS0-3: 4 needed)")
	if ((${#boot[@]})); then
		text=$(printf '%s; ' "${boot[@]}")
		die "kernel $l cannot run longpin's guest: its config ($USER_CONFIG_FROM) lacks ${text%; }" 2
	fi
	stage "kernel $l: $from, release ${USER_REL[$l]:-unknown}"
	stage "kernel $l: $(contract_line "$l")"
	if [[ -z $USER_CONFIG ]]; then
		stage "config check of $l: no config (none beside the image, none built in: CONFIG_IKCONFIG): not checked; the guest runs everything, and what the kernel lacks shows as skips or failures"
		return 0
	fi
	if ((${#nv[@]})); then
		# shellcheck disable=SC2034 # read by qemu.sh's guest start (vm/longpin-vm sources both)
		NVDIMM_OFF="${nv[*]}"
		USER_LACKS+="nvdimm ${nv[*]}"$'\n'
	fi
	((${#xfs[@]} == 0)) || USER_LACKS+="xfs ${xfs[*]}"$'\n'
	if ((n == 0)); then
		stage "config check of $l ($USER_CONFIG_FROM): nothing longpin uses is missing"
		return 0
	fi
	stage "config check of $l ($USER_CONFIG_FROM): $n option$( ((n == 1)) || echo s) longpin uses $( ((n == 1)) && echo is || echo are) missing; the rest runs:"
	for text in "${texts[@]}"; do
		stage "  ${miss[$text]}: $text"
	done
}

# contract_line LABEL: the contract longpin will judge the kernel's rows
# by, as it chooses (harness/core/contract.c: every match line must hold,
# a "match release" scores 3, an exact "match kernel" 2, a ">=" 1, the
# sum wins, then the higher ">=" version), or the one forced (--contract).
# The lines only the guest can answer ("vmstat", "path") hold for none here.
contract_line() {
	local rel=${USER_REL[$1]:-} f name kind arg score best='' bscore=0 why='' maj min cmaj cmin s bound
	if [[ -n $FORCE_CONTRACT ]]; then
		echo "contract $FORCE_CONTRACT (forced: --contract)"
		return 0
	fi
	IFS=. read -r maj min _ <<<"$rel"
	maj=${maj//[!0-9]/} min=${min//[!0-9]/}
	for f in "$REPO"/harness/contracts/*.contract; do
		name=$(basename "$f" .contract)
		score=0 bound=0
		while read -r _ kind arg; do
			s=0
			case $kind in
			release) [[ -n $rel && $rel == *"$arg"* ]] && s=3 ;;
			kernel)
				IFS=. read -r cmaj cmin <<<"${arg#>=}"
				if [[ -z $maj || -z $min ]]; then :
				elif [[ $arg == '>='* ]]; then
					((maj > cmaj || (maj == cmaj && min >= cmin))) && s=1 bound=$((bound + cmaj * 100 + cmin))
				else ((maj == cmaj && min == cmin)) && s=2; fi ;;
			esac
			((s)) || { score=0; break; }
			score=$((score + s * 10000))
		done < <(grep '^match ' "$f")
		((score)) && score=$((score + bound % 10000))
		if ((score > bscore)); then
			best=$name bscore=$score
			why=$(grep '^match ' "$f" | cut -d' ' -f2- | paste -sd'&' | sed 's/&/ and /g')
		fi
	done
	if [[ -z $best ]]; then
		echo "no contract matches release ${rel:-unknown}: verdicts read unchecked (--contract NAME chooses one)"
	else
		echo "contract $best by its release (match ${why}); the guest's longpin chooses (it also reads /proc/vmstat: --contract NAME forces one)"
	fi
}
