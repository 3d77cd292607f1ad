#!/bin/sh
# guest-matrix.sh OUT.csv: inside a vm/longpin-vm guest, the whole matrix:
# every memory type and prefault with the page-cache and DAX types on ext4,
# then the page-cache and DAX types again on xfs. Uses the guest's
# LONGPIN_* mount variables (see vm/README.md). Exit 1 if a verdict failed.
set -u
out=${1:?usage: guest-matrix.sh OUT.csv}
here=$(dirname "$0")
matrix=${LONGPIN_MATRIX:-$here/matrix.sh}
[ -x "$matrix" ] || matrix=longpin-matrix
# I/O targets on a block-backed file system, so that O_DIRECT is real
export TMPDIR=${LONGPIN_EXT4:-/tmp}
export LONGPIN_TMPFS_DIR=${LONGPIN_TMPFS:-/dev/shm}
export LONGPIN_DEVDAX=${LONGPIN_DEVDAX:-}
bad=0
echo "# matrix on ext4 ($LONGPIN_EXT4, DAX $LONGPIN_DAX_EXT4)"
LONGPIN_FILE_DIR=$LONGPIN_EXT4 LONGPIN_DAX_DIR=$LONGPIN_DAX_EXT4 \
	sh "$matrix" "$out" || bad=1
echo "# matrix on xfs ($LONGPIN_XFS, DAX $LONGPIN_DAX_XFS)"
LONGPIN_TYPES=file-shared,file-private,fsdax-shared,fsdax-private \
	LONGPIN_FILE_DIR=$LONGPIN_XFS LONGPIN_DAX_DIR=$LONGPIN_DAX_XFS \
	TMPDIR=$LONGPIN_XFS sh "$matrix" "$out" || bad=1
exit $bad
