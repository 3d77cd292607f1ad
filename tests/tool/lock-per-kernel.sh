#!/usr/bin/env bash
# A run waits only for what it needs: with every build lock of both bases
# held (as a cold ./test.sh building the other kernels would hold them), a
# boot of a built stock starts at once, and says nothing of waiting; a
# build of a kernel of a held base waits, and says for what.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
"$LPVM" build --kernel stock >/dev/null 2>&1 || fail "build stock failed"
mkdir -p "$CACHE"
# hold tree-6.1 and tree-6.12 (a process of our own, killed at exit)
# (one process holds both: it becomes the sleep, so one kill frees them)
(
	exec 8>"$CACHE/.lock-tree-6.1" 9>"$CACHE/.lock-tree-6.12"
	flock 8 && flock 9 && exec sleep 600
) &
holder=$!
on_exit "kill $holder 2>/dev/null"
sleep 1
kill -0 $holder 2>/dev/null || fail "could not take the build locks (another build holds them?)"
rc=0
timeout 300 "$LPVM" run --kernel stock --timeout 240 -- true >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
[ $rc = 0 ] || fail "boot of stock beside held build locks: exit $rc"
grep -q "waiting for another" "$T/err" && fail "the boot of a built kernel waited for a build lock"
# a build of the held base waits, naming the lock (stopped after 3 s)
rc=0
timeout 3 "$LPVM" build --kernel stock >"$T/out" 2>"$T/err" || rc=$?
cat "$T/err"
grep -q "waiting for another longpin-vm building a 6.1 kernel (lock $CACHE/.lock-tree-6.1)" "$T/err" ||
	fail "a build of a 6.1 kernel did not wait for the held tree-6.1 lock"
pass "a built stock booted beside held build locks without waiting; a 6.1 build waited, naming the lock"
