#!/bin/bash
# fio2csv.sh RAWDIR OUT.csv: converts run-fio.sh's raw outputs (RAWDIR =
# the guest's /results/fio: meta.tsv, run.R.json) into rows of longpin's
# CSV schema 2, source=fio, one row per fixed/plain pair, appended to
# OUT.csv (header written when the file is empty; "-" = stdout).
# Needs jq. Exit 0, or 2 with one line on stderr on bad input.
set -euo pipefail
me=fio2csv.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# = 2 ] || die "usage: $me RAWDIR OUT.csv"
raw=$1 out=$2
command -v jq >/dev/null || die "needs jq: apt-get install -y jq"
. "$(dirname "$0")/memtype.sh"

# longpin's CSV schema 2 header, as `longpin --csv` writes it (a test
# compares it with the binary's).
HEADER=schema,source,timestamp,kernel,contract,memtype,prefault,size,op,fs_type,dax,thp_kb,result,errno,expected,verdict,reg_ns_per_page,unreg_ns_per_page,vmpin_before_kb,vmpin_reg_kb,vmpin_after_kb,vmpin_leak_kb,foll_pin_acquired,foll_pin_released,gup_fast_pages,gup_slow_pages,refused_fsdax,refused_file,resident_before,resident_after,dirty_before_kb,dirty_after_kb,data_check,target,direct,bs,qd,ios,repeat,fixed_mibs_min,fixed_mibs_med,fixed_mibs_max,fixed_iops,plain_mibs_min,plain_mibs_med,plain_mibs_max,plain_iops,ratio_min,ratio_med,ratio_max,clat_p50_us,clat_p99_us,clat_p999_us,cpu_usr,cpu_sys,cycles,cycle_reg_ns_min,cycle_reg_ns_med,cycle_reg_ns_max,probe_calls,probe_p999_us,probe_max_us,accel,note

meta=$raw/meta.tsv
[ -d "$raw" ] || die "$raw: no such directory (run-fio.sh's output, the guest's /results/fio)"
[ -f "$meta" ] || die "$meta: missing: not a run-fio.sh output directory"
want=$'group\tpair\trw\tmem\ttarget\tmemtype\tprefault\tsize\tbs\tqd\tmem_fs\tmem_dax\tcontract\texpected\tnofault\tkernel\trepeat'
[ "$(head -n 1 "$meta")" = "$want" ] || die "$meta:1: not a run-fio.sh meta.tsv header"
bad=$(awk -F'\t' 'NR > 1 && NF != 17 { print NR ": " NF " fields, want 17"; exit }' "$meta")
[ -z "$bad" ] || die "$meta:$bad"
[ "$(wc -l <"$meta")" -gt 1 ] || die "$meta: no pairs (every job skipped?)"
repeat=$(awk -F'\t' 'NR == 2 { print $17 }' "$meta")
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "$meta:2: bad repeat count '$repeat'"

# Every repeat's JSON as one TSV line per job: R jobname error ddir-bytes/s
# iops clat p50/p99/p99.9 (ns) usr_cpu sys_cpu total_ios timestamp. The
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
# what ran the guest's CPU (longpin --print-accel in run-fio.sh); "-"
# for outputs older than that file
accel=-
[ ! -f "$raw/accel" ] || accel=$(head -c 16 "$raw/accel" | tr -dc 'a-z0-9')
[ -n "$accel" ] || die "$raw/accel: empty: rerun run-fio.sh"

# the output is checked before and written after the conversion: a bad
# input leaves it untouched
if [ "$out" != - ]; then
	if [ -e "$out" ]; then
		[ -w "$out" ] || die "$out: cannot write"
		[ ! -s "$out" ] || [ "$(head -n 1 "$out")" = "$HEADER" ] ||
			die "$out:1: not a longpin schema 2 CSV header: give a new OUT.csv"
	else
		[ -w "$(dirname "$out")" ] || die "$out: cannot create (directory not writable)"
	fi
fi
rows=$(mktemp)
trap 'rm -f "$jobs" "$rows"' EXIT

# memtype is recomputed from fio's mem= and the mount of its file (the
# same function as in the guest), errno names from the same table.
while IFS=$'\t' read -r g pair rw mem target memtype prefault size bs qd mfs mdax contract expected nofault kernel rep; do
	[ "$g" = group ] && continue
	mt=$(fio_memtype "$mem" "$mfs" "$mdax")
	[ "$mt" = "$memtype" ] || die "$meta: $pair: memtype $memtype, but mem=$mem on $mfs (dax $mdax) is $mt"
	awk -F'\t' -v OFS=, -v pair="$pair" -v rw="$rw" -v mem="$mem" -v target="$target" \
		-v memtype="$memtype" -v prefault="$prefault" -v size="$size" -v bs="$bs" \
		-v qd="$qd" -v mfs="$mfs" -v mdax="$mdax" -v contract="$contract" \
		-v expected="$expected" -v nofault="$nofault" -v kernel="$kernel" \
		-v rep="$rep" -v accel="$accel" -v header="$HEADER" -v errnames="$(for e in 1 2 5 7 11 12 13 14 16 19 22 28 38 95; do printf '%s=%s ' "$e" "$(errno_name $e)"; done)" '
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	}
	function med(a, n,   b, i) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		sort(b, n)
		return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
	}
	function mn(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	function mx(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	BEGIN {
		nc = split(header, col, ",")
		split(errnames, t, " ")
		for (i in t) { split(t[i], kv, "="); ename[kv[1]] = kv[2] }
	}
	$2 == pair "-fixed" { fe[$1] = $3; if ($3 == 0) { f[++nf] = $4 / 1048576; fi[nf] = $5
		p50[nf] = $6; p99[nf] = $7; p999[nf] = $8; usr[nf] = $9; sys[nf] = $10; fios[nf] = $11
		fr[$1] = $4 }; if ($1 == 1) ts = $12 }
	$2 == pair "-plain" { pe[$1] = $3; if ($3 == 0) { p[++np] = $4 / 1048576; pi[np] = $5; pios[np] = $11; pr[$1] = $4 } }
	END {
		for (i = 1; i <= nc; i++) v[col[i]] = "-"
		if (!(1 in fe)) { print "MISSING " pair "-fixed"; exit }
		if (!(1 in pe)) { print "MISSING " pair "-plain"; exit }
		short = pair; sub(/-write$/, "", short); sub(/.*-/, "", short)
		v["schema"] = 2; v["source"] = "fio"; v["timestamp"] = ts; v["kernel"] = kernel
		v["contract"] = contract; v["memtype"] = memtype; v["prefault"] = prefault
		v["size"] = size; v["op"] = rw "-" short; v["fs_type"] = mfs; v["dax"] = mdax
		e = fe[1]
		v["result"] = e == 0 ? 0 : -e
		v["errno"] = e == 0 ? "-" : ((e in ename) ? ename[e] : "E" e)
		res = e == 0 ? "0" : "-" v["errno"]
		v["expected"] = expected
		v["verdict"] = expected == "-" ? "unchecked" : (res == expected ? "pass" : "fail")
		note = "fio " pair " mem=" mem
		for (r = 2; r <= rep; r++) if (fe[r] != e) { v["verdict"] = "fail"; note = note "; repeat " r " answered " fe[r] }
		for (r = 1; r <= rep; r++) if (pe[r] != 0) note = note "; plain repeat " r " error " pe[r]
		if (nofault == 1) note = note "; nofault not checked by fio"
		v["target"] = target; v["direct"] = 1; v["bs"] = bs; v["qd"] = qd; v["repeat"] = rep
		if (nf) {
			v["fixed_mibs_min"] = sprintf("%.1f", mn(f, nf)); v["fixed_mibs_med"] = sprintf("%.1f", med(f, nf))
			v["fixed_mibs_max"] = sprintf("%.1f", mx(f, nf)); v["fixed_iops"] = sprintf("%.0f", med(fi, nf))
			v["ios"] = sprintf("%.0f", med(fios, nf))
			if (p50[1] != "-") {
				v["clat_p50_us"] = sprintf("%.1f", med(p50, nf) / 1000)
				v["clat_p99_us"] = sprintf("%.1f", med(p99, nf) / 1000)
				v["clat_p999_us"] = sprintf("%.1f", med(p999, nf) / 1000)
			}
			v["cpu_usr"] = sprintf("%.1f", med(usr, nf)); v["cpu_sys"] = sprintf("%.1f", med(sys, nf))
		}
		if (np) {
			v["plain_mibs_min"] = sprintf("%.1f", mn(p, np)); v["plain_mibs_med"] = sprintf("%.1f", med(p, np))
			v["plain_mibs_max"] = sprintf("%.1f", mx(p, np)); v["plain_iops"] = sprintf("%.0f", med(pi, np))
			if (!nf) v["ios"] = sprintf("%.0f", med(pios, np))
		}
		# ratio per repeat pair (fixed run R over plain run R)
		for (r = 1; r <= rep; r++) if ((r in fr) && (r in pr) && pr[r] > 0) q[++nq] = fr[r] / pr[r]
		if (nq) {
			v["ratio_min"] = sprintf("%.3f", mn(q, nq)); v["ratio_med"] = sprintf("%.3f", med(q, nq))
			v["ratio_max"] = sprintf("%.3f", mx(q, nq))
		}
		v["accel"] = accel
		v["note"] = note
		line = v[col[1]]
		for (i = 2; i <= nc; i++) line = line OFS v[col[i]]
		print line
	}' "$jobs" >"$jobs.row"
	row=$(cat "$jobs.row"); rm -f "$jobs.row"
	case $row in MISSING*) die "$raw/run.1.json: no job ${row#MISSING } (meta.tsv lists it)" ;; esac
	echo "$row" >>"$rows"
done <"$meta"

# all rows or none: appended only once every pair converted
if [ "$out" = - ]; then
	echo "$HEADER"; cat "$rows"
else
	{ [ -s "$out" ] || echo "$HEADER"; cat "$rows"; } >>"$out"
fi
