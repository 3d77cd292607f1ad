#!/bin/bash
# checkpatch.sh: scripts/checkpatch.pl --strict on every patch of the
# series, from the pristine 6.1 tree that vm/longpin-vm unpacks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
tree=$cache/trees/stock/src
[ -x "$tree/scripts/checkpatch.pl" ] ||
	{ echo "checkpatch: no kernel tree in $tree: run vm/longpin-vm build --kernel stock first" >&2; exit 2; }
# Expected: one "Unknown commit id" warning per upstream commit that a
# changelog credits (patches 2, 4 and 6: five commits of v6.5 to v6.15;
# patch 9: two, of v6.4 and v6.16).
# checkpatch looks ids up with git in the current directory, and no 6.1
# tree holds them; run in an upstream clone, it finds them.
rc=0
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	echo "== $p"
	"$tree/scripts/checkpatch.pl" --strict --no-tree "$here/$p" || rc=1
done <"$here/series"
exit $rc
