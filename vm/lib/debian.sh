# shellcheck shell=bash
# longpin-vm, phase: debian. What longpin takes from Debian's archive
# beyond the packages it installs: the prebuilt Debian kernels (debian-6.1,
# debian-6.12 from the machine's own suites; debian-7.2 from unstable) and
# the linux-source of unstable that stock-7.2 and patched-7.2 build from.
# All of it is fetched with apt-get download, unpacked into the cache,
# never installed.

deb_dir() { echo "$CACHE/kernels/$1"; }

# debian_archive: the Debian archive the machine's apt uses (the first
# URI of its debian.sources, or of a plain sources.list line), else
# deb.debian.org
debian_archive() {
	local u
	u=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
	[[ -n $u ]] || u=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${u:-http://deb.debian.org/debian}"
}
# private_apt DIR SUITE: APT_OPTS, an apt configuration of longpin's own
# in DIR: its sources.list names SUITE (main) of debian_archive, its lists
# are DIR/lists, fetched once (delete DIR to fetch them again). Used for
# apt-get download and apt-cache alone: nothing is installed, the
# machine's sources, lists and preferences are neither read nor written.
private_apt() {
	local dir=$1 suite=$2
	APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null)
	[[ -f $dir/lists/.longpin-updated ]] && return 0
	mkdir -p "$dir/lists/partial"
	echo "deb $(debian_archive) $suite main" >"$dir/sources.list"
	stage "apt: the package lists of $suite, for longpin alone (in $dir; /etc/apt untouched)"
	v apt-get -q "${APT_OPTS[@]}" update >"$dir/apt.log" 2>&1 ||
		die "apt-get update of $suite failed (log $dir/apt.log): is $(debian_archive) reachable?"
	touch "$dir/lists/.longpin-updated"
}
# apt_fetch DIR SUITE DEST PKG=VERSION...: each package of exactly that
# version downloaded into DEST (apt-get download; SUITE's lists, fetched
# again once when a version is not in them)
apt_fetch() {
	local dir=$1 suite=$2 dest=$3 p have
	shift 3
	private_apt "$dir" "$suite"
	for p in "$@"; do
		have=$(apt-cache "${APT_OPTS[@]}" policy "${p%%=*}" 2>/dev/null | awk '/Candidate:/ {print $2}')
		[[ $have == "${p#*=}" ]] && continue
		rm -f "$dir/lists/.longpin-updated"
		private_apt "$dir" "$suite"
		have=$(apt-cache "${APT_OPTS[@]}" policy "${p%%=*}" 2>/dev/null | awk '/Candidate:/ {print $2}')
		[[ $have == "${p#*=}" ]] ||
			die "Debian's $suite no longer has ${p%%=*} ${p#*=} (it has ${have:-none}): give the version it has to DEB_UNSTABLE_VERSION in vm/longpin-vm (and the release it builds to DEB_UNSTABLE_RELEASE)"
	done
	mkdir -p "$dest"
	stage "apt: downloading $* from $suite (not installed; into $dest)"
	(cd "$dest" && v apt-get -q "${APT_OPTS[@]}" download "$@" >>"$dir/apt.log" 2>&1) ||
		die "apt-get download $* failed (log $dir/apt.log)"
}

# unstable_source: the linux-source-7.2 tarball of Debian's unstable
# (DEB_UNSTABLE_VERSION), fetched and taken out of its package into the
# cache once; prints its path
UNSTABLE_APT=$CACHE/apt-unstable
unstable_tarball() { echo "$CACHE/sources/linux-source-$DEB_UNSTABLE_BASE-$DEB_UNSTABLE_VERSION/linux-source-$DEB_UNSTABLE_BASE.tar.xz"; }
unstable_source() {
	local t d
	t=$(unstable_tarball) d=$(dirname "$(unstable_tarball)")
	if [[ ! -f $t ]]; then
		lock_named unstable-source "fetching linux-source-$DEB_UNSTABLE_BASE"
		if [[ ! -f $t ]]; then
			rm -rf "$d.new"
			apt_fetch "$UNSTABLE_APT" unstable "$d.new" "linux-source-$DEB_UNSTABLE_BASE=$DEB_UNSTABLE_VERSION"
			stage "source: taking linux-source-$DEB_UNSTABLE_BASE.tar.xz out of its package"
			dpkg-deb --fsys-tarfile "$d.new"/linux-source-*.deb |
				tar -x -C "$d.new" --strip-components=3 "./usr/src/linux-source-$DEB_UNSTABLE_BASE.tar.xz" ||
				die "linux-source-$DEB_UNSTABLE_BASE: no usr/src/linux-source-$DEB_UNSTABLE_BASE.tar.xz in its package"
			rm -f "$d.new"/*.deb
			rm -rf "$d"
			mv "$d.new" "$d"
		fi
		unlock_named unstable-source
	fi
	echo "$t"
}

# deb_image DIR: the kernel image of an unpacked package root DIR: its
# boot/vmlinuz-RELEASE, or usr/lib/modules/RELEASE/vmlinuz (Debian from
# 6.17 on, Fedora and Arch), signed or not
deb_image() {
	local f
	for f in "$1"/boot/vmlinuz-* "$1"/usr/lib/modules/*/vmlinuz "$1"/usr/lib/modules/*/vmlinuz.unsigned; do
		[[ -f $f ]] && { echo "$f"; return 0; }
	done
	return 1
}
# image_release IMAGE: the release of a kernel image named as deb_image finds them
image_release() {
	case $1 in
	*/boot/vmlinuz-*) echo "${1##*/vmlinuz-}" ;;
	*) basename "$(dirname "$1")" ;;
	esac
}

fetch_debian() {
	local name=$1 dir pattern pkg cand best='' pkgs=()
	dir=$(deb_dir "$name")
	if [[ -f $dir/ready ]]; then
		stage "kernel $name: cached ($(cat "$dir/package"))"
		return 0
	fi
	rm -rf "$dir" "$dir.new"
	mkdir -p "$dir.new"
	case $name in
	debian-6.1) pattern=$DEB_PATTERN_61 ;;
	debian-6.12) pattern=$DEB_PATTERN_612 ;;
	esac
	if [[ $name == "debian-$DEB_UNSTABLE_BASE" ]]; then
		# the split packages of unstable: the image, its modules and the
		# base files (config, System.map) that both depend on
		best=linux-binary-$DEB_UNSTABLE_RELEASE
		pkgs=("$best" "linux-modules-$DEB_UNSTABLE_RELEASE" "linux-base-$DEB_UNSTABLE_RELEASE")
		apt_fetch "$UNSTABLE_APT" unstable "$dir.new" "${pkgs[@]/%/=$DEB_UNSTABLE_VERSION}"
	else
		stage "kernel $name: looking up the newest package matching $pattern"
		while IFS= read -r pkg; do
			cand=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/{print $2}')
			if [[ -n $cand && $cand != "(none)" ]]; then best=$pkg; break; fi
		done < <(apt-cache search --names-only "$pattern" | awk '{print $1}' | sort -rV)
		[[ -n $best ]] || die "kernel $name: no package matches $pattern (run apt-get update?)"
		stage "kernel $name: apt-get download $best (not installed; unpacked into $dir)"
		(cd "$dir.new" && v apt-get download -q "$best" >/dev/null 2>&1) || die "kernel $name: apt-get download $best failed"
	fi
	local d img rel
	for d in "$dir.new"/*.deb; do v dpkg-deb -x "$d" "$dir.new/root"; done
	# the split packages stay, as a user has them (image:, with the
	# modules and base packages beside the binary: vm/lib/user.sh)
	if ((${#pkgs[@]})); then
		mkdir -p "$dir.new/debs"
		mv "$dir.new"/*.deb "$dir.new/debs/"
	fi
	rm -f "$dir.new"/*.deb
	[[ -z ${pkgs[*]} ]] || best+="=$DEB_UNSTABLE_VERSION"
	echo "$best" >"$dir.new/package"
	img=$(deb_image "$dir.new/root") || die "kernel $name: $best holds no kernel image"
	rel=$(image_release "$img")
	echo "$rel" >"$dir.new/release"
	# the modules where the guest's packing looks (lib/modules/RELEASE),
	# and modules.dep, which Debian's packages leave to the installer
	if [[ -d $dir.new/root/usr/lib/modules/$rel && ! -e $dir.new/root/lib/modules/$rel ]]; then
		mkdir -p "$dir.new/root/lib/modules"
		ln -s "../../usr/lib/modules/$rel" "$dir.new/root/lib/modules/$rel"
	fi
	v depmod -b "$dir.new/root" "$rel"
	touch "$dir.new/ready"
	mv "$dir.new" "$dir"
}
# debian_image NAME: the image of a fetched Debian kernel
debian_image() { deb_image "$(deb_dir "$1")/root"; }
