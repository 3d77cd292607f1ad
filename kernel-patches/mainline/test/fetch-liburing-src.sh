#!/bin/sh
# fetch-liburing-src.sh [DIR]: unpacks Debian's source of the installed
# liburing-dev (e.g. 2.3-3 on bookworm) into DIR/liburing-<version>
# (default DIR: <cache>/liburing-src/, <cache> being $LONGPIN_CACHE or
# ~/.cache/longpin), where build.sh looks for test/helpers.c. apt-get runs
# on its own sources list and lists under DIR/apt/ (deb.debian.org, this
# release's suite, the Debian archive keyring): the machine's apt
# configuration is neither read for sources nor changed. Prints the
# tree's path. Needs apt-get, dpkg-source (dpkg-dev) and the network.
set -eu
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
if [ $# -gt 1 ] || case ${1:-} in -*) true ;; *) false ;; esac; then
	echo "fetch-liburing-src.sh: takes one argument, the directory (got: $*); run: fetch-liburing-src.sh [DIR]" >&2
	exit 2
fi
dir=${1:-$cache/liburing-src}
key=/usr/share/keyrings/debian-archive-keyring.gpg
for t in apt-get dpkg-source dpkg-query; do
	command -v $t >/dev/null 2>&1 ||
		{ echo "fetch-liburing-src.sh: no $t; install it: apt-get install -y --no-install-recommends dpkg-dev" >&2; exit 2; }
done
[ -f $key ] ||
	{ echo "fetch-liburing-src.sh: no $key; install it: apt-get install -y debian-archive-keyring" >&2; exit 2; }
ver=$(dpkg-query -W -f '${Version}' liburing-dev 2>/dev/null) ||
	{ echo "fetch-liburing-src.sh: liburing-dev is not installed; install it: apt-get install -y liburing-dev" >&2; exit 2; }
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$suite" ] ||
	{ echo "fetch-liburing-src.sh: no VERSION_CODENAME in /etc/os-release: not a Debian release" >&2; exit 2; }
up=${ver#*:}
up=${up%-*}
tree=$dir/liburing-$up
if [ -f "$tree/test/helpers.c" ]; then
	echo "$tree"
	exit 0
fi

mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial"
echo "deb-src [signed-by=$key] http://deb.debian.org/debian $suite main" \
	>"$dir/apt/sources.list"
set -- -o Dir::Etc::sourcelist="$dir/apt/sources.list" \
	-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$dir/apt/lists" \
	-o Dir::Cache="$dir/apt/cache"
apt-get "$@" update >&2
(cd "$dir" && apt-get "$@" source --download-only "liburing=$ver" >&2)
(cd "$dir" && dpkg-source -x "liburing_${ver#*:}.dsc" "liburing-$up" >&2)
echo "$tree"
