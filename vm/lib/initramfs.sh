# shellcheck shell=bash
# longpin-vm, phase: initramfs. The cached base archive (busybox, ndctl,
# mkfs, the guest init), the fio layer, a Debian kernel's modules and the
# per-run part (the command, longpin, --add files), concatenated at boot.

add_with_libs() { # stage-dir file...: copy files plus their shared libraries
	local root=$1 f
	shift
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		add_libs "$root" "$f"
	done
}
elf_deps() { # file...: the shared libraries and ELF interpreter they load, once each
	ldd "$@" 2>/dev/null | awk '/=> \//{print $3} /^[[:space:]]*\/[^ ]*ld-linux/{print $1}' | sort -u
}
add_libs() { # stage-dir file: copy the file's shared libraries and ELF interpreter
	local root=$1 f=$2 l
	while IFS= read -r l; do
		[[ -n $l && -e $l && ! -e $root$l ]] || continue
		mkdir -p "$root$(dirname "$l")"
		cp -L "$l" "$root$l"
	done < <(elf_deps "$f")
}
pack_cpio() { # dir out.cpio[.gz]  (measured: gzip -1 unpacks faster in the guest than plain cpio)
	((VERBOSE)) && printf '+ (cd %q && find . | cpio -o -H newc -R 0:0) | gzip -1 > %q\n' "$1" "$2" >&2
	if [[ $2 == *.gz ]]; then
		(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$2.tmp"
	else
		(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$2.tmp"
	fi
	mv "$2.tmp" "$2"
}
bins_key() { # binaries... -> a key of them and their libraries
	local f
	{
		echo "$INITRAMFS_RECIPE"
		for f; do echo "$f $(stat -L -c '%Y %s' "$f")"; done
		# and their libraries (an apt upgrade of a library invalidates the archive)
		ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u | xargs -r stat -L -c '%n %Y %s'
	} | sha
}
fio_initramfs() { # prints the path of the cached fio layer
	local key out r l
	key=$({ bins_key "${FIO_BINS[@]}"; bins_key "${GUEST_BINS[@]}"; } | sha)
	out=$CACHE/initramfs/fio-$key.cpio.gz
	if [[ -f $out ]]; then echo "$out"; return 0; fi
	stage "initramfs: building the fio layer $out" >&2
	mktmp
	r=$TMPD/fio
	rm -rf "$r"
	mkdir -p "$r"
	add_with_libs "$r" "${FIO_BINS[@]}"
	# what the base archive has already
	while IFS= read -r l; do rm -f "$r$l"; done < <(elf_deps "${GUEST_BINS[@]}")
	mkdir -p "$CACHE/initramfs"
	pack_cpio "$r" "$out"
	rm -rf "$r"
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -t "$CACHE/initramfs"/fio-*.cpio* 2>/dev/null | tail -n +3 | xargs -r rm -f
	echo "$out"
}
rxe_provider() { # prints the path of libibverbs' rxe provider on this host
	local f
	for f in $RDMA_PROVIDER_GLOB; do
		[[ -f $f ]] && { echo "$f"; return 0; }
	done
	die "no rxe provider of libibverbs ($RDMA_PROVIDER_GLOB): apt-get install ibverbs-providers"
}
base_initramfs() { # prints the path of the cached base archive
	local key b prov
	prov=$(rxe_provider)
	key=$({ sha256sum "$GUEST_INIT" "${RDMA_FILES[@]}" | cut -d' ' -f1
		bins_key /bin/busybox "${GUEST_BINS[@]}" "$prov"; } | sha)
	b=$CACHE/initramfs/base-$key.cpio.gz
	if [[ -f $b ]]; then echo "$b"; return 0; fi
	stage "initramfs: building base archive $b" >&2
	mktmp
	local r=$TMPD/base
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,etc/ndctl.conf.d,etc/longpin,proc,sys,dev,run,tmp,root,mnt,results,lib/modules}
	cp /bin/busybox "$r/bin/busybox"
	local a
	for a in $(/bin/busybox --list); do
		[[ -e $r/bin/$a ]] || ln -s busybox "$r/bin/$a"
	done
	add_with_libs "$r" "${GUEST_BINS[@]}" "$prov" "${RDMA_FILES[@]}"
	[[ -f /etc/mke2fs.conf ]] && cp /etc/mke2fs.conf "$r/etc/"
	if [[ -d /etc/ndctl ]]; then cp -r /etc/ndctl "$r/etc/" 2>/dev/null || true; fi
	echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
	echo 'root:x:0:' >"$r/etc/group"
	install -m 755 "$GUEST_INIT" "$r/init"
	mkdir -p "$CACHE/initramfs"
	pack_cpio "$r" "$b"
	rm -rf "$r"
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -t "$CACHE/initramfs"/base-*.cpio* 2>/dev/null | tail -n +4 | xargs -r rm -f
	echo "$b"
}
mod_path() { # modules-root name: the module's path in modules.dep, or nothing
	local mroot=$1 m=$2 path
	path=$(grep -oE "^[^:]*/${m}\.ko(\.xz|\.zst|\.gz)?:" "$mroot/modules.dep" | head -n1 | tr -d :)
	[[ -n $path ]] || path=$(grep -oE "^[^:]*/${m//_/-}\.ko(\.xz|\.zst|\.gz)?:" "$mroot/modules.dep" | head -n1 | tr -d :)
	echo "$path"
}
mod_unpack() { # modules-root path stage-dir list: the module decompressed, its line in list
	local mroot=$1 p=$2 r=$3 list=$4 dst base params=
	dst=/lib/modules/${mroot##*/}/${p%.xz}
	dst=${dst%.zst}
	dst=${dst%.gz}
	mkdir -p "$r$(dirname "$dst")"
	case $p in
	*.xz) xz -dc "$mroot/$p" >"$r$dst" ;;
	*.zst) zstd -qdc "$mroot/$p" >"$r$dst" ;;
	*.gz) gzip -dc "$mroot/$p" >"$r$dst" ;;
	*) cp "$mroot/$p" "$r$dst" ;;
	esac
	base=${dst##*/}
	[[ $base == brd.ko ]] && params=$BRD_PARAMS
	[[ $base == null_blk.ko ]] && params=$NULLB_PARAMS
	echo "$dst $params" >>"$list"
}
# mod_visit PATH: PATH after what it needs, appended to the caller's
# order (once each, by the caller's seen; modules.dep of the caller's
# mroot)
mod_visit() {
	local path=$1 line d
	[[ -n ${seen[$path]:-} ]] && return 0
	seen[$path]=1
	line=$(grep -m1 "^$path:" "$mroot/modules.dep" || true)
	for d in ${line#*:}; do mod_visit "$d"; done
	order+=("$path")
}
# deb_archive NAME KIND WHAT: for a module archive of the Debian kernel
# NAME, sets the caller's rel (its release), mroot (its modules) and out
# ($CACHE/initramfs/KIND-NAME-KEY.cpio.gz, KEY from its package and WHAT);
# true when out is built already
# (a user's kernel: its USER_MODROOT, the key from that and its modules.dep)
deb_archive() {
	local dir
	if is_user "$1"; then
		mroot=$USER_MODROOT rel=${USER_MODROOT##*/}
		out=$CACHE/initramfs/$2-$1-$({ echo "$mroot"; stat -c '%Y %s' "$mroot/modules.dep"; echo "$3"; } | sha).cpio.gz
		[[ -f $out ]]
		return
	fi
	dir=$(deb_dir "$1")
	rel=$(cat "$dir/release")
	mroot=$dir/root/lib/modules/$rel
	out=$CACHE/initramfs/$2-$1-$({ cat "$dir/package"; echo "$3"; } | sha).cpio.gz
	[[ -f $out ]]
}
# modules_initramfs NAME: prints the path of the modules archive of a
# Debian kernel: DEB_MODULES in /etc/longpin/modules, then what
# DEB_RDMA_MODULES add in /etc/longpin/modules-rdma (all of them or none),
# each list in dependency order
modules_initramfs() {
	local name=$1 rel mroot out
	if deb_archive "$name" modules "${DEB_MODULES[*]} $BRD_PARAMS $NULLB_PARAMS ${DEB_RDMA_MODULES[*]}"; then
		echo "$out"
		return 0
	fi
	stage "initramfs: packing modules for $name ($rel)" >&2
	[[ -f $mroot/modules.dep ]] || die "$mroot/modules.dep missing"
	declare -A seen=()
	local order=() rdma=()
	local m path i nbase list
	for m in "${DEB_MODULES[@]}"; do
		path=$(mod_path "$mroot" "${m%\?}")
		# a user's kernel may have it built in, or lack it (its config
		# check said so); NAME? is wanted where the kernel has it
		[[ -n $path || $m == *\? ]] || is_user "$name" || die "module $m not found in $mroot/modules.dep"
		[[ -z $path ]] || mod_visit "$path"
	done
	nbase=${#order[@]}
	for m in "${DEB_RDMA_MODULES[@]}"; do
		path=$(mod_path "$mroot" "${m%\?}")
		[[ -z $path && $m == *\? ]] && continue
		if [[ -z $path ]]; then
			stage "initramfs: $name has no $m: no soft-RoCE in its guests (longpin --pinner rdma skips)" >&2
			rdma=()
			break
		fi
		rdma+=("$path")
	done
	for path in "${rdma[@]}"; do mod_visit "$path"; done
	mktmp
	local r=$TMPD/mods
	rm -rf "$r"
	mkdir -p "$r/etc/longpin" "$r/lib/modules/$rel"
	: >"$r/etc/longpin/modules"
	for i in "${!order[@]}"; do
		list=modules
		((i < nbase)) || list=modules-rdma
		mod_unpack "$mroot" "${order[$i]}" "$r" "$r/etc/longpin/$list"
	done
	cp "$mroot"/modules.{order,builtin} "$r/lib/modules/$rel/" 2>/dev/null || true
	pack_cpio "$r" "$out"
	rm -rf "$r"
	echo "$out"
}
# vfio_initramfs NAME: prints the path of the vfio archive of a Debian
# kernel (run --vfio): DEB_VFIO_MODULES and what they need that the
# modules archive lacks, in dependency order in /etc/longpin/modules-vfio
vfio_initramfs() {
	local name=$1 rel mroot out
	if deb_archive "$name" vfio "${DEB_MODULES[*]} ${DEB_RDMA_MODULES[*]} / ${DEB_VFIO_MODULES[*]}"; then
		echo "$out"
		return 0
	fi
	stage "initramfs: packing vfio modules for $name ($rel)" >&2
	declare -A seen=()
	local order=() m path nbase i
	# what the modules archive has already (rdma's as far as there)
	for m in "${DEB_MODULES[@]}" "${DEB_RDMA_MODULES[@]}"; do
		path=$(mod_path "$mroot" "${m%\?}")
		[[ -z $path ]] || mod_visit "$path"
	done
	nbase=${#order[@]}
	for m in "${DEB_VFIO_MODULES[@]}"; do
		path=$(mod_path "$mroot" "$m")
		[[ -n $path ]] || is_user "$name" || die "run --vfio: $name has no module $m (in $mroot/modules.dep)"
		[[ -z $path ]] || mod_visit "$path"
	done
	mktmp
	local r=$TMPD/vfio
	rm -rf "$r"
	mkdir -p "$r/etc/longpin"
	: >"$r/etc/longpin/modules-vfio"
	for ((i = nbase; i < ${#order[@]}; i++)); do
		mod_unpack "$mroot" "${order[$i]}" "$r" "$r/etc/longpin/modules-vfio"
	done
	pack_cpio "$r" "$out"
	rm -rf "$r"
	echo "$out"
}
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; } # POSIX single-quote
# kernel_headers NAME: "RELEASE DIR", the release of a kernel built from
# source (ours, or a user's tree) and the include/linux/ of that source;
# false for an image, which brings no source
kernel_headers() {
	local out src
	if is_user "$1"; then
		[[ ${USER_KIND[$1]} == tree ]] || return 1
		src=${USER_PATH[$1]}
		out=$(dirname "$USER_IMG")
	elif [[ $(kernel_col 2 "$1") == built ]]; then
		src=$TREES/$(src_tree "$1")/src
		out=$(kernel_out "$1")
	else
		return 1
	fi
	[[ -f $src/include/linux/mm_types.h && -f $src/include/linux/mm.h && -f $out/release ]] || return 1
	echo "$(cat "$out/release") $src/include/linux"
}
run_initramfs() { # name cmd... -> per-run archive in $TMPD
	local name=$1 r=$TMPD/run a s=exec g h bin
	shift
	mkdir -p "$r/etc/longpin" "$r/usr/bin"
	for a in "$@"; do s+=" $(sq "$a")"; done
	printf '%s\n' "$s" >"$r/etc/longpin/cmd.sh"
	printf '%s\n' "$*" >"$r/etc/longpin/cmd.txt"
	bin=${LONGPIN:-$REPO/build/longpin}
	if [[ -x $bin ]]; then
		cp -L "$bin" "$r/usr/bin/longpin"
		add_libs "$r" "$bin"
	else
		say "warning: no longpin binary at $bin (set LONGPIN or build it); the guest has no 'longpin'"
	fi
	# the guest's scripts (vm/guest/run.sh and what it runs) at /opt/longpin,
	# and with --fio the job files at /opt/fio-jobs: every boot has them
	mkdir -p "$r/opt/longpin"
	cp "$VMDIR"/guest/*.sh "$r/opt/longpin/"
	if ((WITH_FIO)); then cp -a "$REPO/fio-jobs" "$r/opt/fio-jobs"; fi
	# the headers of a kernel built from source here, where the kernel's
	# own build keeps them: --pinner gup-fast reads FOLL_LONGTERM there
	# when the kernel has no BTF (harness/pinners/kflags.c)
	local kh rel inc
	if kh=$(kernel_headers "$name"); then
		read -r rel inc <<<"$kh"
		mkdir -p "$r/lib/modules/$rel/build/include/linux"
		cp "$inc/mm.h" "$inc/mm_types.h" "$r/lib/modules/$rel/build/include/linux/"
	fi
	# a user's kernel: what its config lacks, "PART CONFIG_X..." lines
	# (vm/lib/user.sh); the guest carries on without those parts
	((${GUEST_USER:-0})) && printf '%s' "$USER_LACKS" >"$r/etc/longpin/lacks"
	# --contract NAME: every longpin of the guest judges by NAME
	[[ -z $FORCE_CONTRACT ]] || printf 'export LONGPIN_EXPECT=%s\n' "$FORCE_CONTRACT" >"$r/etc/longpin/env"
	for a in "${ADDS[@]}"; do
		h=${a%%:*} g=${a#*:}
		mkdir -p "$r$(dirname "$g")"
		cp -a "$h" "$r$g"
	done
	pack_cpio "$r" "$TMPD/run.cpio.gz"
	rm -rf "$r"
}
