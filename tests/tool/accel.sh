#!/usr/bin/env bash
# The accelerator is chosen by a real boot (vm/lib/accel.sh), shown with
# a stand-in QEMU (tests/tool/standin/) first on PATH and a file standing
# in for /dev/kvm; no kernel is booted. CASE:
#   silent: KVM's guest prints nothing (a /dev/kvm that runs no guest):
#           TCG after the probe's bound, QEMU killed; LONGPIN_ACCEL=kvm
#           then stops at once with exit 2; no /dev/kvm: TCG, no probe
#   dies:   QEMU exits at once: TCG within 3 s, QEMU's error named
#   boots:  the guest prints its first line: KVM within 3 s; cached per
#           host kernel, QEMU version and probe version
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=${1:?usage: accel.sh silent|dies|boots}
export PATH=$REPO/tests/tool/standin:$PATH LONGPIN_CACHE=$T/cache STANDIN_LOG=$T/qemu.log
export LONGPIN_KVM_DEV=$T/kvm
unset LONGPIN_ACCEL LONGPIN_ACCEL_PROBE_S
: >"$T/kvm"
: >"$T/bzImage"
: >"$T/qemu.log"
bound=$(sed -n 's/^ACCEL_PROBE_S=${LONGPIN_ACCEL_PROBE_S:-\([0-9]*\)}$/\1/p' "$VMDIR/lib/accel.sh")
[[ $bound =~ ^[0-9]+$ ]] || fail "cannot read ACCEL_PROBE_S from vm/lib/accel.sh"

# probe MODE [ENV=VALUE...]: longpin-vm accel with the stand-in in MODE;
# its stdout in $out, status in $rc, milliseconds in $ms
probe() {
	local mode=$1 t0
	shift
	t0=${EPOCHREALTIME/./}
	rc=0
	out=$(env STANDIN_MODE="$mode" "$@" "$LPVM" accel --image "$T/bzImage" 2>"$T/err") || rc=$?
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	echo "+ STANDIN_MODE=$mode $* longpin-vm accel: exit $rc in $ms ms: $out"
	cat "$T/err"
}
guests() { grep -vc -- '--version' "$T/qemu.log"; }  # stand-in guest boots so far
no_standin_left() {
	local pid
	for pid in $(grep -v -- '--version' "$T/qemu.log" | cut -d' ' -f1); do
		kill -0 "$pid" 2>/dev/null && fail "the stand-in QEMU (pid $pid) was left running"
	done
	return 0
}

case $case in
silent)
	probe silent
	((rc == 0)) || fail "exit $rc"
	[[ $out == "accel: tcg (kvm: no console output within $bound s)" ]] || fail "said '$out'"
	((ms >= bound * 1000 && ms < bound * 1000 + 3000)) || fail "took $ms ms, want the bound of $bound s and little more"
	(($(guests) == 1)) || fail "want one probe boot, saw $(guests)"
	grep -q -- '-accel kvm' "$T/qemu.log" || fail "the probe did not ask for KVM"
	sleep 0.3
	no_standin_left
	# the verdict is cached: no second probe
	probe silent
	[[ $out == "accel: tcg (kvm: no console output within $bound s)" ]] || fail "cached: said '$out'"
	((ms < 2000 && $(guests) == 1)) || fail "cached: $ms ms, $(guests) boots"
	# forcing KVM where it cannot boot: exit 2 at once, one line
	probe silent LONGPIN_ACCEL=kvm
	((rc == 2)) || fail "LONGPIN_ACCEL=kvm: exit $rc, want 2"
	[[ $(wc -l <"$T/err") == 1 ]] && grep -qF "LONGPIN_ACCEL=kvm, but KVM cannot boot a guest here (kvm: no console output within $bound s" "$T/err" ||
		fail "LONGPIN_ACCEL=kvm: message '$(cat "$T/err")'"
	((ms < 2000)) || fail "LONGPIN_ACCEL=kvm took $ms ms"
	# forcing TCG probes nothing; a bad value is bad input
	probe silent LONGPIN_ACCEL=tcg
	[[ $out == "accel: tcg (forced by LONGPIN_ACCEL=tcg)" ]] || fail "LONGPIN_ACCEL=tcg: said '$out'"
	probe silent LONGPIN_ACCEL=fast
	((rc == 2)) && grep -q "LONGPIN_ACCEL='fast': give kvm, tcg or leave it unset" "$T/err" || fail "LONGPIN_ACCEL=fast: exit $rc"
	# without /dev/kvm no probe at all
	probe silent LONGPIN_KVM_DEV="$T/none"
	[[ $out == "accel: tcg (kvm: no $T/none)" ]] || fail "no device: said '$out'"
	((ms < 2000 && $(guests) == 1)) || fail "no device: $ms ms, $(guests) boots"
	pass "a KVM whose guest prints nothing: tcg after ${bound} s, cached, QEMU killed; LONGPIN_ACCEL=kvm exit 2 at once"
	;;
dies)
	probe dies
	((rc == 0)) || fail "exit $rc"
	[[ $out == "accel: tcg (kvm: QEMU exited (status 1) after "*" s before the kernel printed a line: qemu-system-x86_64: failed to initialize kvm: Operation not supported)" ]] ||
		fail "said '$out'"
	((ms < 3000)) || fail "took $ms ms"
	pass "a QEMU that dies at once under KVM: tcg in $ms ms, its error named"
	;;
boots)
	probe boots
	((rc == 0)) || fail "exit $rc"
	[[ $out =~ ^accel:\ kvm\ \(kvm:\ a\ guest\ printed\ its\ first\ console\ line\ in\ [0-9.]+\ s\)$ ]] || fail "said '$out'"
	((ms < 3000)) || fail "took $ms ms"
	grep -q 'proving KVM with a boot' "$T/err" || fail "no stage line announcing the probe"
	probe boots
	[[ $out == "accel: kvm "* ]] && (($(guests) == 1)) || fail "second call: '$out', $(guests) boots, want the cached verdict"
	# another QEMU: probed again
	probe boots STANDIN_VERSION="8.0.0 (stand-in)"
	[[ $out == "accel: kvm "* ]] && (($(guests) == 2)) || fail "new QEMU version: '$out', $(guests) boots, want a second probe"
	sleep 0.7
	no_standin_left
	pass "a KVM that boots: kvm in $ms ms, cached, probed again for another QEMU"
	;;
*) fail "unknown case '$case'" ;;
esac
