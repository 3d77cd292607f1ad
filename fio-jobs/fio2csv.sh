#!/bin/bash
# fio2csv.sh RAWDIR OUT.csv: converts vm/guest/fio.sh's raw outputs (RAWDIR =
# the guest's /results/fio: meta.tsv, run.R.json) into rows of longpin's
# CSV schema 3, source=fio, one row per fixed/plain pair, appended to
# OUT.csv (header written when the file is empty; "-" = stdout).
# Needs jq. Exit 0, or 2 with one line on stderr on bad input.
set -euo pipefail
me=fio2csv.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# = 2 ] || die "usage: $me RAWDIR OUT.csv"
raw=$1 out=$2
command -v jq >/dev/null || die "needs jq: apt-get install -y jq"
# longpin writes the rows (longpin fio-import): $LONGPIN, else the
# build next to this script, else longpin in PATH
LONGPIN=${LONGPIN:-$(dirname "$0")/../build/longpin}
[ -x "$LONGPIN" ] || LONGPIN=$(command -v longpin) ||
	die "needs longpin: build it (cmake --build build) or set LONGPIN="

meta=$raw/meta.tsv
[ -d "$raw" ] || die "$raw: no such directory (vm/guest/fio.sh's output, the guest's /results/fio)"
[ -f "$meta" ] || die "$meta: missing: not a vm/guest/fio.sh output directory"
want=$'group\tpair\trw\tmem\ttarget\tmemtype\tprefault\tsize\tbs\tqd\tmem_fs\tmem_dax\tcontract\texpected\tnofault\tkernel\trepeat'
[ "$(head -n 1 "$meta")" = "$want" ] || die "$meta:1: not a vm/guest/fio.sh meta.tsv header"
bad=$(awk -F'\t' 'NR > 1 && NF != 17 { print NR ": " NF " fields, want 17"; exit }' "$meta")
[ -z "$bad" ] || die "$meta:$bad"
[ "$(wc -l <"$meta")" -gt 1 ] || die "$meta: no pairs (every job skipped?)"
repeat=$(awk -F'\t' 'NR == 2 { print $17 }' "$meta")
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "$meta:2: bad repeat count '$repeat'"

# Every repeat's JSON as one TSV line per job, longpin fio-import's
# input: R jobname error ddir-bytes/s iops clat p50/p99/p99.9 (ns)
# usr_cpu sys_cpu total_ios timestamp ("-": none). The
# object starts at the first line that starts with "{": fio may print
# error text (err=95 ... func=io_queue_init) before it.
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT
for ((r = 1; r <= repeat; r++)); do
	f=$raw/run.$r.json
	[ -f "$f" ] || die "$f: missing (meta.tsv says $repeat repeats)"
	grep -q '^{' "$f" || die "$f: no fio JSON object in it (fio --output-format=json output expected)"
	sed -n '/^{/,$p' "$f" | jq -r --arg r "$r" '
		.timestamp as $ts | .jobs[] |
		(if (.write.total_ios // 0) > (.read.total_ios // 0) then .write else .read end) as $d |
		($d.clat_ns.percentile // {}) as $p |
		[$r, .jobname, .error, $d.bw_bytes, $d.iops, ($p["50.000000"] // "-"),
		 ($p["99.000000"] // "-"), ($p["99.900000"] // "-"), .usr_cpu, .sys_cpu,
		 $d.total_ios, ($ts | todate)] | @tsv' >>"$jobs" 2>/dev/null ||
		die "$f: no fio JSON object in it (fio --output-format=json output expected)"
done
[ -s "$jobs" ] || die "$raw/run.1.json: no jobs in the fio JSON"
# what ran the guest's CPU (longpin accel in vm/guest/fio.sh); "-"
# for outputs older than that file
accel=-
[ ! -f "$raw/accel" ] || accel=$(head -c 16 "$raw/accel" | tr -dc 'a-z0-9')
[ -n "$accel" ] || die "$raw/accel: empty: rerun vm/guest/fio.sh"

# the output is checked before and written after the conversion: a bad
# input leaves it untouched (longpin checks its header)
if [ "$out" != - ]; then
	if [ -e "$out" ]; then
		[ -w "$out" ] || die "$out: cannot write"
	else
		[ -w "$(dirname "$out")" ] || die "$out: cannot create (directory not writable)"
	fi
fi

# The rows: longpin recomputes memtype from fio's mem= and the file
# system of its file (as in the guest), takes min/median/max over the
# repeats and the verdict as for its own rows, and appends all rows or
# none (the CSV schema: README.md).
err=$(mktemp)
trap 'rm -f "$jobs" "$err"' EXIT
"$LONGPIN" fio-import "$raw" "$out" "$accel" <"$jobs" 2>"$err" ||
	die "$(sed -n '1s/^longpin: //p' "$err" | grep . || echo "$LONGPIN fio-import failed")"
