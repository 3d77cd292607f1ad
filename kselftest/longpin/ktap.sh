# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# ktap.sh: sourced by the longpin kselftest's scripts (register.sh,
# data-loss.sh, pinners.sh). POSIX sh: the runner starts them with the
# test machine's /bin/sh, busybox's too.
#
# A case is one longpin run (every prefault of one memory type, one CSV
# row each) and one KTAP line, judged from the rows' verdicts (longpin's,
# against the contract the running kernel matches):
#   not ok  a row failed, or lost what the device wrote (verdict defect:
#           the contract knows this kernel loses it, a farm must see it)
#   ok      no row failed and at least one passed
#   SKIP    nothing ran or proved anything here (the reason: longpin's)
# Places, as longpin reads them: LONGPIN_FILE_DIR (default: the working
# directory, where it is a writable page-cache file system),
# LONGPIN_TMPFS_DIR (default /dev/shm), LONGPIN_DAX_DIR and LONGPIN_DEVDAX
# (no default: a DAX mount or device-dax device given on purpose; the
# device's contents are overwritten). Nothing is left behind: longpin
# unlinks its files once open (its I/O targets go to TMPDIR, default: the
# page-cache directory); this script's own temp dir goes at exit.
here=$(cd "$(dirname "$0")" && pwd)
# its own longpin, whatever LONGPIN the environment names
LONGPIN=$here/longpin
# shellcheck disable=SC2034 # the scripts' buffer size
LP_SIZE=${LONGPIN_SIZE:-4M}
KSFT_SKIP=4
n=0 plan=0 nbad=0 nran=0
lp_tmp=$(mktemp -d "${TMPDIR:-/tmp}/longpin-ksft.XXXXXX") || exit 1
lp_cleanup() { rm -rf "$lp_tmp"; }
trap lp_cleanup EXIT
trap 'lp_cleanup; exit 130' INT
trap 'lp_cleanup; exit 143' TERM

# ktap_header N: the version and plan lines, and what judges the cases
ktap_header() {
	plan=$1
	echo "KTAP version 1"
	echo "1..$plan"
	echo "# $("$LONGPIN" version 2>&1) on $(uname -r) ($(uname -m)), contract $(lp_contract), uid $(id -u)"
}

# lp_contract: the contract longpin matches to the running kernel
lp_contract() {
	"$LONGPIN" expected --mem anon 2>/dev/null | cut -f1 | head -n 1
}

# ktap_done: the exit status of a script: 1 if a case failed, 4
# (kselftest's skip) if none ran, else 0
ktap_done() {
	if [ "$n" != "$plan" ]; then
		echo "# $n results for a plan of $plan"
		exit 1
	fi
	[ "$nbad" = 0 ] || exit 1
	[ "$nran" -gt 0 ] || exit $KSFT_SKIP
	exit 0
}

# ktap_skip NAME REASON: a case that cannot run here
ktap_skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

# ktap_result NAME ok|fail|skip [TEXT]: one result line
ktap_result() {
	n=$((n + 1))
	case $2 in
	ok) nran=$((nran + 1)); echo "ok $n $1" ;;
	fail) nran=$((nran + 1)) nbad=$((nbad + 1)); echo "not ok $n $1${3:+ # $3}" ;;
	*) echo "ok $n $1 # SKIP ${3:-no reason given}" ;;
	esac
}

# lp_places: sets LONGPIN_FILE_DIR to the working directory where it
# serves (else lp_nofile says why not); the NVDIMM and device reasons
lp_places() {
	lp_nofile=
	if [ -z "${LONGPIN_FILE_DIR:-}" ]; then
		_d=$(pwd)
		_fs=$(stat -f -c %T "$_d" 2>/dev/null)
		if [ ! -w "$_d" ]; then
			lp_nofile="the working directory $_d is not writable by uid $(id -u)"
		else
			case $_fs in
			tmpfs | ramfs | ramfs* | overlayfs | squashfs | proc | sysfs)
				lp_nofile="the working directory $_d is on $_fs, not a page-cache file system (give one in LONGPIN_FILE_DIR)" ;;
			*) LONGPIN_FILE_DIR=$_d
				export LONGPIN_FILE_DIR ;;
			esac
		fi
	fi
}

# lp_unplaced TYPE: the reason TYPE cannot run here, or nothing (longpin
# types: the variable that gives its place, and whether it is set)
lp_unplaced() {
	"$LONGPIN" types </dev/null | awk -F '\t' -v m="$1" '$1 == m { print $6; exit }' >"$lp_tmp/var"
	read -r _var <"$lp_tmp/var"
	case $_var in
	LONGPIN_FILE_DIR)
		[ -n "${LONGPIN_FILE_DIR:-}" ] || echo "$lp_nofile" ;;
	LONGPIN_DAX_DIR)
		[ -n "${LONGPIN_DAX_DIR:-}" ] || echo "no DAX file system: $(lp_nvdimm) (a DAX mount is given in LONGPIN_DAX_DIR)" ;;
	LONGPIN_DEVDAX)
		[ -n "${LONGPIN_DEVDAX:-}" ] || echo "no device-dax device given: $(lp_nvdimm) (one whose contents may be overwritten is given in LONGPIN_DEVDAX)" ;;
	esac
}

# lp_nvdimm: what this machine has of NVDIMMs
lp_nvdimm() {
	set -- /sys/bus/nd/devices/region*
	if [ ! -e "$1" ]; then
		echo "no NVDIMM region (/sys/bus/nd/devices)"
	else
		set -- /dev/pmem* /dev/dax*
		echo "NVDIMM present ($*)" | sed 's| /dev/[a-z]*\*||g'
	fi
}

# lp_case NAME ARGS...: runs longpin ARGS with a CSV of its own, prints the
# case's result line; diagnostics for each row that did not pass
lp_case() {
	_name=$1
	shift
	_csv=$lp_tmp/case.csv
	rm -f "$_csv"
	_rc=0
	# I/O targets beside the page-cache files (O_DIRECT where it can), unless
	# TMPDIR says where; longpin unlinks them once open
	TMPDIR=${TMPDIR:-${LONGPIN_FILE_DIR:-/tmp}} "$LONGPIN" "$@" --quiet --csv "$_csv" \
		</dev/null >"$lp_tmp/out" 2>"$lp_tmp/err" || _rc=$?
	_msg=$(grep -v '^longpin: \(contract \|warning: \)' "$lp_tmp/err" | tail -n 1)
	_msg=${_msg#longpin: }
	# the rows: verdicts counted; a diagnostic line per row that did not
	# pass (left out of a skip whose rows all say the same); why: the
	# first failed row's prefault and note, else the first note
	set -- fail=0 defect=0 pass=0 _same=1
	: >"$lp_tmp/diag"
	: >"$lp_tmp/why"
	if [ -s "$_csv" ]; then
		# shellcheck disable=SC2046 # the counts, as words
		set -- $(awk -F, -v diag="$lp_tmp/diag" -v whyf="$lp_tmp/why" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{
				v = $c["verdict"]
				k[v == "fail" || v == "defect" ? v : v == "pass" || v == "fixed" ? "pass" : "other"]++
				if (v == "pass")
					next
				note = $c["note"]
				sub("^" v ": ", "", note)
				if (v == "fixed")
					note = "the known defect did not show: the data was kept"
				if (v == "defect")
					note = note " (a known defect of contract " $c["contract"] ")"
				if (v == "fixed")
					note = note " (contract " $c["contract"] ")"
				print "# " $c["prefault"] ": " v ": " note >diag
				if ((v == "fail" || v == "defect") && bad == "")
					bad = $c["prefault"] ": " note
				if (first == "")
					first = note
				else if (note != first)
					same = 0
			}
			END {
				printf "fail=%d defect=%d pass=%d _same=%d\n", k["fail"], k["defect"], k["pass"], same == "" ? 1 : same
				print (bad != "" ? bad : first) >whyf
			}' "$_csv")
	fi
	_f=${1#fail=} _d=${2#defect=} _p=${3#pass=} _same=${4#_same=}
	_why=$(cat "$lp_tmp/why")
	if [ "$_f" != 0 ] || [ "$_d" != 0 ]; then
		cat "$lp_tmp/diag"
		ktap_result "$_name" fail "$_why"
	elif [ "$_rc" = 1 ] || { [ "$_rc" != 0 ] && [ "$_rc" != 77 ] && ! lp_environ "$_msg"; }; then
		cat "$lp_tmp/diag"
		ktap_result "$_name" fail "exit $_rc: ${_msg:-no message}"
	elif [ "$_p" != 0 ]; then
		cat "$lp_tmp/diag"
		ktap_result "$_name" ok
	else
		[ "$_same" = 1 ] || cat "$lp_tmp/diag"
		if [ "$_rc" = 0 ] && grep -q ',unchecked,' "$_csv" 2>/dev/null; then
			ktap_result "$_name" skip "no contract describes kernel $(uname -r): the answer is unchecked"
		else
			ktap_result "$_name" skip "${_why:-${_msg:-longpin exited $_rc}}"
		fi
	fi
}

# lp_environ MSG: true when MSG is longpin's refusal of this machine's
# settings, a skip and not a failure: an unprivileged user whose
# RLIMIT_MEMLOCK is below the buffer, io_uring switched off by sysctl
lp_environ() {
	case $1 in
	*RLIMIT_MEMLOCK* | *"io_uring is disabled"*) _why="$1"; return 0 ;;
	esac
	return 1
}
