#!/usr/bin/env bash
# A wall-clock TCG guest boots on a busy host. The boot's check of the
# timer interrupt (timer_irq_works() in arch/x86/kernel/apic/io_apic.c)
# spins until the TSC has moved 40e9/HZ cycles or five ticks came. Under
# TCG the vCPU threads run the spin while QEMU's main thread fires the
# timers: when a busy host lets the one run and not the other, the TSC
# moves, no tick comes, and the guest panicked with "IO-APIC + timer
# doesn't work!" (seen in the matrix boots of a run beside three other
# jobs). The test makes that host for the guest's first 15 s: QEMU's main
# thread shares one CPU, at nice 19, with a busy loop at SCHED_FIFO (the
# kernel's RT throttling leaves others 5 % of it), and the vCPU threads
# have another CPU. The command must run and its output come through, in
# each of three boots: without no_timer_check about half of such boots
# panicked here, so three pass by chance one time in eight. A KVM guest
# skips the check itself (kvm-clock), and one CPU cannot keep the threads
# apart: both skip.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
K=${1:-stock}
need_qemu
need_kernel "$K"
accel=$("$LPVM" accel --kernel "$K" 2>/dev/null | sed -n "s/^accel: //p")
[[ $accel == tcg* ]] || skip "the guests run under '$accel': a KVM guest skips the timer check itself"
(($(nproc) >= 2)) || skip "one CPU: QEMU's main thread and its vCPUs cannot be kept apart"
command -v chrt >/dev/null || skip "no chrt (util-linux)"

# starved_boot I: one boot, its QEMU's main thread starved for 15 s
starved_boot() {
	local i=$1 tag=longpin-starved-$$-$1 pid q='' hog rc con
	# the console waits for the main thread too: more than the watchdog's 60 s
	LONGPIN_CONSOLE_WATCHDOG_S=300 LONGPIN_QEMU_EXTRA="-name $tag" "$LPVM" run --kernel "$K" \
		--timeout 600 -- sh -c 'echo OUT-LINE' >"$T/out$i" 2>"$T/err$i" &
	pid=$!
	for _ in $(seq 600); do
		q=$(pgrep -f -- "-name $tag" | head -n1)
		[[ -n $q ]] && break
		sleep 0.1
	done
	[[ -n $q ]] || { wait $pid; cat "$T/err$i"; fail "boot $i: no QEMU named $tag started"; }
	# the vCPU threads on the second CPU, the main thread starved on the first
	if ! { taskset -a -p -c 1 "$q" && taskset -p -c 0 "$q" && renice -n 19 -p "$q"; } >/dev/null; then
		kill "$q"
		wait $pid
		fail "boot $i: could not place QEMU's threads (taskset, renice)"
	fi
	chrt -f 1 taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	on_exit "kill $hog 2>/dev/null"
	for _ in $(seq 150); do
		kill -0 "$q" 2>/dev/null || break
		sleep 0.1
	done
	kill $hog
	wait $hog 2>/dev/null
	# the host given back: every CPU, and the main thread's nice
	if kill -0 "$q" 2>/dev/null; then
		taskset -a -p -c 0-$(($(nproc) - 1)) "$q" >/dev/null
		renice -n 0 -p "$q" >/dev/null
	fi
	wait $pid
	rc=$?
	cat "$T/out$i" "$T/err$i"
	con=$(sed -n 's/.*console log \([^ ]*\).*/\1/p' "$T/err$i" | head -n1)
	[[ -n $con && -f $con ]] && grep -q "timer doesn't work" "$con" &&
		fail "boot $i: the guest panicked in the boot's timer check (console: $con)"
	((rc == 0)) || fail "boot $i: expected exit status 0, got $rc"
	grep -qx 'OUT-LINE' "$T/out$i" || fail "boot $i: the command's output did not come through"
}
for i in 1 2 3; do
	starved_boot $i
done
pass "three guests whose QEMU main thread was starved for their first 15 s booted and ran the command"
