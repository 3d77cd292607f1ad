# shellcheck shell=bash
# longpin-vm, phase: channel. How the guest's output, results and exit
# status come back: QEMU serial ports on FIFOs, read while it runs and
# decoded after it stopped (the guest's side is vm/guest/init); and the
# kernel reports (WARN_RE, vm/lib/reports.sh) found in its dmesg or console.

# the lines not to count as reports: LONGPIN_DMESG_ALLOW's (the known
# false reports are taken out before, by known_false)
allow_re() { printf '%s' "${LONGPIN_DMESG_ALLOW:-$NO_LINE_RE}"; }

# the first kernel report in a log, whole (up to 40 lines), so that a CI log
# shows the call trace and not only the headline
report_excerpt() { # log
	local n l
	while IFS=: read -r n l; do
		printf '%s\n' "$l" | grep -Eq "$(allow_re)" && continue
		printf 'first report (%s, line %s):\n' "$1" "$n"
		awk -v s="$n" 'NR >= s && NR < s + 40 { print } NR > s && /====================|---\[ end trace/ { exit }' "$1"
		return 0
	done < <(grep -nE "$WARN_RE" "$1")
}
# has_report LOG: LOG has a kernel report (not an allowed line)
has_report() { grep -E "$WARN_RE" "$1" | grep -Evq "$(allow_re)"; }
# a guest that hung or died: every report headline, then the first report whole
print_reports() { # log
	grep -E "$WARN_RE" "$1" || true
	report_excerpt "$1"
}

# channel_open CONSOLE: the guest's serial ports (console, stdout, stderr,
# control channel) added to QEMU_ARGS, and the readers that copy stdout and
# stderr to ours (kept in RUNDIR) and the control channel to channel.txt
channel_open() {
	local console=$1 chan=$RUNDIR/channel.txt
	# QEMU "pipe" chardevs write to NAME.out; our readers copy that to stdout/stderr
	# (and keep a copy in the run directory)
	rm -f "$TMPD"/{out,err,ctl}.{in,out} "$TMPD/started"
	mkfifo "$TMPD"/{out,err,ctl}.{in,out}
	QEMU_ARGS+=(-chardev "file,id=con,path=$console"
		-chardev "pipe,id=out,path=$TMPD/out"
		-chardev "pipe,id=err,path=$TMPD/err"
		-chardev "pipe,id=ctl,path=$TMPD/ctl"
		-serial chardev:con -serial chardev:out -serial chardev:err -serial chardev:ctl)
	# control-channel reader: timestamps the START marker, then copies the rest
	(
		trap - EXIT INT TERM
		started=0
		while IFS= read -r line; do
			printf '%s\n' "$line" >>"$chan"
			if [[ $line == LONGPIN-START* ]]; then echo "${EPOCHREALTIME/./}" >"$TMPD/started"; started=1; break; fi
		done
		((started)) && cat >>"$chan"
	) <"$TMPD/ctl.out" &
	READER_PID=$!
	tee "$RUNDIR/stdout.txt" <"$TMPD/out.out" &
	OUT_PID=$!
	tee "$RUNDIR/stderr.txt" <"$TMPD/err.out" >&2 &
	ERR_PID=$!
	: >"$chan"
}

# channel_close: after QEMU, the readers finish
channel_close() {
	# readers end at EOF; if QEMU died before opening a FIFO, a reader still
	# blocks in open(): open and close each FIFO read-write to release it
	local fifo fd
	for fifo in out err ctl; do
		exec {fd}<>"$TMPD/$fifo.out"
		exec {fd}>&-
	done

	for _ in $(seq 50); do kill -0 "$READER_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$READER_PID" 2>/dev/null || true
	wait "$READER_PID" 2>/dev/null || true
	wait "$OUT_PID" "$ERR_PID" 2>/dev/null || true
	READER_PID='' OUT_PID='' ERR_PID=''
}

# channel_decode NAME OUT: CMD's exit status from the control channel, the
# guest's /results unpacked into OUT, its dmesg in RUNDIR and scanned: 3 for
# a kernel report after a clean exit, 99 when QEMU failed to start (no
# console output, QEMU's exit status not 0)
channel_decode() {
	local name=$1 out=$2 chan=$RUNDIR/channel.txt console=$BOOT_CONSOLE rc
	rc=$(sed -n 's/^LONGPIN-EXIT \([0-9]*\)$/\1/p' "$chan" | tail -n1)
	sed -n 's/^LONGPIN-FATAL //p' "$chan" | while IFS= read -r l; do say "guest setup failed: $l"; done
	mkdir -p "$out"
	if grep -q '^LONGPIN-RESULTS-END$' "$chan"; then
		sed -n '/^LONGPIN-RESULTS-BEGIN$/,/^LONGPIN-RESULTS-END$/p' "$chan" | sed '1d;$d' | base64 -d | tar -xzf - -C "$out" ||
			say "warning: could not unpack the guest's /results"
	fi
	sed -n '/^LONGPIN-DMESG-BEGIN$/,/^LONGPIN-DMESG-END$/p' "$chan" | sed '1d;$d' >"$RUNDIR/dmesg.txt"
	stage "run $name: results in $out; dmesg $RUNDIR/dmesg.txt; total $(_fmt_s $((BOOT_QEND - BOOT_QSTART))) s"
	if [[ -z $rc ]]; then
		# QEMU failed on the host's side: not a byte from the guest
		[[ ! -s $console ]] && ((BOOT_QEMU_RC != 0)) && return 99
		print_reports "$console" >&2
		[[ -f $TMPD/started ]] ||
			die "run $name: the guest stopped while booting, before the command started$(has_report "$console" && echo ', with a kernel report (above)'); console log: $console" 4
		die "run $name: the guest stopped before reporting an exit status; console log: $console" 4
	fi
	local scan=$RUNDIR/dmesg.txt known
	[[ -s $scan ]] || scan=$console
	known=$(known_false "$scan" "$RUNDIR/dmesg.judged")
	scan=$RUNDIR/dmesg.judged
	local hits
	# LONGPIN_DMESG_ALLOW: a regex of lines a test provokes on purpose
	# (gup_test -ct dumps pages: "page dumped because: gup_test: ...")
	hits=$(grep -E "$WARN_RE" "$scan" | grep -Ev "$(allow_re)" || true)
	((known == 0)) || stage "run $name: $known known false report(s) allowed: gup_test's warning on a zero page longpin announced (known_false, vm/lib/reports.sh)"
	if [[ -n $hits ]]; then
		say "kernel reported problems (full dmesg: $RUNDIR/dmesg.txt):"
		printf '%s\n' "$hits" >&2
		report_excerpt "$scan" >&2
		((rc == 0)) && rc=3
	fi
	grep -hE 'WARNING-NOT-DAX|WARNING-NO-SWAP|WARNING-NO-NVDIMM|WARNING-NO-XFS' "$console" >&2 || true
	return "$rc"
}
