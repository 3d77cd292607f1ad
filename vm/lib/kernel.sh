# shellcheck shell=bash
# longpin-vm, phase: kernel. The built kernels (stock, patched*, and their
# 6.12 twins): their cache keys (tarball, config fragments, recipe,
# compiler, series), the pristine and patched source trees, the build, and
# which image a kernel name boots.

# kernel_base KERNEL: the Debian source it is built from (6.1, 6.12 or 7.2)
kernel_base() { kernel_col 3 "$1"; }
# kernel_tarball KERNEL: its base's linux-source tarball: installed with
# linux-source-6.1 and -6.12, fetched from unstable for 7.2 (the first
# call that needs it fetches it: unstable_source)
kernel_tarball() {
	case $(kernel_base "$1") in
	6.12) echo "$TARBALL_612" ;;
	"$DEB_UNSTABLE_BASE") echo "${TARBALL_72:-$(unstable_tarball)}" ;;
	*) echo "$TARBALL" ;;
	esac
}
# tarball_id KERNEL: what identifies its tarball in the cache keys: the
# package version of one fetched from unstable (the same before and after
# the fetch), else the file's name, mtime and size
tarball_id() {
	local t
	if [[ $(kernel_base "$1") == "$DEB_UNSTABLE_BASE" && -z $TARBALL_72 ]]; then
		echo "linux-source-$DEB_UNSTABLE_BASE $DEB_UNSTABLE_VERSION"
		return 0
	fi
	t=$(kernel_tarball "$1")
	printf '%s %s\n' "$(basename "$t")" "$(stat -c '%Y %s' "$t" 2>/dev/null || echo missing)"
}
# series_files KERNEL: the series files of its patch sets, in order: with
# LONGPIN_PATCHES=DIR the one DIR/series, else one per directory of
# kernel-patches/ that the kernel takes (SERIES_61, SERIES_612)
series_files() {
	local d sets=()
	if [[ -n ${LONGPIN_PATCHES:-} ]]; then echo "$PATCHDIR/series"; return 0; fi
	case $(kernel_base "$1") in
	6.12) sets=("${SERIES_612[@]}") ;;
	"$DEB_UNSTABLE_BASE") sets=("${SERIES_72[@]}") ;;
	*) sets=("${SERIES_61[@]}") ;;
	esac
	for d in "${sets[@]}"; do echo "$PATCHDIR/$d/series"; done
}
series_patches() { # KERNEL: its patch files relative to $PATCHDIR, in order
	local f line drop='' dir
	[[ $1 == patched-unchunked ]] && drop=$UNCHUNKED_DROP
	while IFS= read -r f; do
		[[ -f $f ]] || continue
		dir=${f%/series}
		dir=${dir#"$PATCHDIR"}
		dir=${dir#/}
		while IFS= read -r line || [[ -n $line ]]; do
			line=${line%%#*}
			line=${line#"${line%%[![:space:]]*}"}
			line=${line%"${line##*[![:space:]]}"}
			[[ -n $line ]] || continue
			# shellcheck disable=SC2053 # $drop is a glob
			[[ -n $drop && $line == $drop ]] && continue
			printf '%s\n' "${dir:+$dir/}$line"
		done <"$f"
	done < <(series_files "$1")
}
series_digest() { # KERNEL
	local p
	if [[ $1 == patched-unchunked ]] && (($(series_patches "$1" | wc -l) == $(series_patches patched | wc -l))); then
		die "kernel patched-unchunked: no patch of $(series_files patched | tr '\n' ' ')matches $UNCHUNKED_DROP (the chunking patch)"
	fi
	{
		echo "patch ${PATCH_OPTS[*]}; series:"
		series_patches "$1"
		while IFS= read -r p; do
			[[ -f $PATCHDIR/$p ]] || die "kernel-patches: '$p' is listed in a series file of $PATCHDIR but does not exist"
			printf '%s %s\n' "$p" "$(sha256sum <"$PATCHDIR/$p" | cut -d' ' -f1)"
		done < <(series_patches "$1")
	} | sha
}
kernel_key() {
	local name=$1
	{
		tarball_id "$name"
		cat "$FRAGMENT"
		echo "$KBUILD_RECIPE"
		gcc -dumpfullversion 2>/dev/null || true
		if [[ $name == patched* ]]; then series_digest "$name"; fi
		# the fragments beyond the common one
		fragments "$name" | tail -n +2 | xargs -r cat
	} | sha
}
# base_fragment BASE: the fragment of options whose names changed in 6.9
# (the mitigations'): base-6.1.config for 6.1, base-6.12.config after;
# 7.2 adds base-7.2.config (the preemption model)
base_fragment() {
	case $1 in
	6.1) echo "$VMDIR/base-6.1.config" ;;
	6.12) echo "$VMDIR/base-6.12.config" ;;
	*) echo "$VMDIR/base-6.12.config"; echo "$VMDIR/base-$1.config" ;;
	esac
}
# wanted_y FRAGMENT...: the options the fragments leave =y, a later
# fragment's "=n" or "is not set" overriding an earlier =y (as
# merge_config.sh does), one CONFIG_X=y a line
wanted_y() {
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1 \2/p' -e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1 n/p' "$@" |
		awk '{ v[$1] = $2; if (!($1 in at)) at[$1] = NR } END { for (o in v) if (v[o] == "y") print at[o], o "=y" }' |
		sort -n | cut -d' ' -f2
}
# the config fragments of a kernel: the common one, its base's, then patched-debug
# adds the debug options, patched-6.12 and patched-7.2 the release suffix
# by which longpin knows them
fragments() {
	echo "$FRAGMENT"
	base_fragment "$(kernel_base "$1")"
	case $1 in
	patched-debug) echo "$DEBUG_FRAGMENT" ;;
	patched-6.12 | patched-7.2) echo "$VMDIR/patched-release.config" ;;
	esac
}

# ---------------------------------------------------------------- kernel source
TREES=$CACHE/trees
# the directory of $TREES whose src/ a kernel builds from, and the one whose
# obj/ and cfg/ it builds in: patched-debug and patched-unchunked share
# patched's source, patched-unchunked its O= dir too, as ccache only hits
# when the source and O= paths are the same
src_tree() {
	case $1 in
	patched | patched-debug | patched-unchunked) echo patched ;;
	*) echo "$1" ;;
	esac
}
obj_tree() { if [[ $1 == patched-unchunked ]]; then echo patched; else echo "$1"; fi; }
# pristine_tree KERNEL: the unpacked tarball of its base (the tree of
# stock, stock-6.12 or stock-7.2)
pristine_tree() {
	local b
	b=$(kernel_base "$1")
	if [[ $b == 6.1 ]]; then echo "$TREES/stock"; else echo "$TREES/stock-$b"; fi
}
ensure_pristine() { # KERNEL
	local base tarball top src want k
	base=$(kernel_base "$1") tarball=$(kernel_tarball "$1") top=$(pristine_tree "$1")
	src=$top/src
	want=$(tarball_id "$1")
	if [[ -f $src/.longpin-tarball && $(cat "$src/.longpin-tarball") == "$want" ]]; then return 0; fi
	if [[ $base == "$DEB_UNSTABLE_BASE" && -z $TARBALL_72 ]]; then
		tarball=$(unstable_source)
	fi
	[[ -f $tarball ]] || die "kernel source $tarball not found; install linux-source-$base (apt-get install -y --no-install-recommends linux-source-$base)"
	stage "source: unpacking $tarball into $src"
	# a new tarball: every tree built from the old one goes
	for k in "${BUILT_KERNELS[@]}"; do
		[[ $(kernel_base "$k") == "$base" ]] && rm -rf "${TREES:?}/$(src_tree "$k")"
	done
	mkdir -p "$top"
	mktmp
	v tar -C "$TMPD" -xf "$tarball"
	local d
	d=$(find "$TMPD" -mindepth 1 -maxdepth 1 -type d | head -n1)
	mv "$d" "$src"
	printf '%s\n' "$want" >"$src/.longpin-tarball"
}
patch_files() { # files a patch touches (p1), one per line
	sed -n -e 's/^--- \([^[:space:]]*\).*/\1/p' -e 's/^+++ \([^[:space:]]*\).*/\1/p' "$1" |
		grep -v '^/dev/null$' | cut -d/ -f2- | sort -u
}
prepare_patched_tree() { # KERNEL: the patched tree, with that kernel's series
	local dir psrc pristine digest p f
	dir=$TREES/$(src_tree "$1") pristine=$(pristine_tree "$1")/src
	psrc=$dir/src
	digest=$(series_digest "$1")
	mkdir -p "$dir"
	if [[ -d $psrc && -f $dir/applied && $(cat "$dir/applied") == "$digest" ]]; then
		stage "build $1: source tree up to date (series $digest)"
		return 0
	fi
	stage "build $1: recreating source tree from pristine + $(series_files "$1" | sed "s|^$REPO/||" | tr '\n' ' ')(series $digest)"
	local old=() new=() all=()
	[[ -f $dir/touched-files ]] && mapfile -t old <"$dir/touched-files"
	while IFS= read -r p; do
		mapfile -t -O "${#new[@]}" new < <(patch_files "$PATCHDIR/$p")
	done < <(series_patches "$1")
	mapfile -t all < <(printf '%s\n' "${old[@]}" "${new[@]}" | grep -v '^$' | sort -u)
	# the new tree is made beside the old one, which stays until it applies:
	# a series that does not apply leaves the last good tree as it was
	rm -rf "$psrc.new"
	v cp -al "$pristine" "$psrc.new"
	# files touched by the old or new series become real copies with a fresh
	# mtime (so make rebuilds them and the pristine tree is never written)
	for f in "${all[@]}"; do
		if [[ -f $pristine/$f ]]; then
			rm -f "$psrc.new/$f"
			cp "$pristine/$f" "$psrc.new/$f"
		fi
	done
	while IFS= read -r p; do
		stage "build $1: applying $p"
		if ! v patch "${PATCH_OPTS[@]}" -d "$psrc.new" -s -i "$PATCHDIR/$p" >"$dir/patch.log" 2>&1; then
			cat "$dir/patch.log" >&2
			local rej
			while IFS= read -r rej; do
				echo "---- rejected hunks: ${rej#"$psrc.new/"}" >&2
				cat "$rej" >&2
			done < <(find "$psrc.new" -name '*.rej')
			rm -rf "$psrc.new"
			die "patch $PATCHDIR/$p failed to apply (see the rejected hunks above); fix or refresh it"
		fi
	done < <(series_patches "$1")
	for f in "${all[@]}"; do [[ -e $psrc.new/$f ]] && touch "$psrc.new/$f"; done
	rm -f "$dir/applied"
	rm -rf "$psrc"
	mv "$psrc.new" "$psrc"
	printf '%s\n' "${new[@]}" | grep -v '^$' >"$dir/touched-files" || : >"$dir/touched-files"
	printf '%s\n' "$digest" >"$dir/applied"
}

# ---------------------------------------------------------------- kernel build
kernel_out() { echo "$CACHE/kernels/$1-$(kernel_key "$1")"; }
build_kernel() {
	local name=$1 key out src obj cfg
	key=$(kernel_key "$name")
	out=$CACHE/kernels/$name-$key
	if [[ -f $out/bzImage ]]; then
		stage "build $name: cached ($out/bzImage, $(cat "$out/release" 2>/dev/null))"
		return 0
	fi
	local bstart=${EPOCHREALTIME/./}
	ensure_pristine "$name"
	src=$TREES/$(src_tree "$name")/src obj=$TREES/$(obj_tree "$name")/obj cfg=$TREES/$(obj_tree "$name")/cfg
	[[ $name == patched* ]] && prepare_patched_tree "$name"
	mkdir -p "$obj" "$cfg" "$CACHE/logs"
	LOG=$CACHE/logs/build-$name.log
	: >"$LOG"
	local cc=gcc
	if command -v ccache >/dev/null; then
		export CCACHE_DIR=$CACHE/ccache CCACHE_BASEDIR=$TREES
		mkdir -p "$CCACHE_DIR"
		[[ -f $CCACHE_DIR/.longpin-max ]] || { ccache -M 5G >/dev/null && touch "$CCACHE_DIR/.longpin-max"; }
		cc="ccache gcc"
	fi
	# configure in a scratch O= dir; copy to the real one only when it differs
	local frags=()
	mapfile -t frags < <(fragments "$name")
	stage "build $name: configure (tinyconfig + ${frags[*]#"$REPO/"}, cache key $key, log $LOG)"
	vq make -C "$src" O="$cfg" tinyconfig
	vq "$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "${frags[@]}"
	vq make -C "$src" O="$cfg" olddefconfig
	local lost=() l
	while IFS= read -r l; do
		grep -qxF "$l" "$cfg/.config" || lost+=("${l%=y}")
	done < <(wanted_y "${frags[@]}")
	((${#lost[@]} == 0)) || die "build $name: these ${frags[*]#"$REPO/"} options did not survive olddefconfig (missing dependencies?): ${lost[*]}"
	if ! cmp -s "$cfg/.config" "$obj/.config"; then cp "$cfg/.config" "$obj/.config"; fi
	stage "build $name: make -j$NPROC bzImage (CC=\"$cc\", O=$obj)"
	build_progress_start "$name" "$obj"
	if ! vq make -C "$src" O="$obj" CC="$cc" -j"$NPROC" bzImage; then
		build_progress_stop
		((VERBOSE)) || tail -n 40 "$LOG" >&2
		die "build $name: make failed (full log: $LOG)"
	fi
	build_progress_stop "$obj"
	mkdir -p "$out.new"
	cp "$obj/arch/x86/boot/bzImage" "$out.new/bzImage"
	cp "$obj/.config" "$out.new/config"
	make -s -C "$src" O="$obj" kernelrelease >"$out.new/release" 2>/dev/null || echo unknown >"$out.new/release"
	rm -rf "$out"
	mv "$out.new" "$out"
	# keep only the newest few cached kernels of this name (NAME-KEY, the key
	# 16 hex digits: "patched-*" would also match patched-debug's)
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -dt "$CACHE/kernels/$name"-???????????????? 2>/dev/null | tail -n +4 | xargs -r rm -rf
	stage "build $name: done in $(_fmt_s $(($(_now_us) - bstart))) s -> $out/bzImage ($(cat "$out/release"))"
}

# build_progress_start NAME OBJ: while make runs, a stage line every 30 s
# (LONGPIN_PROGRESS_S): the objects compiled so far against the count of
# the last build of that tree (OBJ/.longpin-objects), or an estimate
# before the first one, and the time since the start
BUILD_OBJECTS_GUESS=1300  # a cold build of tinyconfig + vm/kernel.config, 6.1
build_progress_start() {
	local name=$1 obj=$2 total every=${LONGPIN_PROGRESS_S:-30}
	mktmp
	: >"$TMPD/build-start"
	total=$(cat "$obj/.longpin-objects" 2>/dev/null) || total="~$BUILD_OBJECTS_GUESS (a guess: no earlier build)"
	(
		trap - EXIT INT TERM
		t0=$(_now_us) next=$every
		while sleep 1; do
			(($(_now_us) - t0 >= next * 1000000)) || continue
			next=$((next + every))
			n=$(find "$obj" -name '*.o' -newer "$TMPD/build-start" | wc -l)
			stage "build $name: $n of $total objects compiled, $(_fmt_min $(($(_now_us) - t0)))"
		done
	) &
	PROGRESS_PID=$!
}
# build_progress_stop [OBJ]: stop the lines; after a build that passed,
# OBJ's object count is the next build's reference
build_progress_stop() {
	if [[ -n ${PROGRESS_PID:-} ]]; then
		kill "$PROGRESS_PID" 2>/dev/null || true
		wait "$PROGRESS_PID" 2>/dev/null || true
	fi
	PROGRESS_PID=
	[[ -n ${1:-} ]] && find "$1" -name '*.o' | wc -l >"$1/.longpin-objects"
	return 0
}

# the lock of what building KERNEL writes: its source tree (the pristine
# tree of its base too, which a new tarball unpacks again)
kernel_lock() { echo "tree-$(kernel_base "$1")"; }
kernel_image() { # name -> path of the kernel image (builds/fetches if missing)
	case $(kernel_col 2 "$1") in
	built)
		if [[ ! -f $(kernel_out "$1")/bzImage ]]; then
			lock_named "$(kernel_lock "$1")" "building a $(kernel_base "$1") kernel"
			build_kernel "$1" >&2
			unlock_named "$(kernel_lock "$1")"
		fi
		echo "$(kernel_out "$1")/bzImage"
		;;
	debian)
		lock_named "$1" "fetching $1"
		fetch_debian "$1" >&2
		unlock_named "$1"
		debian_image "$1"
		;;
	tree | deb | image)
		user_prepare "$1" >&2
		echo "$USER_IMG"
		;;
	esac
}

# build_locked KERNEL: build it under its tree's lock, held for it alone
build_locked() {
	lock_named "$(kernel_lock "$1")" "building a $(kernel_base "$1") kernel"
	build_kernel "$1"
	unlock_named "$(kernel_lock "$1")"
}

# build_kernels KERNEL|all (all: every built kernel but patched-unchunked)
build_kernels() {
	local which=$1 k
	ensure_packages
	if [[ $which == all ]]; then
		for k in "${BUILT_KERNELS[@]}"; do
			[[ $k == patched-unchunked ]] || build_locked "$k"
		done
	else
		build_locked "$which"
	fi
	stage "build: finished"
}

# list_kernels: each kernel, built/fetched (release, image) or not
list_kernels() {
	local k out dir
	for k in "${BUILT_KERNELS[@]}"; do
		out=$(kernel_out "$k")
		if [[ -f $out/bzImage ]]; then printf '%-18s built   %s  %s\n' "$k" "$(cat "$out/release")" "$out/bzImage"
		else printf '%-18s not built (cache key %s)\n' "$k" "${out##*-}"; fi
	done
	for k in "${KERNELS[@]}"; do
		[[ $(kernel_col 2 "$k") == debian ]] || continue
		dir=$(deb_dir "$k")
		if [[ -f $dir/ready ]]; then printf '%-18s fetched %s  %s\n' "$k" "$(cat "$dir/release")" "$(debian_image "$k")"
		else printf '%-18s not fetched\n' "$k"; fi
	done
}
