#!/bin/bash
# fio.sh: the fio jobs (vm/guest/fio.sh) in the stock guest, their
# output through fio2csv.sh: fsdax-shared refused as the contract says,
# a fixed/plain ratio for every registered null_blk row. The converter on
# captured outputs, the job files: tests/host/fio.sh.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
ROOT=${LONGPIN_SRC:-$REPO}
J=$ROOT/fio-jobs

command -v jq >/dev/null || skip "no jq (apt-get install -y jq)"

VM=$ROOT/vm/longpin-vm
[ -x "$VM" ] || skip "no vm/longpin-vm"
"$VM" kernels 2>/dev/null | grep -qE '^stock +built' || skip "stock kernel not built (vm/longpin-vm build --kernel stock)"
# null_blk (every memory type) and the pmem block device: ~45 s of fio
rc=0
"$VM" run --kernel stock --timeout 400 --out "$T/res" --fio -- \
	sh /opt/longpin/fio.sh nullb pmem >"$T/vm.log" 2>&1 || rc=$?
grep -E '^(not )?ok |^# ' "$T/vm.log"
[ -f "$T/res/fio/meta.tsv" ] || { tail -20 "$T/vm.log"; fail "no results from the guest (exit $rc)"; }
[ "$rc" = 0 ] || fail "fio.sh exited $rc in the guest"
conv "$T/res/fio" "$T/o.csv"; [ "$rc" = 0 ] || fail "fio2csv.sh exit status $rc"
p=mmapshared-daxext4-nullb
want "$T/o.csv" $p memtype fsdax-shared
want "$T/o.csv" $p result -95
want "$T/o.csv" $p expected -EOPNOTSUPP
want "$T/o.csv" $p verdict pass
want "$T/o.csv" $p kernel 6.1.192
want "$T/o.csv" $p accel tcg
# the pair is the note's second word: "fio PAIR mem=..."
for p in $(csv_awk "$T/o.csv" 'NR > 1 && $col("op") ~ /-nullb$/ && $col("result") == 0 { split($col("note"), a, " "); print a[2] }'); do
	is_num "$(col "$T/o.csv" "$p" ratio_med)" || fail "$p: no fixed/plain ratio"
done
[ -n "${p:-}" ] || fail "no registered null_blk row"
pass "stock: fsdax-shared -EOPNOTSUPP pass; every registered null_blk row has a ratio"
