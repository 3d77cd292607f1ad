# shellcheck shell=bash
# longpin-vm, phase: accel. Which accelerator boots the guests, proved by
# a real boot: KVM only after a Linux kernel of ours printed its first
# console line under KVM within ACCEL_PROBE_S seconds, else TCG. A
# /dev/kvm can exist and still run no ordinary guest (a paravirtual KVM
# whose SeaBIOS runs but whose Linux guest prints nothing and spins a
# core), so neither the device nor a live QEMU proves anything.
#
# The verdict is cached per host kernel, QEMU version and probe version in
# <cache>/accel-probe; LONGPIN_ACCEL=kvm|tcg forces one (kvm still needs a
# probe that passed: a forced KVM that cannot boot stops at once, exit 2).
# Tests point LONGPIN_KVM_DEV at a file to stand in for /dev/kvm.

# The probe's bound. Our stock kernel prints its first line ("Linux
# version") 1.5-2.7 s after QEMU starts under TCG, the slower of the two
# accelerators, with both cores busy (load average 5); KVM needs no
# emulation of SeaBIOS or the decompressor. Ten seconds is nearly four
# times the slowest working boot seen.
ACCEL_PROBE_S=${LONGPIN_ACCEL_PROBE_S:-10}
ACCEL_PROBE_VERSION=2  # bump when the probe's command or judgement changes
ACCEL=                 # kvm or tcg, once chosen
ACCEL_WHY=             # why, in a few words
ACCEL_CACHED=0         # 1: the probe's verdict came from the cache

# accel_key: what the cached verdict depends on (one line)
accel_key() {
	printf 'host %s %s; qemu %s; probe v%s\n' "$(uname -r)" "$(uname -v | sha)" \
		"$(qemu-system-x86_64 --version 2>/dev/null | head -n1)" "$ACCEL_PROBE_VERSION"
}

# kvm_probe KIMG: boot KIMG under KVM, no initrd (it panics and QEMU exits,
# -no-reboot), until its first console line, "Linux version" (a notice:
# loglevel=7, or the first line would be the panic). Sets PROBE_OK (1/0)
# and PROBE_WHY.
kvm_probe() {
	local kimg=$1 log pid t0 err
	mktmp
	log=$TMPD/accel-probe.console err=$TMPD/accel-probe.stderr
	: >"$log"
	t0=$(_now_us)
	# the CPU model of the real boots (qemu_args), the least else
	qemu-system-x86_64 -accel kvm -machine pc -cpu max,la57=off -m 256M -nodefaults \
		-display none -vga none -no-reboot -serial "file:$log" -monitor none \
		-kernel "$kimg" -append "console=ttyS0 panic=-1 loglevel=7" </dev/null >/dev/null 2>"$err" &
	pid=$!
	QEMU_PID=$pid
	# (stderr off while QEMU is reaped: bash would print "Aborted" or
	# "Killed" for it)
	{ probe_poll "$pid" "$t0" "$log" "$err"; } 2>/dev/null
	QEMU_PID=
}
# probe_poll PID T0 LOG ERR: PROBE_OK and PROBE_WHY from the console LOG
# of QEMU PID started at T0; QEMU is gone when it returns
probe_poll() {
	local pid=$1 t0=$2 log=$3 err=$4 t rc=0
	while :; do
		t=$(($(_now_us) - t0))
		# the kernel proper's first line (the decompressor may print before)
		if grep -q 'Linux version' "$log"; then
			PROBE_OK=1 PROBE_WHY="kvm: a guest printed its first console line in $(_fmt_s "$t") s"
			break
		fi
		if ! kill -0 "$pid"; then
			wait "$pid" || rc=$?
			grep -q 'Linux version' "$log" && continue
			PROBE_OK=0 PROBE_WHY="kvm: QEMU exited (status $rc) after $(_fmt_s "$t") s before the kernel printed a line"
			[[ -s $err ]] && PROBE_WHY+=": $(head -n1 "$err")"
			return 0
		fi
		if ((t >= ACCEL_PROBE_S * 1000000)); then
			PROBE_OK=0 PROBE_WHY="kvm: no console output within $ACCEL_PROBE_S s"
			[[ -s $log ]] && PROBE_WHY="kvm: no kernel console line within $ACCEL_PROBE_S s"
			break
		fi
		sleep 0.1
	done
	kill -KILL "$pid" || true
	wait "$pid" || true
}

# accel_choose KIMG: ACCEL and ACCEL_WHY, probing with KIMG when needed
accel_choose() {
	local kimg=$1 dev=${LONGPIN_KVM_DEV:-/dev/kvm} want=${LONGPIN_ACCEL:-auto} f=$CACHE/accel-probe key
	[[ -z $ACCEL ]] || return 0
	case $want in
	auto | kvm | tcg) ;;
	*) usage_err "LONGPIN_ACCEL='$want': give kvm, tcg or leave it unset (a probe boot chooses)" ;;
	esac
	if [[ $want == tcg ]]; then
		ACCEL=tcg ACCEL_WHY="forced by LONGPIN_ACCEL=tcg"
		ACCEL_LINE="accel: $ACCEL ($ACCEL_WHY)"
		return 0
	fi
	if [[ ! -e $dev ]]; then
		PROBE_OK=0 PROBE_WHY="kvm: no $dev"
	elif [[ ! -r $dev || ! -w $dev ]]; then
		PROBE_OK=0 PROBE_WHY="kvm: $dev is not readable and writable by uid $EUID"
	else
		key=$(accel_key)
		if [[ -f $f && $(sed -n 1p "$f") == "$key" ]]; then
			PROBE_OK=$(sed -n 2p "$f") PROBE_WHY=$(sed -n 3p "$f") ACCEL_CACHED=1
		else
			stage "accel: proving KVM with a boot of $(basename "$(dirname "$kimg")")/$(basename "$kimg") (at most $ACCEL_PROBE_S s)"
			kvm_probe "$kimg"
			mkdir -p "$CACHE"
			printf '%s\n%s\n%s\n' "$key" "$PROBE_OK" "$PROBE_WHY" >"$f.tmp" && mv "$f.tmp" "$f"
		fi
	fi
	if ((PROBE_OK)); then
		ACCEL=kvm ACCEL_WHY=$PROBE_WHY
	elif [[ $want == kvm ]]; then
		usage_err "LONGPIN_ACCEL=kvm, but KVM cannot boot a guest here ($PROBE_WHY); unset LONGPIN_ACCEL to use TCG"
	else
		ACCEL=tcg ACCEL_WHY=$PROBE_WHY
	fi
	ACCEL_LINE="accel: $ACCEL ($ACCEL_WHY)"
	return 0
}

# accel_announce KIMG: ACCEL chosen (probing with KIMG when needed); the
# first call of a run says the choice, and why, in one stage line
ACCEL_SAID=0
accel_announce() {
	accel_choose "$1"
	((ACCEL_SAID)) && return 0
	stage "$ACCEL_LINE$( ((ACCEL_CACHED)) && echo " [probed before: $CACHE/accel-probe]")"
	ACCEL_SAID=1
}

# The console watchdog's bound per accelerator: no console output at all
# within it stops a boot. Our kernels print their first line in 0.4-1.6 s
# under TCG and Debian's in 1-3 s (loaded machine); KASAN kernels a little
# later. A host loaded past its cores stretches that: the bound is
# multiplied by the load average per core where it is above 1 (two
# checkouts' tests with their guests: about 3.5 on 2 cores, where a 4 GiB
# -icount boot printed nothing within 60 s). LONGPIN_CONSOLE_WATCHDOG_S
# overrides it all (tests).
console_bound() {
	local base
	if [[ -n ${LONGPIN_CONSOLE_WATCHDOG_S:-} ]]; then echo "$LONGPIN_CONSOLE_WATCHDOG_S"; return; fi
	case $1 in
	kvm) base=20 ;;
	*) base=60 ;;
	esac
	awk -v b="$base" -v n="$NPROC" '{ l = $1 / n; printf "%d\n", b * (l > 1 ? l : 1) + 0.5 }' /proc/loadavg 2>/dev/null ||
		echo "$base"
}

# watchdog_start LOG: a process that kills QEMU_PID when LOG is still
# empty after console_bound seconds (WATCHDOG_PID; it leaves
# $TMPD/watchdog-fired behind when it fired)
watchdog_start() {
	local log=$1 bound pid=$QEMU_PID
	bound=$(console_bound "$ACCEL")
	WATCHDOG_BOUND=$bound
	rm -f "$TMPD/watchdog-fired"
	(
		trap - EXIT INT TERM
		end=$((${EPOCHREALTIME/./} + bound * 1000000))
		while kill -0 "$pid" 2>/dev/null; do
			[[ -s $log ]] && exit 0
			if ((${EPOCHREALTIME/./} >= end)); then
				: >"$TMPD/watchdog-fired"
				kill -KILL "$pid" 2>/dev/null
				exit 0
			fi
			sleep 0.2
		done
	) &
	WATCHDOG_PID=$!
}
watchdog_stop() {
	[[ -n ${WATCHDOG_PID:-} ]] || return 0
	kill "$WATCHDOG_PID" 2>/dev/null || true
	wait "$WATCHDOG_PID" 2>/dev/null || true
	WATCHDOG_PID=
}
# watchdog_check WHAT KIMG LOG: when the watchdog fired, stop the run
# naming the accelerator, the kernel and the console log (exit 5)
watchdog_check() {
	[[ -f $TMPD/watchdog-fired ]] || return 0
	rm -f "${NVDIMM_FILES[@]}"
	local hint=
	[[ $ACCEL == kvm ]] && hint=" (LONGPIN_ACCEL=tcg forces the emulator)"
	die "$1: the guest printed nothing on its console within ${WATCHDOG_BOUND}s under $ACCEL ($ACCEL_WHY); kernel $2; console log: $3$hint" 5
}
