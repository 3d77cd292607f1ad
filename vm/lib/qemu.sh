# shellcheck shell=bash
# longpin-vm, phase: qemu. The QEMU command line with
# its NVDIMMs, the prepared NVDIMM images, the guest's kernel and
# initramfs, the run directory and one boot of the guest.

NVDIMM_GOLDEN=         # nvdimm_prepare: the directory of the prepared images
QEMU_BIN=qemu-system-x86_64
QEMU_DATA=()           # -L DIR of QEMU_BIN's firmware, when it is not the installed one

# --icount needs a QEMU whose single-threaded TCG shares each timer slice
# among the vCPUs (8.1, "accel/tcg/tcg-accel-ops-rr: ensure fairness with
# icount"): bookworm's 7.2 gives the first vCPU the whole slice, so a
# second one waiting for it (the AP bring-up at boot, the stall prober)
# never runs and 6.1 hangs at "x86: Booting SMP configuration". The QEMU of
# bookworm-backports is fetched once with apt-get download from a private
# apt list and unpacked into the cache (never installed, the host's QEMU
# is untouched): qemu-system-x86, its firmware (qemu-system-data) and the
# seabios it wants. Delete <cache>/qemu-icount to fetch a newer one.
ICOUNT_QEMU_SUITE=bookworm-backports
ICOUNT_QEMU_PKGS=(qemu-system-x86 qemu-system-data seabios)
icount_qemu() { # -> QEMU_BIN, QEMU_DATA
	local dir=$CACHE/qemu-icount p
	if [[ ! -x $dir/root/usr/bin/qemu-system-x86_64 ]]; then
		stage "icount: fetching QEMU from $ICOUNT_QEMU_SUITE (${ICOUNT_QEMU_PKGS[*]}; not installed, unpacked into $dir)"
		rm -rf "$dir.new"
		private_apt "$CACHE/apt-$ICOUNT_QEMU_SUITE" "$ICOUNT_QEMU_SUITE"
		mkdir -p "$dir.new/debs"
		(cd "$dir.new/debs" && v apt-get -q "${APT_OPTS[@]}" download \
			"${ICOUNT_QEMU_PKGS[@]/%//$ICOUNT_QEMU_SUITE}" >"$dir.new/apt.log" 2>&1) ||
			die "icount: apt-get download ${ICOUNT_QEMU_PKGS[*]} from $ICOUNT_QEMU_SUITE failed (log $dir.new/apt.log)"
		for p in "$dir.new/debs"/*.deb; do v dpkg-deb -x "$p" "$dir.new/root"; done
		(cd "$dir.new/debs" && ls) >"$dir.new/packages"
		rm -rf "$dir.new/debs" "$dir"
		mv "$dir.new" "$dir"
	fi
	QEMU_BIN=$dir/root/usr/bin/qemu-system-x86_64
	QEMU_DATA=(-L "$dir/root/usr/share/qemu" -L "$dir/root/usr/share/seabios")
	"$QEMU_BIN" --version >/dev/null 2>&1 ||
		die "icount: $QEMU_BIN does not run here: $("$QEMU_BIN" --version 2>&1 | head -n1)"
}
qemu_args() { # name kernel initrd mode [extra kernel args] -> QEMU_ARGS
	local name=$1 kern=$2 initrd=$3 mode=$4 extra=${5:-} cpu
	accel_announce "$kern"
	# No 5-level paging: 6.1 with KASAN and LA57 reports a false
	# "wild-memory-access" when an interrupt lands while identify_cpu()
	# has cleared boot_cpu_data's capabilities (pgtable_l5_enabled() and so
	# KASAN_SHADOW_START flip for that window; LKML 2026-06, "kasan: Fix
	# false-positive wild-memory-access on x86 under 5-level paging").
	# Under TCG the window is wide enough to hit now and then; real
	# machines that pin memory run 4-level paging anyway.
	cpu=max,la57=off
	# sparse backing files for every boot, removed with the temp dir:
	# copies of the prepared images (nvdimm_prepare), or empty ones
	local big=$TMPD/nvdimm-big.img small=$TMPD/nvdimm-small.img nvdimms=()
	NVDIMM_FILES=("$big" "$small")
	rm -f "$big" "$small"
	# a user's kernel whose config lacks an option the NVDIMMs need
	# (vm/lib/user.sh): none attached, the guest carries on without
	if [[ -n $NVDIMM_OFF ]]; then
		NVDIMM_FILES=()
	elif [[ $mode != prepare && -n $NVDIMM_GOLDEN && -f $NVDIMM_GOLDEN/big.img ]]; then
		cp --sparse=always "$NVDIMM_GOLDEN/big.img" "$big"
		cp --sparse=always "$NVDIMM_GOLDEN/small.img" "$small"
	else
		truncate -s "$NVDIMM_BIG" "$big"
		truncate -s "$NVDIMM_SMALL" "$small"
	fi
	# shellcheck disable=SC2054 # commas are part of QEMU options
	[[ -n $NVDIMM_OFF ]] ||
		nvdimms=(-object "memory-backend-file,id=mem0,share=on,mem-path=$big,size=$NVDIMM_BIG,align=2M"
			-device nvdimm,id=nvdimm0,memdev=mem0,label-size=128K
			-object "memory-backend-file,id=mem1,share=on,mem-path=$small,size=$NVDIMM_SMALL,align=2M"
			-device nvdimm,id=nvdimm1,memdev=mem1,label-size=128K)
	# two NUMA nodes of half the memory and one vCPU each (move_pages()
	# for --torture's migrate op); the NVDIMMs sit on node 0. Each vCPU
	# is a socket of its own: two cores of one socket (one LLC) on two
	# nodes make 6.1 warn in topology_sane() at boot.
	local node_mem=$((${GUEST_MEM%G} * 512))M numa=() accel=(-accel "$ACCEL")
	((GUEST_NODES == 2)) &&
		numa=(-object "memory-backend-ram,id=ram0,size=$node_mem" -numa "node,nodeid=0,cpus=0,memdev=ram0"
			-object "memory-backend-ram,id=ram1,size=$node_mem" -numa "node,nodeid=1,cpus=1,memdev=ram1")
	# --icount: the guest's clocks count executed instructions (2^SHIFT ns
	# each), so a time taken inside the guest is a cost that does not move
	# with the host's load; single-threaded TCG runs the vCPUs in turns and
	# sleep=off lets an idle guest jump to its next timer
	if [[ -n $ICOUNT ]]; then
		icount_qemu
		# shellcheck disable=SC2054 # commas are part of QEMU options
		accel=("${QEMU_DATA[@]}" -accel tcg,thread=single -icount "shift=$ICOUNT,sleep=off")
	fi
	# no_timer_check: the boot's test of the timer interrupt
	# (timer_irq_works()) spins until the TSC has moved 40e9/HZ cycles or
	# five ticks came. Under TCG the vCPU threads spin while QEMU's main
	# thread fires the timers: on a busy host the one runs, the other not,
	# and the guest panicked ("IO-APIC + timer doesn't work!", or through
	# the remapped IO-APIC of run --vfio) with a timer that works (test
	# vm/tool/starved-boot). KVM guests skip the test themselves.
	local append="console=ttyS0 panic=-1 loglevel=${LOGLEVEL:-5} log_buf_len=1M no_timer_check hugepages=$HUGEPAGES"
	append+=" brd.${BRD_PARAMS// / brd.} null_blk.$NULLB_PARAMS random.trust_cpu=on secretmem.enable=1 longpin.kernel=$name longpin.mode=$mode${extra:+ $extra}"
	# the guest's benchmarks label their figures by it (vm/guest/bench.sh)
	[[ -z $ICOUNT ]] || append+=" longpin.icount=$ICOUNT"
	# run --vfio: the machine, devices and command line vfio needs
	local machine=pc,nvdimm=on iommu=()
	if ((WITH_VFIO)); then
		vfio_args
		machine=$VFIO_MACHINE iommu=("${VFIO_DEVICES[@]}")
		append+=" $VFIO_APPEND"
	fi
	# shellcheck disable=SC2054,SC2206 # commas are part of QEMU options; LONGPIN_QEMU_EXTRA splits
	QEMU_ARGS=("$QEMU_BIN" "${accel[@]}" -machine "$machine" -cpu "$cpu" -smp 2,sockets=2,cores=1,threads=1
		-m "$GUEST_MEM,slots=4,maxmem=$((${GUEST_MEM%G} + 6))G" -nodefaults -vga none -display none -no-reboot
		"${numa[@]}" "${iommu[@]}"
		# LONGPIN_QEMU_EXTRA: more QEMU arguments, split at blanks (a
		# study's -plugin with --icount, say); none by default
		${LONGPIN_QEMU_EXTRA:-}
		-kernel "$kern" -initrd "$initrd" -append "$append" "${nvdimms[@]}")
}

# vfio_args -> VFIO_MACHINE VFIO_DEVICES VFIO_APPEND: run --vfio's guest.
# vfio-pci needs a device in an IOMMU group, and QEMU's emulated IOMMU
# (intel-iommu) is a q35 device; its interrupt remapping (intremap=on)
# lets vfio_iommu_type1 take the group without allow_unsafe_interrupts,
# and under KVM it needs the split irqchip. The device is QEMU's edu
# (1234:11e8), which no Debian driver claims: the guest binds it to
# vfio-pci. Debian's kernels leave the IOMMU off unless intel_iommu=on.
# NVDIMMs work on q35 as on pc (nvdimm=on). Only run --vfio asks for it:
# the pc guests and their results stay as they are.
vfio_args() {
	VFIO_MACHINE=q35,nvdimm=on
	[[ $ACCEL != kvm ]] || VFIO_MACHINE+=,kernel-irqchip=split
	# shellcheck disable=SC2054 # commas are part of QEMU options
	VFIO_DEVICES=(-device intel-iommu,intremap=on -device edu)
	VFIO_APPEND='intel_iommu=on longpin.vfio=1'
}

# nvdimm_prepare NAME: NVDIMM_GOLDEN, the cached NVDIMM images with labels,
# the four named namespaces and the DAX file systems, made once by a boot
# of NAME in prepare mode. Boots then copy them and skip ndctl and mkfs
# (about 3.5 s of every boot under TCG). The key covers the guest init,
# the sizes and the tools that wrote them.
nvdimm_dir() {
	echo "$CACHE/nvdimm/$({ echo "$NVDIMM_RECIPE $NVDIMM_BIG $NVDIMM_SMALL"; sha256sum "$GUEST_INIT" | cut -d' ' -f1
		bins_key /usr/bin/ndctl /usr/sbin/mkfs.ext4 /usr/sbin/mkfs.xfs; } | sha)"
}
nvdimm_prepare() {
	local name=$1 dir log=$CACHE/logs/nvdimm-prepare.log
	dir=$(nvdimm_dir)
	NVDIMM_GOLDEN=$dir
	[[ -f $dir/big.img && -f $dir/small.img ]] && return 0
	stage "nvdimm: preparing namespaces and file systems once (a boot of $name; log $log)"
	mkdir -p "$CACHE/logs" "$CACHE/nvdimm"
	qemu_args "$name" "$KIMG" "$INITRD" prepare
	((VERBOSE)) && printf '+ %s\n' "$(printf '%q ' "${QEMU_ARGS[@]}" -serial "file:$log")" >&2
	: >"$log"
	"${QEMU_ARGS[@]}" -serial "file:$log" </dev/null >/dev/null 2>"$TMPD/prepare.stderr" &
	QEMU_PID=$!
	watchdog_start "$log"
	sleep 600 &
	SLEEPER_PID=$!
	boot_wait
	watchdog_stop
	watchdog_check "nvdimm: preparing the images" "$KIMG" "$log"
	local why=
	((BOOT_TIMED_OUT)) && why=" (killed after 600 s)"
	grep -q 'LONGPIN-PREPARED' "$log" ||
		die "nvdimm: preparing the images failed$why; console log: $log" 4
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	mv "${NVDIMM_FILES[0]}" "$dir.tmp/big.img"
	mv "${NVDIMM_FILES[1]}" "$dir.tmp/small.img"
	mv "$dir.tmp" "$dir"
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -td "$CACHE/nvdimm"/*/ 2>/dev/null | tail -n +3 | xargs -r rm -rf
	stage "nvdimm: prepared $dir"
}

prep_guest() { # name mode cmd... -> KIMG INITRD (in TMPD)
	local name=$1 mode=$2
	shift 2
	ensure_packages
	if [[ -n $ICOUNT ]]; then
		lock_named icount-qemu "fetching the icount QEMU"
		icount_qemu
		unlock_named icount-qemu
	fi
	# a user's kernel (image:, tree:): built or found, then checked
	# before any boot (vm/lib/user.sh): USER_LACKS for the guest,
	# NVDIMM_OFF, or exit 2 when it cannot run the guest
	GUEST_USER=0 NVDIMM_OFF=''
	if is_user "$name"; then
		GUEST_USER=1
		user_prepare "$name"
		user_check "$name"
		KIMG=$USER_IMG
	else
		KIMG=$(kernel_image "$name")
	fi
	local base mods='' fio='' vfio='' has_mods=0
	[[ $name == debian-* ]] && has_mods=1
	[[ $GUEST_USER == 1 && -n $USER_MODROOT ]] && has_mods=1
	lock_named initramfs "making the initramfs archives"
	base=$(base_initramfs)
	((has_mods)) && mods=$(modules_initramfs "$name")
	((WITH_FIO)) && fio=$(fio_initramfs)
	if ((WITH_VFIO)); then
		# ours have vfio built in (vm/kernel.config)
		((!has_mods)) || vfio=$(vfio_initramfs "$name")
	fi
	mktmp
	run_initramfs "$name" "$@"
	INITRD=$TMPD/initrd.cpio.gz
	# concatenated cpio archives: base, modules, per-run (command, longpin, --add)
	cat "$base" ${mods:+"$mods"} ${vfio:+"$vfio"} ${fio:+"$fio"} "$TMPD/run.cpio.gz" >"$INITRD"
	stage "initramfs: $(du -h "$INITRD" | cut -f1) ($(basename "$base")${mods:+ + $(basename "$mods")}${vfio:+ + $(basename "$vfio")}${fio:+ + $(basename "$fio")} + per-run part)"
	unlock_named initramfs
	# the prepare boot needs this initramfs; the lock keeps two runs from
	# preparing the same images at once. Never a user's kernel: it boots
	# the images ours prepared, or blank ones its guest sets up itself
	if ((GUEST_USER)); then
		NVDIMM_GOLDEN=$(nvdimm_dir)
		return 0
	fi
	lock_named nvdimm "preparing the NVDIMM images"
	nvdimm_prepare "$name"
	unlock_named nvdimm
}

new_rundir() {
	mkdir -p "$CACHE/runs"
	RUNDIR=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$1.XXXX")
	echo $$ >"$RUNDIR/owner"
	prune_runs "$CACHE/runs" 30
}

# prune_runs DIR N: remove all but the N newest run directories, never one
# whose longpin-vm is still alive (its owner file): a 30-minute benchmark
# boot beside a ./test.sh lost its console and channel to the pruning of
# the runs started after it, and died with exit 4
prune_runs() {
	local d pid
	# shellcheck disable=SC2012 # ls -t: newest first; the names are our own
	ls -dt "$1"/*/ 2>/dev/null | tail -n +$(($2 + 1)) | while read -r d; do
		pid=$(cat "$d/owner" 2>/dev/null)
		[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && continue
		rm -rf "$d"
	done
}

# run_guest NAME TIMEOUT OUT CMD...: prepare and boot the guest, CMD's status
run_guest() {
	local name=$1 timeout=$2 out=$3
	shift 3
	local args=("$@")
	prep_guest "$name" run "${args[@]}"
	# Only a host-side failure to start QEMU (it exited at once, with an
	# error and not one byte on the console) is tried once more; its
	# stderr is shown first. A guest that died, hung or reported anything
	# is never booted again: an intermittent Oops at boot is a finding.
	local attempt rc=0
	for attempt in 1 2; do
		rc=0
		boot_once "$name" "$timeout" "$out" "$attempt" "${args[@]}" || rc=$?
		((rc == 99)) || return "$rc"
		((attempt == 1)) && stage "run $name: QEMU failed to start (exit $BOOT_QEMU_RC, stderr $RUNDIR/qemu.stderr): starting it once more"
	done
	die "run $name: QEMU failed to start twice (exit $BOOT_QEMU_RC): $(head -c 200 "$RUNDIR/qemu.stderr" | tr '\n' ' ')" 4
}

# boot_once NAME TIMEOUT OUT ATTEMPT CMD...: one boot; its exit status, or
# 99 when QEMU failed to start (host side; BOOT_QEMU_RC, qemu.stderr)
boot_once() {
	local name=$1 timeout=$2 out=$3 attempt=$4
	shift 4
	new_rundir "$name"
	BOOT_CONSOLE=$RUNDIR/console.log
	[[ -n $out ]] || out=$RUNDIR/results
	stage "run $name: console log $BOOT_CONSOLE"
	boot_start "$name" "$timeout" "$attempt" "$@"
	boot_wait
	watchdog_stop
	channel_close
	watchdog_check "run $name" "$KIMG" "$BOOT_CONSOLE"
	boot_stopped "$name" "$timeout"
	channel_decode "$name" "$out"
}

# boot_start NAME TIMEOUT ATTEMPT CMD...: the channel readers, QEMU
# (QEMU_PID, started at BOOT_QSTART) and its timeout (SLEEPER_PID)
boot_start() {
	local name=$1 timeout=$2 attempt=$3
	shift 3
	((VERBOSE)) && LOGLEVEL=7
	# test hooks (vm/tool/boot-retry): the first boot's guest dies before
	# the start; the first QEMU cannot start (a backing file it cannot open)
	local extra=
	[[ ${LONGPIN_VM_TEST_BOOT_DEATH:-0} == 1 ]] && ((attempt == 1)) && extra=longpin.test=boot-death
	qemu_args "$name" "$KIMG" "$INITRD" run "$extra"
	# shellcheck disable=SC2054
	[[ ${LONGPIN_VM_TEST_QEMU_FAIL:-0} == 1 ]] && ((attempt == 1)) &&
		QEMU_ARGS+=(-object memory-backend-file,id=lptest,size=2M,mem-path=/nonexistent/longpin-test-hook)
	channel_open "$BOOT_CONSOLE"
	stage "run $name: starting QEMU ($ACCEL, timeout ${timeout}s): $*"
	((VERBOSE)) && printf '+ %s\n' "$(printf '%q ' "${QEMU_ARGS[@]}")" >&2
	BOOT_QSTART=${EPOCHREALTIME/./}
	"${QEMU_ARGS[@]}" </dev/null 2>"$RUNDIR/qemu.stderr" &
	QEMU_PID=$!
	watchdog_start "$BOOT_CONSOLE"
	sleep "$timeout" &
	SLEEPER_PID=$!
}

# boot_wait: until QEMU exits (its status BOOT_QEMU_RC), or the timeout
# kills it (BOOT_TIMED_OUT=1)
boot_wait() {
	BOOT_TIMED_OUT=0
	BOOT_QEMU_RC=0
	# (stderr off while QEMU is reaped: bash would print "Killed" for it)
	{
		wait -n "$QEMU_PID" "$SLEEPER_PID" || true
		if kill -0 "$QEMU_PID"; then
			BOOT_TIMED_OUT=1
			kill -KILL "$QEMU_PID" || true
		fi
		wait "$QEMU_PID" || BOOT_QEMU_RC=$?
	} 2>/dev/null
	QEMU_PID=
	kill "$SLEEPER_PID" 2>/dev/null || true
	wait "$SLEEPER_PID" 2>/dev/null || true
	SLEEPER_PID=
}

# boot_stopped NAME TIMEOUT: after QEMU: its NVDIMM files removed, its
# stderr and the boot time shown (BOOT_QEND); a timeout ends the run (124)
boot_stopped() {
	local name=$1 timeout=$2
	rm -f "${NVDIMM_FILES[@]}"
	BOOT_QEND=${EPOCHREALTIME/./}
	if [[ -s $RUNDIR/qemu.stderr ]]; then grep -v 'host doesn.t support requested feature' "$RUNDIR/qemu.stderr" >&2 || true; fi
	if [[ -f $TMPD/started ]]; then
		stage "run $name: boot to first result: $(_fmt_s $(($(cat "$TMPD/started") - BOOT_QSTART))) s"
	fi
	if ((BOOT_TIMED_OUT)); then
		stage "run $name: total $(_fmt_s $((BOOT_QEND - BOOT_QSTART))) s"
		print_reports "$BOOT_CONSOLE" >&2
		die "run $name: guest killed after the ${timeout}s timeout (--timeout); console log: $BOOT_CONSOLE" 124
	fi
}

# shell_guest NAME: the guest with its console on stdio; QEMU's status
shell_guest() {
	local name=$1
	prep_guest "$name" shell true
	new_rundir "$name-shell"
	LOGLEVEL=7
	qemu_args "$name" "$KIMG" "$INITRD" shell
	# shellcheck disable=SC2054
	QEMU_ARGS+=(-chardev "stdio,id=con,mux=on,signal=off,logfile=$RUNDIR/console.log" -serial chardev:con -mon chardev=con,mode=readline)
	stage "shell $name: console log $RUNDIR/console.log; quit with Ctrl-A x"
	((VERBOSE)) && printf '+ %s\n' "$(printf '%q ' "${QEMU_ARGS[@]}")" >&2
	local rc=0
	"${QEMU_ARGS[@]}" || rc=$?
	rm -f "${NVDIMM_FILES[@]}"
	return $rc
}
