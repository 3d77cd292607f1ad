#!/bin/sh
# guest-run.sh: what the main job (./run.sh) runs inside one kernel, in a
# vm/longpin-vm guest: the matrix, the reclaim cases, the registration
# benchmarks and, when present, the fio jobs. Results in /results (matrix.csv, bench.csv, fio/).
# LONGPIN_BENCH_ONLY=1: the benchmarks alone (a baseline kernel such as
# patched-unchunked).
set -u
here=$(dirname "$0")
bad=0
if [ "${LONGPIN_BENCH_ONLY:-0}" = 1 ]; then
	echo "# benchmarks (only)"
	LONGPIN_FILE_DIR=$LONGPIN_EXT4 TMPDIR=$LONGPIN_EXT4 sh "$here/bench.sh" /results/bench.csv
	exit
fi
echo "# matrix"
LONGPIN_ARGS=${LONGPIN_ARGS:---cycles 3} sh "$here/guest-matrix.sh" /results/matrix.csv || bad=1
# does what READ_FIXED wrote survive the unpin and reclaim? (every type and
# prefault; rows in the same CSV, so that the comparison shows data loss)
echo "# reclaim"
sh "$here/guest-lifetime.sh" /results/matrix.csv reclaim reclaim-pinned || bad=1
if [ "${LONGPIN_NO_BENCH:-0}" = 0 ]; then
	echo "# benchmarks"
	LONGPIN_FILE_DIR=$LONGPIN_EXT4 TMPDIR=$LONGPIN_EXT4 sh "$here/bench.sh" /results/bench.csv || bad=1
fi
if [ "${LONGPIN_LIFETIME:-0}" = 1 ]; then
	echo "# lifetime cases"
	sh "$here/guest-lifetime.sh" /results/lifetime.csv || bad=1
fi
if [ -f /opt/fio-jobs/run-fio.sh ] && [ "${LONGPIN_NO_FIO:-0}" = 0 ]; then
	echo "# fio"
	FIO_OUT=/results/fio sh /opt/fio-jobs/run-fio.sh || bad=1
fi
exit $bad
