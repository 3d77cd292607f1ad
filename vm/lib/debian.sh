# shellcheck shell=bash
# longpin-vm, phase: debian. The prebuilt Debian kernels (debian-6.1,
# debian-6.12): fetched with apt-get download, unpacked, never installed.

deb_dir() { echo "$CACHE/kernels/$1"; }
fetch_debian() {
	local name=$1 dir pattern pkg cand best=
	dir=$(deb_dir "$name")
	if [[ -f $dir/ready ]]; then
		stage "kernel $name: cached ($(cat "$dir/package"))"
		return 0
	fi
	case $name in
	debian-6.1) pattern=$DEB_PATTERN_61 ;;
	debian-6.12) pattern=$DEB_PATTERN_612 ;;
	esac
	stage "kernel $name: looking up the newest package matching $pattern"
	while IFS= read -r pkg; do
		cand=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/{print $2}')
		if [[ -n $cand && $cand != "(none)" ]]; then best=$pkg; break; fi
	done < <(apt-cache search --names-only "$pattern" | awk '{print $1}' | sort -rV)
	[[ -n $best ]] || die "kernel $name: no package matches $pattern (run apt-get update?)"
	stage "kernel $name: apt-get download $best (not installed; unpacked into $dir)"
	rm -rf "$dir" "$dir.new"
	mkdir -p "$dir.new"
	(cd "$dir.new" && v apt-get download -q "$best" >/dev/null 2>&1) || die "kernel $name: apt-get download $best failed"
	v dpkg-deb -x "$dir.new"/*.deb "$dir.new/root"
	rm -f "$dir.new"/*.deb
	echo "$best" >"$dir.new/package"
	local vmlinuz
	# shellcheck disable=SC2012 # the names are our own (vmlinuz-RELEASE)
	vmlinuz=$(ls "$dir.new/root/boot"/vmlinuz-* | head -n1)
	echo "${vmlinuz##*/vmlinuz-}" >"$dir.new/release"
	# Debian packages do not ship modules.dep (made at install): make it here
	v depmod -b "$dir.new/root" "$(cat "$dir.new/release")"
	touch "$dir.new/ready"
	mv "$dir.new" "$dir"
}
