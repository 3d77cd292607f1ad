#!/bin/sh
# lifetime-rdma.sh [OUT.csv]: inside a vm/longpin-vm guest, the lifetime
# cases that take --pinner rdma (longpin lifetime --list --pinner rdma) on
# every memory type each applies to: reclaim (an RDMA WRITE over a
# loopback queue pair, ibv_dereg_mr, reclaim, the CPU reads it back) at
# every prefault, lazyfree on private anonymous memory (the same after
# MADV_FREE: ib_umem_release() dirties, a positive control for
# io_uring's loss), and cycles (ibv_reg_mr/ibv_dereg_mr, pins balanced).
# Rows into OUT.csv, pinner rdma. Sourced by lifetime.sh (which calls
# rdma_lifetime, in its KTAP numbering) or run alone (its own KTAP: the
# cases counted, the plan, then the lines). One skip line without an RDMA
# device.
# shellcheck source-path=SCRIPTDIR disable=SC2154 # bad: ktap.sh's
set -u
out=${out:-${1:-/results/lifetime.csv}}
LONGPIN=${LONGPIN:-longpin}
export TMPDIR=${LONGPIN_EXT4:-/tmp}
[ -n "${n+x}" ] || . "$(dirname "$0")/ktap.sh"

# rlt CASE TYPE ARGS...: one longpin lifetime CASE --pinner rdma run
rlt() {
	c=$1 m=$2
	shift 2
	if [ "$dry" = 1 ]; then
		n=$((n + 1))
		return
	fi
	rc=0
	"$LONGPIN" lifetime "$c" --quiet --pinner rdma --mem "$m" \
		--csv "$out" "$@" >"$kt/lt.out" 2>&1 || rc=$?
	result "rdma $c $m" $rc "$kt/lt.out"
}

rdma_lifetime() {
	case " ${LONGPIN_PINNERS:-rdma} " in
	*" rdma "*) ;;
	*) [ "$dry" = 1 ] || echo "# SKIP rdma lifetime: LONGPIN_PINNERS has no rdma"
		return ;;
	esac
	if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
		n=$((n + 1))
		[ "$dry" = 1 ] || echo "ok $n rdma lifetime # SKIP no RDMA device (/sys/class/infiniband is empty)"
		return
	fi
	for c in $("$LONGPIN" lifetime --list --pinner rdma); do
		# cycles: every type (refused ones too); the others: theirs
		if [ $c = cycles ]; then ms=$("$LONGPIN" types --list)
		else ms=$("$LONGPIN" lifetime $c --list); fi
		for m in $ms; do
			case $c in
			cycles)
				sz=64K
				case $m in *huge*|*thp*) sz=2M ;; *devdax) sz=4M ;; esac
				rlt cycles $m --size $sz --prefault write \
					--cycles "${LONGPIN_LT_CYCLES:-10000}" ;;
			lazyfree) rlt $c $m --size 4M --prefault write ;;
			*) rlt $c $m --size 4M --prefault all ;;
			esac
		done
	done
}

if [ "$(basename "$0")" = lifetime-rdma.sh ]; then
	dry=1
	rdma_lifetime
	plan
	rdma_lifetime
	exit $bad
fi
