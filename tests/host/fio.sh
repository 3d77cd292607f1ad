#!/bin/bash
# fio.sh CASE: the fio jobs (fio-jobs/): the host-side converter
# fio2csv.sh on the captured outputs of tests/data/fio/stock/ and
# debian-6.12/ (fio.sh in those guests, JSON trimmed with jq to the
# fields the converter reads: jobname, error, bw/iops/ios, 3 clat
# percentiles, cpu), the
# job files and the memory type mapping. The jobs in the stock guest:
# tests/vm/fio.sh.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
ROOT=${LONGPIN_SRC:-$REPO}
J=$ROOT/fio-jobs
D=$ROOT/tests/data/fio/stock
case=${1:-}

command -v jq >/dev/null || skip "no jq (apt-get install -y jq)"

# bad DIR MESSAGE: exit 2, one line on stderr containing MESSAGE, no row
bad() {
	conv "$1" "$T/bad.csv"
	[ "$rc" = 2 ] || fail "exit status $rc, expected 2"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "want one line on stderr"
	grep -qF -- "fio2csv.sh: $2" "$T/err" || fail "no 'fio2csv.sh: $2' on stderr"
	[ ! -s "$T/bad.csv" ] || [ "$(wc -l <"$T/bad.csv")" -le 1 ] || fail "rows written despite the error"
}
copy() { cp -r "$D" "$T/raw"; }

case $case in
header)
	run_longpin --mem anon --size 4K --no-io --quiet --csv -
	ran_ok "longpin --mem anon"
	h=$(grep -m 1 '^schema,' "$T/out") || fail "longpin wrote no CSV header on stdout"
	conv "$D" "$T/o.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(head -n 1 "$T/o.csv")" = "$h" ] || fail "header differs from longpin's: $(head -n 1 "$T/o.csv")"
	pass "the header is longpin's schema 4 header" ;;
convert)
	conv "$D" "$T/o.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(wc -l <"$T/o.csv")" = 27 ] || fail "$(wc -l <"$T/o.csv") lines, want header + 26"
	n=$(awk -F, '{ print NF }' "$T/o.csv" | sort -u)
	[ "$n" = 74 ] || fail "field counts: $n"
	! csv_cols "$T/o.csv" verdict | grep -qvx pass || fail "a verdict is not pass on stock"
	p=mmapshared-daxext4-nullb
	want "$T/o.csv" $p source fio
	want "$T/o.csv" $p memtype fsdax-shared
	want "$T/o.csv" $p fs_type ext4
	want "$T/o.csv" $p dax 1
	want "$T/o.csv" $p prefault none
	want "$T/o.csv" $p result -95
	want "$T/o.csv" $p errno EOPNOTSUPP
	want "$T/o.csv" $p expected -EOPNOTSUPP
	want "$T/o.csv" $p verdict pass
	want "$T/o.csv" $p contract linux-6.1
	want "$T/o.csv" $p accel -	# raw outputs from before fio.sh wrote accel
	want "$T/o.csv" $p fixed_mibs_med -
	want "$T/o.csv" $p ratio_med -
	is_num "$(col "$T/o.csv" $p plain_mibs_med)" || fail "$p: no plain MiB/s for the refused pair"
	p=malloc-nullb
	want "$T/o.csv" $p memtype anon
	want "$T/o.csv" $p op randread-nullb
	want "$T/o.csv" $p size 32768
	want "$T/o.csv" $p bs 4096
	want "$T/o.csv" $p qd 8
	want "$T/o.csv" $p repeat 3
	want "$T/o.csv" $p direct 1
	want "$T/o.csv" $p target /dev/nullb0
	for c in fixed_mibs_min fixed_mibs_med fixed_mibs_max fixed_iops plain_mibs_med plain_iops \
		ratio_min ratio_med ratio_max clat_p50_us clat_p99_us clat_p999_us cpu_usr cpu_sys ios; do
		is_num "$(col "$T/o.csv" $p $c)" || fail "$p: $c is '$(col "$T/o.csv" $p $c)'"
	done
	# ratio = fixed/plain per repeat: check the median from the JSON
	r=$(for i in 1 2 3; do jq -r '[.jobs[] | select(.jobname | startswith("malloc-nullb-")) | .read.bw_bytes] | .[0] / .[1]' "$D/run.$i.json"; done |
		sort -g | sed -n 2p)
	[ "$(printf '%.3f' "$r")" = "$(col "$T/o.csv" $p ratio_med)" ] || fail "ratio_med $(col "$T/o.csv" $p ratio_med), JSON says $r"
	want "$T/o.csv" shm-nullb memtype sysv-shm
	want "$T/o.csv" shm-nullb result -95
	want "$T/o.csv" shmhuge-nullb memtype sysv-shm-huge
	want "$T/o.csv" mmaphuge-nullb memtype memfd-hugetlb
	want "$T/o.csv" mmap-tmpfs-nullb memtype tmpfs-private
	want "$T/o.csv" mmapshared-xfs-nullb memtype file-shared
	want "$T/o.csv" mmap-daxext4-nullb-write prefault write
	want "$T/o.csv" mmap-daxext4-nullb-write op randwrite-nullb
	want "$T/o.csv" malloc-pmem op randread-pmem
	# the guest's accelerator goes into every row
	copy; echo tcg >"$T/raw/accel"
	conv "$T/raw" "$T/o2.csv"; [ "$rc" = 0 ] || fail "exit status $rc with an accel file"
	[ "$(csv_cols "$T/o2.csv" accel | sort -u)" = tcg ] ||
		fail "accel is not tcg in every row"
	pass "26 rows, 64 columns, accel from the guest; fsdax-shared -EOPNOTSUPP pass, malloc ratio x$(col "$T/o.csv" malloc-nullb ratio_med)" ;;
convert-6.12)
	# the same jobs on Debian's 6.12: page-cache policy moved into GUP
	conv "$ROOT/tests/data/fio/debian-6.12" "$T/o.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(wc -l <"$T/o.csv")" = 27 ] || fail "$(wc -l <"$T/o.csv") lines, want header + 26"
	! csv_cols "$T/o.csv" verdict | grep -qvx pass || fail "a verdict is not pass on 6.12"
	want "$T/o.csv" malloc-nullb contract linux-6.5+
	want "$T/o.csv" shm-nullb result 0
	want "$T/o.csv" mmap-ext4-nullb result 0
	want "$T/o.csv" mmapshared-ext4-nullb result -14
	want "$T/o.csv" mmapshared-ext4-nullb errno EFAULT
	want "$T/o.csv" mmapshared-ext4-nullb expected -EFAULT
	want "$T/o.csv" mmap-daxext4-nullb result -95
	want "$T/o.csv" mmap-daxext4-nullb-write prefault write
	want "$T/o.csv" mmap-daxext4-nullb-write result 0
	want "$T/o.csv" mmap-daxext4-nullb-write verdict pass
	is_num "$(col "$T/o.csv" mmap-daxext4-nullb-write ratio_med)" || fail "no ratio for the registered fsdax-private write"
	pass "6.12: file-shared -EFAULT, fsdax-private none -EOPNOTSUPP / write 0, all pass" ;;
append)
	conv "$D" "$T/o.csv" && conv "$D" "$T/o.csv"
	[ "$rc" = 0 ] || fail "exit status $rc"
	[ "$(grep -c '^schema,' "$T/o.csv")" = 1 ] || fail "header not written exactly once"
	[ "$(wc -l <"$T/o.csv")" = 53 ] || fail "$(wc -l <"$T/o.csv") lines, want 53"
	pass "appending twice: one header, 52 rows" ;;
error-text)
	# a refused registration may print fio's error before the JSON
	copy
	{ echo "fio: pid=123, err=95/file:engines/io_uring.c:1202, func=io_queue_init, error=Operation not supported"
	  cat "$D/run.1.json"; } >"$T/raw/run.1.json"
	conv "$T/raw" "$T/a.csv"; [ "$rc" = 0 ] || fail "exit status $rc"
	conv "$D" "$T/b.csv"; [ "$rc" = 0 ] || fail "exit status $rc"
	cmp -s "$T/a.csv" "$T/b.csv" || fail "rows differ with the error text"
	pass "error text before the JSON is skipped" ;;
verdicts)
	copy
	# a contract that expected a refusal of malloc, and none for shm
	csv_awk "$D/meta.tsv" -F'\t' -v OFS='\t' '$col("pair") == "malloc-nullb" { $col("expected") = "-EOPNOTSUPP" }
		$col("pair") == "shm-nullb" { $col("expected") = "-" } 1' >"$T/raw/meta.tsv"
	conv "$T/raw" "$T/o.csv"; [ "$rc" = 0 ] || fail "exit status $rc"
	want "$T/o.csv" malloc-nullb verdict fail
	want "$T/o.csv" shm-nullb verdict unchecked
	want "$T/o.csv" shmhuge-nullb verdict pass
	pass "fail and unchecked verdicts" ;;
bad-usage)
	conv "$D"; [ "$rc" = 2 ] || fail "exit status $rc"
	grep -qF "fio2csv.sh: usage: " "$T/err" || fail "no usage line"
	pass "one argument: usage, exit 2" ;;
bad-nodir) bad "$T/none" "$T/none: no such directory"; pass "missing directory" ;;
bad-nometa) mkdir "$T/raw"; bad "$T/raw" "$T/raw/meta.tsv: missing"; pass "no meta.tsv" ;;
bad-header)
	copy; sed -i 1d "$T/raw/meta.tsv"
	bad "$T/raw" "$T/raw/meta.tsv:1: not a vm/guest/fio.sh meta.tsv header"; pass "bad meta header" ;;
bad-fields)
	copy; sed -i '3s/\t[^\t]*$//' "$T/raw/meta.tsv"
	bad "$T/raw" "$T/raw/meta.tsv:3: 16 fields, want 17"; pass "short meta line" ;;
bad-norun)
	copy; rm "$T/raw/run.3.json"
	bad "$T/raw" "$T/raw/run.3.json: missing (meta.tsv says 3 repeats)"; pass "missing repeat" ;;
bad-json)
	copy; echo "fio: job startup failed" >"$T/raw/run.2.json"
	bad "$T/raw" "$T/raw/run.2.json: no fio JSON object in it"; pass "not JSON" ;;
bad-job)
	copy; jq 'del(.jobs[] | select(.jobname == "shm-nullb-plain"))' "$D/run.1.json" >"$T/raw/run.1.json"
	bad "$T/raw" "$T/raw/run.1.json: no job shm-nullb-plain"; pass "a job missing" ;;
bad-csv)
	echo "a,b,c" >"$T/bad.csv"
	conv "$D" "$T/bad.csv"
	[ "$rc" = 2 ] || fail "exit status $rc"
	grep -qF "fio2csv.sh: $T/bad.csv:1: not a longpin schema 4 CSV header: give a new OUT.csv" "$T/err" || fail "message"
	[ "$(cat "$T/bad.csv")" = "a,b,c" ] || fail "the CSV was changed"
	pass "appending to a non-longpin CSV is refused" ;;
memtype)
	# shellcheck source=../../vm/guest/fio-vars.sh
	. "$ROOT/vm/guest/fio-vars.sh"
	while read -r mem fs dax exp; do
		got=$("$LONGPIN" --fio-memtype "$mem" "$fs" "$dax" | cut -f 1)
		[ "$got" = "$exp" ] || fail "mem=$mem on $fs dax=$dax: $got, want $exp"
	done <<-'EOT'
	malloc - -1 anon
	mmap - -1 anon
	mmapshared - -1 anon
	shm sysv -1 sysv-shm
	shmhuge sysv -1 sysv-shm-huge
	mmaphuge - -1 hugetlb
	mmaphuge:/mnt/huge/f hugetlbfs 0 memfd-hugetlb
	mmap:/mnt/ext4/f ext4 0 file-private
	mmapshared:/mnt/xfs/f xfs 0 file-shared
	mmap:/mnt/tmpfs/f tmpfs 0 tmpfs-private
	mmapshared:/mnt/tmpfs/f tmpfs 0 tmpfs-shared
	mmap:/mnt/dax-ext4/f ext4 1 fsdax-private
	mmapshared:/mnt/dax-xfs/f xfs 1 fsdax-shared
	mmap:/mnt/ramfs/f ramfs 0 -
	mmapshared:/mnt/ramfs/f ramfs 0 -
	EOT
	[ "$(fio_prefault randread)" = none ] && [ "$(fio_prefault randwrite)" = write ] || fail "prefault"
	pass "fio mem= to longpin memory types (ramfs: none, as mem_file.c)" ;;
memtype-dir)
	# the file system of mem=TYPE:FILE, asked in FILE's directory
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is not tmpfs here"
	[ "$("$LONGPIN" --fio-memtype mmapshared:/dev/shm/fio-buf)" = "$(printf 'tmpfs-shared\ttmpfs\t0')" ] ||
		fail "mmapshared:/dev/shm/fio-buf: $("$LONGPIN" --fio-memtype mmapshared:/dev/shm/fio-buf)"
	[ "$("$LONGPIN" --fio-memtype shm)" = "$(printf 'sysv-shm\tsysv\t-1')" ] || fail "shm"
	rc=0; "$LONGPIN" --fio-memtype mmap:"$T"/none/f 2>"$T/err" || rc=$?
	[ "$rc" = 2 ] || fail "missing directory: exit $rc"
	grep -q "cannot create a file" "$T/err" || fail "missing directory: $(cat "$T/err")"
	[ "$("$LONGPIN" --fio-result 95)" = -EOPNOTSUPP ] || fail "--fio-result 95"
	[ "$("$LONGPIN" --fio-result 0)" = 0 ] || fail "--fio-result 0"
	pass "mem=mmapshared:/dev/shm/F is tmpfs-shared; errno names from longpin" ;;
jobs)
	sh -n "$ROOT/vm/guest/fio.sh" || fail "vm/guest/fio.sh: sh -n"
	# every -fixed section has a -plain twin with the same lines but fixedbufs
	for f in "$J"/*.fio; do
		awk '/^\[/ { s = substr($0, 2, index($0, "]") - 2); next }
			/^[;#]/ || !/=/ { next }
			s ~ /-(fixed|plain)$/ { k = s; sub(/-(fixed|plain)$/, "", k); t = substr(s, length(k) + 2)
				if ($0 ~ /^fixedbufs=/) fb[k, t] = $0; else body[k, t] = body[k, t] $0 "\n"; pairs[k] = 1 }
			END { for (k in pairs) {
				if (body[k, "fixed"] != body[k, "plain"]) { print FILENAME ": " k ": twins differ"; bad = 1 }
				if (fb[k, "fixed"] != "fixedbufs=1" || fb[k, "plain"] != "fixedbufs=0") { print FILENAME ": " k ": fixedbufs"; bad = 1 } }
				exit bad }' "$f" || fail "$f"
	done
	# the copies fio.sh runs: a ${VAR} in place of every path and
	# parameter, so that fio.sh overrides all of them
	# shellcheck source=../../vm/guest/fio-vars.sh
	. "$ROOT/vm/guest/fio-vars.sh"
	mkdir "$T/jobs"
	for f in "$J"/*.fio "$J/global.inc"; do fio_jobvars "$f" >"$T/jobs/${f##*/}"; done
	! grep -nE '^[^;#][^=]*=([a-z]+:)?/' "$T/jobs"/* ||
		fail "a path fio.sh cannot override: add it to FIO_PATHS (vm/guest/fio-vars.sh)"
	! grep -nE '^(rw|bs|iodepth|size|runtime)=[^$]' "$T/jobs/global.inc" ||
		fail "a parameter of global.inc fio.sh cannot override: FIO_PARAMS (vm/guest/fio-vars.sh)"
	command -v fio >/dev/null || skip "twins ok; no fio to parse the job files"
	export BS=8k IODEPTH=4 RUNTIME=1s TARGET_SIZE=2m RW=randwrite LONGPIN_NULLBLK=/dev/null
	for v in PMEM DAX_EXT4 DAX_XFS EXT4 XFS TMPFS HUGETLBFS; do export LONGPIN_$v=/tmp; done
	for f in "$T/jobs"/*.fio; do
		(cd / && fio --parse-only "$f") >"$T/p" 2>&1 || { cat "$T/p"; fail "fio --parse-only ${f##*/} as fio.sh runs it"; }
	done
	(cd / && fio --showcmd "$T/jobs/nullb.fio") >"$T/p" 2>&1
	for o in rw=randwrite bs=8k iodepth=4 size=2m runtime=1s filename=/dev/null mem=mmap:/tmp/fio-buf; do
		grep -qF -- "--$o " "$T/p" || { cat "$T/p"; fail "nullb.fio as fio.sh runs it: no --$o"; }
	done
	n=$(cat "$J"/*.fio | grep -c '^\[.*-fixed\]')
	pass "$n fixed/plain twins; fio parses every job file as fio.sh runs it, with its parameters" ;;
cites)
	# every script a job file's comments name exists (they named
	# run-fio.sh and memtype.sh long after both were gone)
	n=0
	for f in "$J"/*.fio "$J"/global.inc; do
		for s in $(grep '^;' "$f" | grep -oE '[A-Za-z0-9_./-]+\.sh' | sort -u); do
			[ -f "$ROOT/$s" ] || [ -f "$J/$s" ] ||
				fail "${f##*/} cites $s, which is not in the repository"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ] || fail "no job file cites a script: the check checks nothing"
	pass "$n scripts cited by the job files, each there" ;;
guest-expected)
	# vm/guest/fio.sh asks longpin for each pair's expected answer: a
	# longpin that fails to say (here a real usage error, an unknown
	# --expect) stops it with exit 2, where its pairs read "ok" against
	# expected "-" before
	command -v fio >/dev/null || skip "no fio (apt-get install -y fio)"
	mkdir "$T/jobs"
	cp "$J/global.inc" "$T/jobs/"
	printf '[global]\ninclude global.inc\nfilename=%s/target\nmem=malloc\n[m-t-fixed]\nfixedbufs=1\n[m-t-plain]\nfixedbufs=0\n' "$T" >"$T/jobs/t.fio"
	printf '#!/bin/sh\ncase "$1" in expected) shift; set -- expected --expect no-such-contract "$@" ;; esac\nexec "%s" "$@"\n' "$LONGPIN" >"$T/lp2"
	chmod +x "$T/lp2"
	rc=0
	FIO_JOBS=$T/jobs FIO_OUT=$T/out LONGPIN=$T/lp2 REPEAT=1 sh "$ROOT/vm/guest/fio.sh" t >"$T/o" 2>&1 || rc=$?
	cat "$T/o"
	[ "$rc" = 2 ] || fail "exit $rc, want 2"
	grep -q "^fio.sh: .* expected --mem anon failed: longpin: --expect no-such-contract: no such contract" "$T/o" ||
		fail "no one-line error naming longpin's"
	pass "a longpin that cannot say the expected answer stops vm/guest/fio.sh: exit 2, its error" ;;
parse-only)
	# the job files as fio users run them: no ${VAR}s in the environment,
	# another working directory (fio looks for include global.inc there
	# first, then next to the job file)
	command -v fio >/dev/null || skip "no fio (apt-get install -y fio)"
	n=0 bad=''
	for f in "$J"/*.fio; do
		echo "+ (cd $T && env -i PATH=\$PATH fio --parse-only $f)"
		rc=0
		(cd "$T" && env -i PATH="$PATH" fio --parse-only "$f") >"$T/p" 2>&1 || rc=$?
		if [ "$rc" != 0 ] || grep -q '^fio: ' "$T/p"; then
			grep '^fio' "$T/p" || cat "$T/p"
			bad="$bad ${f##*/}"
		fi
		n=$((n + 1))
	done
	[ -z "$bad" ] || fail "fio --parse-only without environment fails:$bad"
	pass "$n job files parse with an empty environment from another directory" ;;
*)
	echo "usage: fio.sh CASE" >&2; exit 2 ;;
esac
