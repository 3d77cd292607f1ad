#!/usr/bin/env bash
# The cache keeps the 30 newest run directories (vm/lib/qemu.sh
# prune_runs), but never one whose longpin-vm is alive: a long benchmark
# boot beside a ./test.sh lost its run directory to the runs started after
# it and died (exit 4). 33 directories, the oldest owned by this live
# shell, the next by a finished process, the rest by none.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../../vm/lib/qemu.sh
. "$VMDIR/lib/qemu.sh"
R=$T/runs
mkdir -p "$R"
for i in $(seq -w 1 33); do
	mkdir "$R/d$i"
	touch -d "2026-01-01 00:00:$i" "$R/d$i"
done
echo $$ >"$R/d01/owner"
dead=$(sh -c 'echo $$')
echo "$dead" >"$R/d02/owner"
touch -d "2026-01-01 00:00:01" "$R/d01"
touch -d "2026-01-01 00:00:02" "$R/d02"
prune_runs "$R" 30
[[ -d $R/d01 ]] || fail "the run directory of a live longpin-vm (pid $$) was removed"
[[ ! -d $R/d02 ]] || fail "d02, owned by a finished process ($dead), was kept"
[[ ! -d $R/d03 ]] || fail "d03, the oldest without an owner, was kept"
n=$(ls "$R" | wc -l)
[[ $n == 31 ]] || fail "$n run directories left, want 30 newest + the live one"
pass "30 newest kept, the live one kept beside them, the others removed"
