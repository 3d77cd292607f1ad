#!/bin/bash
# checkpatch.sh [DIR...]: scripts/checkpatch.pl --strict --no-tree on every
# patch of every series of kernel-patches/ (each DIR with a `series` file;
# default: all), with the checkpatch of the series' base: a directory
# named 6.1 or 6.1-* is against linux-source-6.1, 6.12 or 6.12-* against
# linux-source-6.12, mainline or mainline-* against linux-source-7.2 (the
# newest Debian ships, fetched from unstable into <cache>/sources/ by
# vm/longpin-vm build --kernel stock-7.2). checkpatch.pl and its data files are taken from
# /usr/src/linux-source-BASE.tar.xz (LONGPIN_SRC=DIR: from DIR) once, into
# <cache>/checkpatch/, and run from there, outside any git tree.
# LONGPIN_LINUX_GIT=DIR (an upstream clone, or its .git): checkpatch looks
# up there every commit id a changelog cites, and an id it does not know
# is a warning. Without it the ids cannot be looked up: checkpatch's
# UNKNOWN_COMMIT_ID is left out, and a line says so.
#
# Prints each patch's ERROR, WARNING and CHECK lines and its total line,
# and after each series its errors and warnings.
# Exit 0: no patch has an ERROR; 1: one has; 2: bad setup; 3: a base's
# tarball is missing (its name on stderr; tests/host/checkpatch.sh skips).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
srcdir=${LONGPIN_SRC:-/usr/src}
dirs=("$@")
if ((${#dirs[@]} == 0)); then
	for s in "$here"/*/series; do dirs+=("$(basename "$(dirname "$s")")"); done
fi
((${#dirs[@]})) || { echo "checkpatch: no series in $here" >&2; exit 2; }

# checkpatch_of BASE: the directory holding scripts/checkpatch.pl of BASE
checkpatch_of() {
	local t=$srcdir/linux-source-$1.tar.xz id d tmp
	if [ "$1" = 7.2 ] && [ -z "${LONGPIN_SRC:-}" ]; then
		t=$(ls -d "$cache"/sources/linux-source-7.2-*/linux-source-7.2.tar.xz 2>/dev/null | sort -V | tail -n 1)
		[ -n "$t" ] || { echo "checkpatch: no linux-source-7.2 in $cache/sources (vm/longpin-vm build --kernel stock-7.2 fetches it)" >&2; return 3; }
	fi
	[ -f "$t" ] || { echo "checkpatch: $t is missing (apt-get install -y --no-install-recommends linux-source-$1)" >&2; return 3; }
	id=$(stat -c '%Y-%s' "$t")
	d=$cache/checkpatch/linux-source-$1-$id
	if [ ! -x "$d/scripts/checkpatch.pl" ]; then
		mkdir -p "$cache/checkpatch" || return 2
		tmp=$(mktemp -d "$cache/checkpatch/.tmp.XXXXXX") || return 2
		tar -C "$tmp" -xJf "$t" --wildcards --strip-components=1 '*/scripts/checkpatch.pl' \
			'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' ||
			{ rm -rf "$tmp"; echo "checkpatch: cannot take scripts/checkpatch.pl out of $t" >&2; return 2; }
		# a copy left broken is replaced; one that another run placed
		# meanwhile (a rename: whole or absent) is kept, never removed
		# under that run's checkpatch.pl
		[ -e "$d" ] && [ ! -x "$d/scripts/checkpatch.pl" ] && rm -rf "$d"
		mv -T "$tmp" "$d" 2>/dev/null || rm -rf "$tmp"
		[ -x "$d/scripts/checkpatch.pl" ] ||
			{ echo "checkpatch: cannot place scripts/checkpatch.pl in $d" >&2; return 2; }
	fi
	echo "$d"
}

ignore=()
if [ -n "${LONGPIN_LINUX_GIT:-}" ]; then
	GIT_DIR=$LONGPIN_LINUX_GIT
	[ -d "$GIT_DIR/.git" ] && GIT_DIR=$GIT_DIR/.git
	if ! GIT_DIR=$(cd "$GIT_DIR" 2>/dev/null && pwd) ||
		! git --git-dir="$GIT_DIR" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		echo "checkpatch: LONGPIN_LINUX_GIT=$LONGPIN_LINUX_GIT is not a git repository: give an upstream clone, or unset it" >&2
		exit 2
	fi
	export GIT_DIR
	echo "checkpatch: commit ids looked up in $GIT_DIR"
else
	unset GIT_DIR
	ignore=(--ignore UNKNOWN_COMMIT_ID)
	echo "checkpatch: commit ids not looked up (no upstream clone: LONGPIN_LINUX_GIT=DIR looks them up)"
fi

rc=0 errors=0 n=0
for d in "${dirs[@]}"; do
	d=${d%/}
	d=${d##*/}
	[ -f "$here/$d/series" ] || { echo "checkpatch: no $here/$d/series" >&2; exit 2; }
	base=${d%%-*} de=0 dw=0
	# mainline: the newest checkpatch Debian ships, 7.2's; 6.12's until
	# 7.2's source is fetched (said in each patch's line)
	if [ "$base" = mainline ]; then
		base=7.2
		cp=$(checkpatch_of 7.2 2>/dev/null) || base=6.12
	fi
	cp=$(checkpatch_of "$base") || exit $?
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		echo "== $d/$p (checkpatch of linux-source-$base)"
		out=$(cd "$cp" && ./scripts/checkpatch.pl --strict --no-tree --no-summary-file "${ignore[@]}" "$here/$d/$p" 2>&1)
		grep -E '^(ERROR|WARNING|CHECK):|^total:' <<<"$out"
		e=$(sed -n 's/^total: \([0-9]*\) errors.*/\1/p' <<<"$out")
		w=$(sed -n 's/^total: [0-9]* errors, \([0-9]*\) warnings.*/\1/p' <<<"$out")
		if [ -z "$e" ] || [ -z "$w" ]; then
			echo "checkpatch: no total line for $d/$p:" >&2
			echo "$out" >&2
			exit 2
		fi
		n=$((n + 1)) de=$((de + e)) dw=$((dw + w))
		if [ "$e" != 0 ]; then
			rc=1 errors=$((errors + e))
			echo "$out"
		fi
	done <"$here/$d/series"
	# one line per series (tests/host/checkpatch.sh reads them)
	echo "series $d errors $de warnings $dw"
done
echo "checkpatch: $n patches of ${dirs[*]}: $errors errors"
exit $rc
