#!/bin/sh
# torture.sh OUT.csv SECONDS [TYPE...]: inside a vm/longpin-vm guest,
# longpin torture --seconds SECONDS on every memory type it applies to (or
# the TYPEs), one after
# the other, rows in OUT.csv. longpin judges each run: the contract's or a
# race's answers, every fixed I/O round, VmPin and nr_foll_pin back, no
# kernel report in /dev/kmsg meanwhile. KTAP (the version line, the plan,
# a line per run); exit 1 if a run failed. Each run's seed is in its row (and on its "# seed" line): repeat
# one with longpin torture --seconds SECONDS --mem TYPE --seed SEED.
# shellcheck source-path=SCRIPTDIR disable=SC2034,SC2154 # dry, bad: ktap.sh's
set -u
out=$1 secs=$2
shift 2
LONGPIN=${LONGPIN:-longpin}
export TMPDIR=${LONGPIN_EXT4:-/tmp}
. "$(dirname "$0")/ktap.sh"
# memfd-hugetlb last: its known kernel defect (hugetlb-truncate-race, a
# torture row of the contract) can take HugePages_Rsvd below 0 for the
# rest of the boot, and no hugetlb type sets up after that
if [ $# -eq 0 ]; then
	types=$("$LONGPIN" torture --list)
	# shellcheck disable=SC2046 # type names, a word each
	set -- $(echo "$types" | grep -vx memfd-hugetlb) $(echo "$types" | grep -x memfd-hugetlb)
fi
echo "# torture: $# types x $secs s, $(ls -d /sys/devices/system/node/node[0-9]* | wc -l) NUMA nodes"
dry=1
for m in "$@"; do
	unplaced "$m" "torture $m" || n=$((n + 1))
done
plan
for m in "$@"; do
	unplaced "$m" "torture $m" && continue
	rc=0
	"$LONGPIN" torture --seconds "$secs" --mem "$m" --csv "$out" \
		>"$kt/tt.out" 2>&1 || rc=$?
	sed -n 's/^longpin: torture seed /# seed /p' "$kt/tt.out"
	result "torture $m" $rc "$kt/tt.out"
	sed -n 's/^  verdict defect: /# known defect: /p' "$kt/tt.out"
done
exit $bad
