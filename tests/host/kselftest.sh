#!/bin/bash
# host/kselftest.sh CASE: the KTAP longpin prints, read by the kernel's own
# parser (kunit.py parse of Debian's linux-source-6.12, through
# kselftest/ktap_check.py: every line parses, the plan holds, skips give
# their reasons).
#   native      the kselftest tree (kselftest/build.sh, the kernel's own
#               kselftest build) run by run_kselftest.sh on this machine's
#               kernel, as root and as uid 65534 (as root; else as this
#               user alone): each run within 120 s, only the data-loss
#               cases not ok (and those the contract of this kernel names
#               as lost: reclaim memfd, lazyfree anon, the reproducer's
#               shmem), and nothing left behind: no file in the working
#               directory, TMPDIR or /dev/shm, no SysV segment, the
#               machine's nr_foll_pin acquired minus released no higher
#               after than before (within 10 s: rings are torn down
#               asynchronously; other processes' pins held before may
#               be given back meanwhile, so lower is fine)
#   guest-ktap  what ./run.sh's guests print, from the guest scripts
#               (vm/guest/) run on this machine as a lane does: matrix,
#               lifetime (every case, a failure injected into one), torture,
#               lifetime-rdma, the repro phase; every KTAP document parses,
#               and the failure is a "not ok" kunit.py reads as one
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=${1:?usage: kselftest.sh native|guest-ktap}
res=
[ -f /usr/src/linux-source-6.12.tar.xz ] ||
	skip "no /usr/src/linux-source-6.12.tar.xz, whose kunit.py and kselftest build this uses (apt-get install -y --no-install-recommends linux-source-6.12)"
command -v python3 >/dev/null || skip "no python3 for kunit.py (apt-get install -y python3)"
command -v rsync >/dev/null || skip "no rsync, which the kselftest build installs with (apt-get install -y rsync)"
kunit=$("$REPO/kselftest/build.sh" --kunit 2>"$T/build.err") ||
	{ cat "$T/build.err"; fail "kselftest/build.sh --kunit failed"; }
check() { python3 "$REPO/kselftest/ktap_check.py" --kunit "$kunit" "$@"; }

# pins: nr_foll_pin acquired minus released, machine-wide
pins() {
	awk '/^nr_foll_pin_acquired/ { a = $2 } /^nr_foll_pin_released/ { r = $2 }
		END { print a - r }' /proc/vmstat
}
# leftovers TREE UID: every file under TREE and /dev/shm, what in /tmp
# UID owns (other than root) or longpin's names would name (other
# processes of this machine write /tmp too), the SysV segments
leftovers() {
	find "$1" /dev/shm -xdev 2>/dev/null
	if [ "$2" = 0 ]; then
		find /tmp -xdev -maxdepth 2 \( -name '*longpin*' -o -name '*fixed-buf*' -o -name '*ksft*' \) 2>/dev/null
	else
		find /tmp -xdev -user "$2" 2>/dev/null
	fi
	ipcs -m 2>/dev/null | awk 'NR > 3 && NF { print "shm " $2 }'
}

case $case in
native)
	"$REPO/kselftest/build.sh" "$T/inst" >"$T/build.out" 2>&1 ||
		{ cat "$T/build.out"; fail "kselftest/build.sh failed"; }
	contract=$("$T/inst/longpin/longpin" expected --mem anon | cut -f1)
	want=()
	if grep -q '^lifetime \(reclaim\|reclaim-pinned\|lazyfree\) .*defect' \
		"$REPO/harness/contracts/$contract.contract" 2>/dev/null ||
		grep -q '^include linux-6.5-defects' "$REPO/harness/contracts/$contract.contract" 2>/dev/null; then
		want=(--not-ok '^(reclaim|reclaim-pinned|lazyfree|fixed-buf-unpin-dirty) '
			--want-not-ok 'reclaim memfd' --want-not-ok 'lazyfree anon'
			--want-not-ok 'fixed-buf-unpin-dirty shmem')
	fi
	# a tree each user may write in (the file cases use the working
	# directory), under a directory of its own in /tmp
	u=$(mktemp -d /tmp/longpin-ksft.XXXXXX) || fail "no temp dir"
	on_exit "rm -rf '$u'"
	chmod 755 "$u"
	users=("$(id -u)")
	is_root && users=(0 65534)
	for uid in "${users[@]}"; do
		d=$u/$uid
		cp -a "$T/inst" "$d"
		[ "$uid" = 0 ] || chown -R "$uid:$uid" "$d"
		as=()
		[ "$uid" = 0 ] || [ "$uid" = "$(id -u)" ] ||
			as=(setpriv --reuid="$uid" --regid="$uid" --clear-groups)
		leftovers "$d" "$uid" | grep -v "^$u\|^$T" | LC_ALL=C sort >"$T/before.$uid"
		p0=$(pins)
		start=$(date +%s.%N)
		# the runner reopens /dev/stdout: a pipe of the user's own, and
		# none of the tests' variables (LONGPIN, LONGPIN_FILE_DIR, TMPDIR)
		"${as[@]}" env -u LONGPIN -u LONGPIN_FILE_DIR -u TMPDIR \
			sh -c 'cd "$1" && ./run_kselftest.sh 2>&1 | cat' sh "$d" >"$T/out.$uid"
		secs=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
		cat "$T/out.$uid"
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ "$(pins)" -le "$p0" ] && break
			sleep 1
		done
		# another checkout's longpin may hold pins now: the counters are
		# the machine's, so judge them once no other longpin runs
		if [ "$(pins)" -gt "$p0" ] && pgrep -x 'longpin|fixed-buf-unpin|lp-runas' >/dev/null; then
			echo "# uid $uid: $(($(pins) - p0)) pins more than before, other longpin processes running: waiting up to 300 s for them to end"
			others_quiet 300 ||
				skip "uid $uid: the machine's nr_foll_pin unchecked: other longpin processes pinned for 300 s after the run"
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				[ "$(pins)" -le "$p0" ] && break
				sleep 1
			done
		fi
		[ "$(pins)" -le "$p0" ] ||
			fail "uid $uid: nr_foll_pin acquired - released was $p0 before the run, $(pins) 10 s after (no other longpin running)"
		leftovers "$d" "$uid" | grep -v "^$u\|^$T" | LC_ALL=C sort >"$T/after.$uid"
		# other tests' temp dirs aside: host tests run beside this one,
		# and another checkout's kselftest/native may run at the same time
		new=$(comm -13 "$T/before.$uid" "$T/after.$uid" | grep -v "^/tmp/longpin-\(test\|ksft\)\.")
		[ -z "$new" ] || fail "uid $uid: left behind: $(echo "$new" | head -5 | tr '\n' ' ')"
		check kselftest "$T/out.$uid" "${want[@]}" >"$T/check.$uid" ||
			{ cat "$T/check.$uid"; fail "uid $uid: the KTAP check failed (contract $contract)"; }
		sum=$(grep '^kunit.py parsed' "$T/check.$uid")
		echo "uid $uid: $secs s; $sum"
		awk -v s="$secs" 'BEGIN { exit !(s < 120) }' || fail "uid $uid: $secs s, over 120 s"
		res="$res; uid $uid in $secs s: ${sum#kunit.py parsed }"
	done
	pass "run_kselftest.sh on $(uname -r) (contract $contract)${res}; nothing left behind" ;;

guest-ktap)
	[ -x "$LONGPIN" ] || fail "no $LONGPIN (build it first)"
	g=$REPO/vm/guest
	mkdir -p "$T/f" "$T/ext4" "$T/bin"
	export LONGPIN LONGPIN_FILE_DIR=$T/f LONGPIN_EXT4=$T/ext4 TMPDIR=$T
	log=$T/lane.log
	{
		echo "# matrix on this machine ($T/f)"
		LONGPIN_SIZE=4M LONGPIN_ARGS="--ios 64 --repeat 1" LONGPIN_TYPES=anon,memfd,file-shared,fsdax-shared,hugetlb \
			sh "$g/matrix.sh" "$T/m.csv"
		echo "# lifetime cases"
		LONGPIN_LT_CYCLES=10 sh "$g/lifetime.sh" "$T/l.csv"
		echo "# reclaim, a wrong page written on purpose into memfd's"
		LONGPIN_TEST_FAULT=wrong-page sh "$g/lifetime.sh" "$T/w.csv" reclaim
		echo "# torture"
		sh "$g/torture.sh" "$T/t.csv" 1 anon memfd fsdax-shared
		sh "$g/lifetime-rdma.sh" "$T/r.csv"
	} >"$log" 2>"$T/err"
	# the repro phase, with the reproducer that CMake built when it could
	[ -x "$REPO/build/fixed-buf-unpin-dirty" ] && ln -s "$REPO/build/fixed-buf-unpin-dirty" "$T/bin/"
	LONGPIN_RESULTS=$T PATH=$T/bin:$PATH sh "$g/run.sh" repro >>"$log" 2>>"$T/err"
	cat "$log"
	[ -s "$T/err" ] && { echo "stderr:"; cat "$T/err"; }
	check documents "$log" >"$T/check" || { cat "$T/check"; fail "a KTAP document of the guest scripts does not parse"; }
	cat "$T/check"
	docs=$(sed -n 's/.*: \([0-9]*\) KTAP documents$/\1/p' "$T/check")
	[ "$docs" = 5 ] || fail "$docs KTAP documents, want 5 (matrix, lifetime, reclaim, torture, lifetime-rdma)"
	grep -q '^not ok: .*: reclaim memfd # exit 1$' "$T/check" ||
		fail "the injected wrong page is not a not ok that kunit.py reads as reclaim memfd"
	grep -q '^# fixed-buf-unpin-dirty$' "$log" || fail "no repro phase in the output"
	grep -v '^#' "$log" | grep -q '^\(shmem\|madvfree\|exit\|SKIP\)' && fail "the repro phase printed lines that are not KTAP"
	pass "$docs KTAP documents of the guest scripts, $(grep '^kunit.py parsed' "$T/check" | sed 's/kunit.py parsed //'): every line parses" ;;
*) fail "unknown case '$case'" ;;
esac
