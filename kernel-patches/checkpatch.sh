#!/bin/bash
# checkpatch.sh: scripts/checkpatch.pl --strict on every patch of the
# series, from the pristine 6.1 tree that vm/longpin-vm unpacks.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${LONGPIN_CACHE:-$HOME/.cache/longpin}
tree=$cache/trees/stock/src
[ -x "$tree/scripts/checkpatch.pl" ] ||
	{ echo "checkpatch: no kernel tree in $tree: run vm/longpin-vm build --kernel stock first" >&2; exit 2; }
rc=0
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	echo "== $p"
	"$tree/scripts/checkpatch.pl" --strict --no-tree "$here/$p" || rc=1
done <"$here/series"
exit $rc
