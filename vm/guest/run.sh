#!/bin/sh
# run.sh [PHASE...]: the one entry of what runs inside a vm/longpin-vm
# guest for ./run.sh and the vm tests. Results go to /results. Phases, in
# the order given (default: matrix reclaim bench):
#   matrix    every memory type and prefault (matrix.sh; LONGPIN_ARGS,
#             --cycles 3 when unset) with the page-cache and DAX types on
#             ext4, then those four types again on xfs -> matrix.csv
#   pinners   the matrix again for each other long-term pinner of
#             LONGPIN_PINNERS (default: gup-fast gup rdma), read-write and
#             read-only (--pinner P [--readonly-pin]), ext4 then xfs ->
#             rows in matrix.csv (their pinner column says which)
#   reclaim   does what READ_FIXED wrote survive unpin and reclaim? every
#             type and prefault, and lazyfree (the same after MADV_FREE)
#             on private anonymous memory (lifetime.sh) -> matrix.csv
#   bench     the registration benchmarks (bench.sh) -> bench.csv
#   lifetime  every --lifetime case (lifetime.sh) -> lifetime.csv
#   fio       the fio jobs (fio.sh; fio and the job files come with
#             longpin-vm run --fio) -> fio/
#   torture   longpin torture on every memory type (torture.sh),
#             LONGPIN_TORTURE_SECONDS each (default 30) -> torture.csv
#   repro     kernel-patches/mainline's test, fixed-buf-unpin-dirty (in
#             PATH: ./run.sh adds it), its output and exit -> repro.txt;
#             the same under liburing's runtests.sh -> repro-runtests.txt
#             (on stdout as "# " diagnostic lines: they are not KTAP)
# The guest's init sets the places longpin reads (LONGPIN_FILE_DIR=ext4,
# LONGPIN_DAX_DIR=DAX ext4, LONGPIN_TMPFS_DIR, LONGPIN_DEVDAX) and the
# mount points (LONGPIN_EXT4, LONGPIN_XFS, LONGPIN_DAX_XFS, ...): see
# vm/README.md. LONGPIN_RESULTS: where the results go instead of /results
# (a run on the host). Exit 1 if a phase failed.
set -u
res=${LONGPIN_RESULTS:-/results}
here=$(dirname "$0")
[ $# -gt 0 ] || set -- matrix pinners reclaim bench
# I/O targets on a block-backed file system, so that O_DIRECT is real
export TMPDIR=${LONGPIN_EXT4:-/tmp}
bad=0

# no_xfs: true, saying so, when the guest has no xfs (a user's kernel
# without it: the init's LONGPIN_XFS_OFF says why)
no_xfs() {
	[ -z "${LONGPIN_XFS:-}" ] || return 1
	echo "# SKIP the xfs rows: ${LONGPIN_XFS_OFF:-no xfs mount (LONGPIN_XFS)}"
}

matrix() {
	echo "# matrix on ext4 ($LONGPIN_FILE_DIR, DAX $LONGPIN_DAX_DIR)"
	LONGPIN_ARGS=${LONGPIN_ARGS---cycles 3} sh "$here/matrix.sh" "$res/matrix.csv" || bad=1
	no_xfs && return
	echo "# matrix on xfs ($LONGPIN_XFS, DAX $LONGPIN_DAX_XFS)"
	LONGPIN_ARGS=${LONGPIN_ARGS---cycles 3} \
		LONGPIN_TYPES=file-shared,file-private,fsdax-shared,fsdax-private \
		LONGPIN_FILE_DIR=$LONGPIN_XFS LONGPIN_DAX_DIR=$LONGPIN_DAX_XFS \
		TMPDIR=$LONGPIN_XFS sh "$here/matrix.sh" "$res/matrix.csv" || bad=1
}

# pinner P [--readonly-pin]: the matrix with that pinner, ext4 then xfs
pinner() {
	label="$1${2:+/ro} "
	echo "# pinner $1${2:+ read-only} on ext4"
	LONGPIN_ARGS="--pinner $*" LONGPIN_LABEL=$label \
		sh "$here/matrix.sh" "$res/matrix.csv" || bad=1
	no_xfs && return
	echo "# pinner $1${2:+ read-only} on xfs"
	LONGPIN_ARGS="--pinner $*" LONGPIN_LABEL=$label \
		LONGPIN_TYPES=file-shared,file-private,fsdax-shared,fsdax-private \
		LONGPIN_FILE_DIR=$LONGPIN_XFS LONGPIN_DAX_DIR=$LONGPIN_DAX_XFS \
		TMPDIR=$LONGPIN_XFS sh "$here/matrix.sh" "$res/matrix.csv" || bad=1
}

# kernel-patches/mainline's test, in a directory of the ext4 disk (its
# O_DIRECT cases read a file there): on its own -> repro.txt, then as
# liburing runs its tests, by liburing's runtests.sh (with /opt/liburing-test,
# which ./run.sh adds), once without an argument and once with a file as
# runtests.sh's TEST_FILES gives one -> repro-runtests.txt
repro() {
	echo "# fixed-buf-unpin-dirty"
	d=${LONGPIN_EXT4:-/tmp}/repro
	rm -rf "$d"
	mkdir -p "$d"
	if ! command -v fixed-buf-unpin-dirty >/dev/null; then
		echo "SKIP: no fixed-buf-unpin-dirty in this guest (it was not built: no liburing source)" \
			>"$res/repro.txt"
		sed 's/^/# /' "$res/repro.txt"
		return
	fi
	rc=0
	(cd "$d" && fixed-buf-unpin-dirty) >"$res/repro.txt" 2>&1 || rc=$?
	echo "exit $rc" >>"$res/repro.txt"
	sed 's/^/# /' "$res/repro.txt"
	if [ ! -f /opt/liburing-test/runtests.sh ] || ! command -v bash >/dev/null; then
		echo "SKIP: no liburing runtests.sh or no bash in this guest" >"$res/repro-runtests.txt"
		sed 's/^/# /' "$res/repro-runtests.txt"
	else
		echo "# fixed-buf-unpin-dirty under liburing's runtests.sh"
		cp -a /opt/liburing-test "$d/test"
		: >"$d/testfile"
		echo "TEST_FILES=\"$d/testfile\"" >"$d/test/config.local"
		rc=0
		(cd "$d/test" && bash ./runtests.sh fixed-buf-unpin-dirty.t) \
			>"$res/repro-runtests.txt" 2>&1 || rc=$?
		echo "exit $rc" >>"$res/repro-runtests.txt"
		sed 's/^/# /' "$res/repro-runtests.txt"
	fi
	rm -rf "$d"
}

for phase in "$@"; do
	case $phase in
	matrix) matrix ;;
	pinners)
		for p in ${LONGPIN_PINNERS:-gup-fast gup rdma}; do
			pinner "$p"
			pinner "$p" --readonly-pin
		done ;;
	reclaim)
		echo "# reclaim"
		sh "$here/lifetime.sh" "$res/matrix.csv" reclaim reclaim-pinned lazyfree || bad=1 ;;
	bench)
		echo "# benchmarks"
		sh "$here/bench.sh" "$res/bench.csv" || bad=1 ;;
	lifetime)
		echo "# lifetime cases"
		sh "$here/lifetime.sh" "$res/lifetime.csv" || bad=1 ;;
	fio)
		echo "# fio"
		FIO_OUT="$res/fio" sh "$here/fio.sh" || bad=1 ;;
	torture)
		sh "$here/torture.sh" "$res/torture.csv" "${LONGPIN_TORTURE_SECONDS:-30}" || bad=1 ;;
	repro) repro ;;
	*) echo "run.sh: unknown phase '$phase': give matrix, pinners, reclaim, bench, lifetime, fio, torture or repro" >&2
		exit 2 ;;
	esac
done
exit $bad
