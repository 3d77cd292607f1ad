#!/bin/sh
# fio.sh [JOBFILE...]: runs longpin's fio jobs (fio-jobs/) inside a longpin-vm guest
# (busybox sh) and leaves the raw outputs in $FIO_OUT (/results/fio):
#   meta.tsv                one line per fixed/plain pair: fio's mem=, the
#                           longpin memory type, and the running kernel's
#                           contract answer (longpin expected)
#   run.R.json              fio --output-format=json of repeat R: every job
#                           PAIR-fixed and PAIR-plain (an error text may
#                           precede the JSON); run.R.err: fio's stderr
#   accel                   longpin accel: tcg marks emulated MiB/s
# Prints a KTAP line per pair; exit 0 if every fixedbufs=1 job got the
# answer the contract expects and every twin ran, 1 otherwise.
# fio2csv.sh (host) turns the directory into CSV rows.
# Default job files: all of them. Parameters: BS IODEPTH RUNTIME
# TARGET_SIZE RW (defaults: global.inc's values) and REPEAT; the devices
# and mounts are the LONGPIN_* variables of vm/longpin-vm's guest (a pair
# that needs an unset one is skipped). The job files carry literal
# defaults so that fio runs them as they are; fio.sh runs copies in a
# temp dir in which these ${VAR}s replace them (fio_jobvars, fio-vars.sh).
# The job files: $FIO_JOBS, default /opt/fio-jobs (longpin-vm run --fio
# puts them there), or fio-jobs/ of the repository this file is in.
# The memory type of each mem= and the errno names come from longpin
# (longpin fio-memtype, fio-result).
# shellcheck source-path=SCRIPTDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/fio-vars.sh"
JOBS=${FIO_JOBS:-/opt/fio-jobs}
[ -d "$JOBS" ] || JOBS=$(cd "$HERE/../.." && pwd)/fio-jobs

# TCG defaults (global.inc: 4k, QD 8, 200ms, 16m, randread): a repeat
# costs ~2 s + per job ~0.3 s (+ RUNTIME if it registered); the default
# set (26 pairs) is ~80 s with REPEAT=3.
inc() { sed -n "s/^$1=//p" "$JOBS/global.inc"; }
: "${BS:=$(inc bs)}" "${IODEPTH:=$(inc iodepth)}" "${RUNTIME:=$(inc runtime)}"
: "${TARGET_SIZE:=$(inc size)}" "${RW:=$(inc rw)}" "${REPEAT:=3}"
export BS IODEPTH RUNTIME TARGET_SIZE RW
OUT=${FIO_OUT:-/results/fio}
LONGPIN=${LONGPIN:-longpin}
[ $# -gt 0 ] || set -- nullb nullb-write pmem dax-ext4 dax-xfs ext4 xfs

die() { echo "fio.sh: $*" >&2; exit 2; }
command -v fio >/dev/null || die "no fio in PATH (in a longpin-vm guest: run --fio)"
command -v "$LONGPIN" >/dev/null || die "no longpin (set LONGPIN=)"

# to_bytes 4k -> 4096 (fio's default kb_base is 1024)
to_bytes() {
	case $1 in
	*[kK]) echo $((${1%?} * 1024)) ;;
	*[mM]) echo $((${1%?} * 1048576)) ;;
	*) echo "$1" ;;
	esac
}
bs=$(to_bytes "$BS") && [ "$bs" -gt 0 ] 2>/dev/null || die "bad BS=$BS"
[ "$IODEPTH" -gt 0 ] 2>/dev/null || die "bad IODEPTH=$IODEPTH"
# fio registers IODEPTH iovecs of BS bytes each, carved contiguously
# from one page-aligned allocation: that is the buffer longpin is asked
# about.
regsize=$((bs * IODEPTH))

# MAP_SHARED files must exist and be large enough (fio does not extend
# them): BS*IODEPTH plus the page fio may skip to align, rounded to 1 MiB.
shsize=$(((regsize + 4096 + 1048575) / 1048576))
cleanup_files=
for d in "${LONGPIN_EXT4:-}" "${LONGPIN_XFS:-}" "${LONGPIN_TMPFS_DIR:-}" \
	"${LONGPIN_DAX_EXT4:-}" "${LONGPIN_DAX_XFS:-}"; do
	[ -n "$d" ] && [ -d "$d" ] || continue
	dd if=/dev/zero of="$d/fio-shared-buf" bs=1M count="$shsize" 2>/dev/null ||
		die "cannot write $d/fio-shared-buf"
	# file targets: written once so that fio does not lay them out per job
	dd if=/dev/zero of="$d/fio-target" bs=1M count=$(($(to_bytes "$TARGET_SIZE") / 1048576)) 2>/dev/null ||
		die "cannot write $d/fio-target"
	cleanup_files="$cleanup_files $d/fio-shared-buf $d/fio-target $d/fio-buf"
done
# the job files as fio runs them: ${VAR}s in place of their defaults
jobs=$(mktemp -d "${TMPDIR:-/tmp}/run-fio.XXXXXX") || die "cannot create a temp dir"
# shellcheck disable=SC2086
trap 'rm -f $cleanup_files ${LONGPIN_HUGETLBFS:-/nonexistent}/fio-buf; rm -rf "$jobs"' EXIT
# (include by absolute path: fio looks for a relative one in its working
# directory first, and only then next to the job file)
for f in "$JOBS"/*.fio "$JOBS/global.inc"; do
	fio_jobvars "$f" | sed "s|^include \([^/]\)|include $jobs/\1|" >"$jobs/${f##*/}" ||
		die "cannot write $jobs/${f##*/}"
done

# sections JOBFILE: one line per -fixed section (its -plain twin differs
# only in fixedbufs: tests/host/fio.sh jobs checks it):
# PAIR|MEM|FILENAME|RW|MISSING ("|": a tab would merge empty fields in
# read), ${VAR}s expanded as fio
# does, MISSING = the variables that are unset (the job is then skipped).
sections() {
	awk '
	function expand(s,   v) {
		while (match(s, /\$\{[A-Za-z_0-9]+\}/)) {
			v = substr(s, RSTART + 2, RLENGTH - 3)
			if (ENVIRON[v] == "") miss[sec] = miss[sec] " " v
			s = substr(s, 1, RSTART - 1) ENVIRON[v] substr(s, RSTART + RLENGTH)
		}
		return s
	}
	/^[ \t]*[;#]/ { next }
	/^\[/ { sec = substr($0, 2, index($0, "]") - 2); order[++n] = sec; next }
	/=/ { k = substr($0, 1, index($0, "=") - 1); val[sec, k] = expand(substr($0, index($0, "=") + 1)) }
	function get(s, k) { return ((s, k) in val) ? val[s, k] : val["global", k] }
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			if (s !~ /-fixed$/) continue
			p = substr(s, 1, length(s) - 6)
			rw = get(s, "rw"); if (rw == "") rw = ENVIRON["RW"]
			mem = get(s, "mem"); if (mem == "") mem = "malloc"
			printf "%s|%s|%s|%s|%s\n", p, mem, get(s, "filename"), rw, miss["global"] miss[s]
		}
	}' "$1"
}

mkdir -p "$OUT" || die "cannot create $OUT"
rm -f "$OUT"/run.*.json "$OUT"/run.*.err
meta=$OUT/meta.tsv
# the CSV's accel column: MiB/s under tcg are emulated, not hardware's
"$LONGPIN" accel >"$OUT/accel" || die "$LONGPIN accel failed"
printf 'group\tpair\trw\tmem\ttarget\tmemtype\tprefault\tsize\tbs\tqd\tmem_fs\tmem_dax\tcontract\texpected\tnofault\tkernel\trepeat\n' >"$meta"

# collect the pairs first: KTAP wants the count up front
list=$OUT/.pairs
: >"$list"
rm -f "$list.nohuge"
for g in "$@"; do
	[ -f "$JOBS/${g%.fio}.fio" ] || die "no job file $JOBS/${g%.fio}.fio"
	f=$jobs/${g%.fio}.fio
	sections "$f" | sed "s/^/${g%.fio}|/" >>"$list"
done

# one line of meta.tsv per runnable pair, with the contract's answer
kernel=$(uname -r)
tab=$(printf '\t')
secs=''
files=''
while IFS='|' read -r g pair mem target rw missing; do
	[ -z "$missing" ] || continue
	# fio cannot allocate huge page buffers without free huge pages (an
	# ENOMEM at allocation, not a registration answer): skip those pairs.
	# Free and not reserved: longpin's hugepages, the one rule of it
	case $mem in shmhuge | mmaphuge*)
		[ "$("$LONGPIN" hugepages)" -gt 0 ] 2>/dev/null ||
			{ echo "$g|$pair" >>"$list.nohuge"; continue; } ;;
	esac
	# longpin's memory type, and the file system of mem=TYPE:FILE as its
	# file types see it (a new file in FILE's directory)
	mt=$("$LONGPIN" fio-memtype "$mem") || die "$LONGPIN fio-memtype $mem failed"
	IFS=$tab read -r memtype mfs mdax <<EOT
$mt
EOT
	prefault=$(fio_prefault "$rw")
	# the running kernel's contract decides the verdict; longpin failing
	# to say is no "unchecked" pair
	exp=$("$LONGPIN" expected --mem "$memtype" --prefault "$prefault" --size "$regsize" 2>"$OUT/.expected.err") ||
		die "$LONGPIN expected --mem $memtype failed: $(tail -n 1 "$OUT/.expected.err")"
	exp=$(echo "$exp" | tail -n 1)
	IFS=$tab read -r contract _ _ _ expected nofault <<EOT
$exp
EOT
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$g" "$pair" "$rw" "$mem" "$target" "$memtype" "$prefault" "$regsize" \
		"$bs" "$IODEPTH" "$mfs" "$mdax" "${contract:--}" "${expected:--}" \
		"${nofault:--}" "$kernel" "$REPEAT" >>"$meta"
	secs="$secs --section=$pair-fixed --section=$pair-plain"
	# only files with a runnable pair: fio refuses a file whose [global]
	# has an empty value (filename=${LONGPIN_PMEM} unset), sections or not
	case " $files " in *" $jobs/$g.fio "*) ;; *) files="$files $jobs/$g.fio" ;; esac
done <"$list"
rm -f "$OUT/.expected.err"

# The runs: fio costs ~2 s to start under TCG and ~0.3 s per job, so each
# repeat is ONE fio invocation over all job files; stonewall (global.inc)
# runs the jobs one after the other, each -fixed job right before its
# -plain twin (so the twins alternate). An error message may precede the
# JSON in the --output file; fio's stderr is kept in run.R.err.
start=$(date +%s)
r=1
while [ -n "$secs" ] && [ "$r" -le "$REPEAT" ]; do
	# shellcheck disable=SC2086
	fio --output-format=json --output="$OUT/run.$r.json" $secs $files \
		>/dev/null 2>"$OUT/run.$r.err"
	r=$((r + 1))
done
took=$(($(date +%s) - start))

# error_of FILE JOB: fio's "error" of JOB in FILE, "?" if missing
error_of() {
	awk -v j="\"$2\"" '$1 == "\"jobname\"" { in_job = ($3 == j "," || $3 == j) }
		in_job && $1 == "\"error\"" { sub(/,$/, "", $3); print $3; exit }' "$1" 2>/dev/null |
		grep . || echo "?"
}

echo "KTAP version 1"
echo "1..$(wc -l <"$list")"
n=0 bad=0
while IFS='|' read -r g pair mem target rw missing; do
	n=$((n + 1))
	if [ -n "$missing" ]; then
		echo "ok $n $g/$pair # SKIP unset:$missing"
		continue
	fi
	if grep -qxF "$g|$pair" "$list.nohuge" 2>/dev/null; then
		echo "ok $n $g/$pair # SKIP no free huge pages (vm.nr_hugepages)"
		continue
	fi
	IFS=$tab read -r _ _ _ _ _ memtype prefault _ _ _ _ _ contract expected _ <<EOT
$(awk -F'\t' -v g="$g" -v p="$pair" '$1 == g && $2 == p' "$meta")
EOT
	fe=$(error_of "$OUT/run.1.json" "$pair-fixed")
	pe=$(error_of "$OUT/run.1.json" "$pair-plain")
	result=$("$LONGPIN" fio-result "$fe" 2>/dev/null) || result="?"
	msg="$memtype $prefault: result $result, $contract expects $expected; plain error $pe"
	if { [ "$expected" != - ] && [ "$result" != "$expected" ]; } || [ "$pe" != 0 ]; then
		echo "not ok $n $g/$pair # $msg"
		bad=$((bad + 1))
	else
		echo "ok $n $g/$pair # $msg"
	fi
done <"$list"
rm -f "$list" "$list.nohuge"
echo "# $n pairs, $bad not ok, $REPEAT repeats, fio time $took s on $kernel"
[ "$bad" = 0 ]
