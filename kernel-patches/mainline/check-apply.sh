#!/bin/bash
# check-apply.sh DIR: checks that every patch of this series applies to the
# mainline files in DIR, held at their paths in the tree (DIR/io_uring/rsrc.c
# and so on: the a/ side of the patches). In `series` order, each patch is
# tried with `patch -p1 --fuzz=0 --dry-run` on a scratch copy of DIR, then
# applied there, so that a later patch meets the files as the earlier ones
# left them. DIR itself is never changed.
#
# Prints one line per patch: "ok" or "FAILED", the patch, the files it
# touches and what patch said. Exit 0: all apply; 1: one does not; 2: bad
# invocation or setup.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "check-apply.sh: want one argument, a directory holding the mainline files at their paths (got: ${*:-nothing}); run: check-apply.sh DIR" >&2
	exit 2
fi
command -v patch >/dev/null ||
	{ echo "check-apply.sh: no patch(1); install it: apt-get install -y patch" >&2; exit 2; }
[ -f "$here/series" ] ||
	{ echo "check-apply.sh: no $here/series; run the copy kept beside its series file" >&2; exit 2; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/check-apply.XXXXXX") ||
	{ echo "check-apply.sh: cannot make a scratch directory; set TMPDIR to a writable one" >&2; exit 2; }
trap 'rm -rf "$scratch"' EXIT
cp -a "$1/." "$scratch/" ||
	{ echo "check-apply.sh: cannot copy $1; give a readable directory" >&2; exit 2; }

rc=0 n=0
while read -r p; do
	case $p in '' | '#'*) continue ;; esac
	n=$((n + 1))
	f=$here/$p
	if [ ! -f "$f" ]; then
		echo "FAILED $p: listed in series, no such file"
		rc=1
		continue
	fi
	files=$(sed -n 's|^+++ b/||p' "$f" | tr '\n' ' ')
	missing=
	for t in $files; do
		[ -f "$scratch/$t" ] || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		echo "FAILED $p: not in $1:$missing"
		rc=1
		continue
	fi
	if out=$(cd "$scratch" && patch -p1 --fuzz=0 --dry-run -f -i "$f" 2>&1) &&
		(cd "$scratch" && patch -p1 --fuzz=0 -f -s -i "$f" >/dev/null 2>&1); then
		said=$(echo "$out" | grep -v '^checking file ' | tr '\n' ' ' | sed 's/ *$//')
		echo "ok     $p: ${files% }${said:+ ($said)}"
	else
		said=$(echo "$out" | grep -v '^checking file ' | tr '\n' ' ' | sed 's/ *$//')
		echo "FAILED $p: ${files% }: $said"
		rc=1
	fi
done <"$here/series"
[ "$n" -gt 0 ] || { echo "check-apply.sh: $here/series lists no patch" >&2; exit 2; }
exit $rc
