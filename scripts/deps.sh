# shellcheck shell=bash
# deps.sh (sourced): need_packages PKG...: install missing Debian packages
# when root, else print the apt-get line and exit 2. A package lock that
# another apt holds is waited for (apt-lock.sh): exit 2 with one line
# when it is still held after LONGPIN_APT_WAIT seconds (default 900).
# shellcheck source=apt-lock.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-lock.sh"
need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "longpin: missing packages: run as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
		exit 2
	fi
	echo "[$(date +%T)] installing ${missing[*]}"
	# 2: a lock still held after the bound (its line printed)
	apt_get longpin update -q >/dev/null || { [ $? = 2 ] && exit 2; }
	apt_get longpin install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# The harness and its tests (libibverbs-dev: longpin --pinner rdma; without
# it longpin builds and that pinner skips; shellcheck: tests/host/shellcheck.sh).
# shellcheck disable=SC2034 # used by run.sh and test.sh, which source this file
# dpkg-dev: dpkg-source, which unpacks liburing's source (need_liburing_src).
HARNESS_PACKAGES=(build-essential cmake pkg-config liburing-dev libibverbs-dev util-linux
	python3-matplotlib jq fio clang libclang-rt-14-dev shellcheck dpkg-dev)

# The kselftest target (kselftest/build.sh): the kernel's kselftest build
# from Debian's 6.12 source (its lib.mk installs with rsync) and kunit.py,
# the KTAP parser, in Python 3.
# shellcheck disable=SC2034 # used by kselftest/build.sh, which sources this file
KSELFTEST_PACKAGES=(build-essential cmake pkg-config liburing-dev rsync xz-utils
	python3 dpkg-dev linux-source-6.12)

# need_liburing_src: Debian's source of the installed liburing-dev in the
# cache, whose test helpers and runtests.sh kernel-patches/mainline's test
# is built and run with (fetched once; CMakeLists.txt finds it there).
# Without it (no network) that test is left out, and this says so.
need_liburing_src() {
	local log
	log=$(mktemp)
	if ! kernel-patches/mainline/test/fetch-liburing-src.sh >"$log" 2>&1; then
		echo "longpin: warning: no liburing source, so kernel-patches/mainline's test is left out: $(tail -n 1 "$log")" >&2
	fi
	rm -f "$log"
}
