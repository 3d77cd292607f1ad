#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pinners.sh: the long-term pinners other than io_uring (longpin pinners):
# gup-fast and gup (pin_user_pages_fast() and pin_user_pages() with
# FOLL_LONGTERM, through the kernel's gup_test in debugfs), rdma
# (ibv_reg_mr on an RDMA device) and vfio (VFIO_IOMMU_MAP_DMA on a device
# bound to vfio-pci), each on every memory type, one KTAP line each,
# judged by the contract's pinner rows. A pinner this machine lacks (no
# gup_test, no RDMA device, no device bound to vfio-pci) is one skip line
# with longpin's reason, found by pinning 2 MiB of anonymous memory.
# shellcheck source-path=SCRIPTDIR disable=SC2154 # lp_tmp: ktap.sh's
. "$(dirname "$0")/ktap.sh"
lp_places
types=$("$LONGPIN" types --list) || exit 1
pinners="gup-fast gup rdma vfio"
count=0 have=
for p in $pinners; do
	rc=0
	"$LONGPIN" register --pinner "$p" --mem anon --size 2M --quiet \
		</dev/null >/dev/null 2>"$lp_tmp/probe.$p" || rc=$?
	if [ $rc = 77 ]; then
		count=$((count + 1))
	else
		have="$have $p"
		count=$((count + $(echo "$types" | wc -l)))
	fi
done
ktap_header $count
for p in $pinners; do
	case " $have " in
	*" $p "*) ;;
	*) why=$(grep -v '^longpin: \(contract \|warning: \)' "$lp_tmp/probe.$p" | tail -n 1)
		ktap_skip "$p" "${why#longpin: }"
		continue ;;
	esac
	for m in $types; do
		why=$(lp_unplaced "$m")
		if [ -n "$why" ]; then
			ktap_skip "$p $m" "$why"
			continue
		fi
		lp_case "$p $m" register --pinner "$p" --mem "$m" --size "$LP_SIZE" \
			--prefault all
	done
done
ktap_done
