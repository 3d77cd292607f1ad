#!/usr/bin/env bash
# tree:DIR (docs/your-kernel.md): Debian's linux-source-6.12, unpacked
# into a temp dir, given as a tree. longpin-vm builds it out of tree into
# the cache (make O=) with our fragments, so it is stock-6.12's source and
# config: a small matrix (register on anon, memfd, file-shared,
# fsdax-shared and devdax, every prefault) in its guest matches
# stock-6.12's row for row (result, errno, expected, verdict, contract,
# release, data). DIR is byte for byte what the tarball made (a checksum
# of the whole tree, names, modes, times and contents, before and after),
# and a second build of it is a cache hit.
# Cost: unpacking and summing the tree ~40 s, two boots ~1 min; the first
# run on a machine builds the tree cold (~10 min on 2 cores: its cache key
# is its content, not its path, so later runs hit the cache), and
# stock-6.12 when it is not built.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock-6.12
tarball=/usr/src/linux-source-6.12.tar.xz
echo "+ tar -C $T/src -xf $tarball"
mkdir -p "$T/src"
tar -C "$T/src" -xf "$tarball" || fail "cannot unpack $tarball"
dir=$T/src/linux-source-6.12
[ -f "$dir/Makefile" ] || fail "no $dir/Makefile after unpacking $tarball"
# treesum: everything tar keeps of the tree (names, modes, owners, times,
# contents), in name order
treesum() { tar --sort=name -C "$dir" -cf - . | sha256sum | cut -d' ' -f1; }
before=$(treesum)

# SMALL: the small matrix, in the guest
SMALL='LONGPIN_TYPES=anon,memfd,file-shared,fsdax-shared,devdax LONGPIN_SIZE=4M sh /opt/longpin/matrix.sh /results/m.csv'
# rows CSV: one line per row, its key and what the kernel answered
rows() {
	csv_cols "$1" pinner op memtype prefault fs_type result errno expected verdict contract kernel data_check vmpin_leak_kb | sort
}
boot() { # NAME SPEC: SMALL in a guest of SPEC, the CSV in $T/NAME/m.csv
	local rc=0
	echo "+ longpin-vm run --kernel $2"
	"$LPVM" run --kernel "$2" --timeout 1800 --out "$T/$1" -- sh -c "$SMALL" >"$T/$1.out" 2>"$T/$1.err" || rc=$?
	cat "$T/$1.err" "$T/$1.out"
	[ $rc = 0 ] || fail "run --kernel $2: exit $rc"
	[ -s "$T/$1/m.csv" ] || fail "run --kernel $2: no rows"
}

t0=${EPOCHREALTIME/./}
boot tree "tree:$dir"
t1=${EPOCHREALTIME/./}
grep -qF "kernel tree-linux-source-6.12: tree $dir" "$T/tree.err" || fail "the label tree-linux-source-6.12 was not printed"
grep -q "config check of tree-linux-source-6.12 (its build's .config)" "$T/tree.err" || fail "no config check"
echo "+ longpin-vm build --kernel tree:$dir (again)"
"$LPVM" build --kernel "tree:$dir" >"$T/build2" 2>&1 || { cat "$T/build2"; fail "the second build failed"; }
t2=${EPOCHREALTIME/./}
cat "$T/build2"
grep -q "build tree-linux-source-6.12: cached: $dir unchanged" "$T/build2" || fail "the second build was not a cache hit"
grep -qE 'make -j|configure' "$T/build2" && fail "the second build ran make"
boot stock stock-6.12

after=$(treesum)
[ "$before" = "$after" ] || fail "$dir changed: tree checksum $before before, $after after"
rows "$T/tree/m.csv" >"$T/tree.rows"
rows "$T/stock/m.csv" >"$T/stock.rows"
echo "tree-linux-source-6.12 rows:"
cat "$T/tree.rows"
diff "$T/stock.rows" "$T/tree.rows" >"$T/diff" || { cat "$T/diff"; fail "the tree's rows differ from stock-6.12's (< stock-6.12, > tree)"; }
n=$(wc -l <"$T/tree.rows")
[ "$n" -ge 15 ] || fail "$n rows, want 15 (5 types x 3 prefaults)"
pass "$n rows as stock-6.12's; $dir unchanged (sha256 $before); run (build included) $(((t1 - t0) / 1000000)) s, second build (cached) $(((t2 - t1) / 1000)) ms"
