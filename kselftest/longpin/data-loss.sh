#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# data-loss.sh: does what a device wrote into a pinned buffer survive the
# unpin and a page-out? One KTAP line per case:
#   fixed-buf-unpin-dirty CASE  kernel-patches/mainline's test, written
#       for liburing's test/: shmem and MADV_FREE'd anonymous buffers that
#       READ_FIXED fills (from a memfd, and O_DIRECT from a file in the
#       page-cache directory), unregistered, paged out, read back
#   reclaim TYPE, reclaim-pinned TYPE, lazyfree TYPE  longpin's lifetime
#       cases on every type each applies to, at every prefault
# A kernel that loses the data is "not ok", also where its contract
# names the loss as a known defect (the diagnostic line says so). A case
# whose pages did not leave memory proved nothing: a skip, saying so.
# shellcheck source-path=SCRIPTDIR disable=SC2154 # here, lp_tmp: ktap.sh's
. "$(dirname "$0")/ktap.sh"
lp_places
cases=$("$LONGPIN" lifetime reclaim --list | sed 's/^/reclaim /'
	"$LONGPIN" lifetime reclaim-pinned --list | sed 's/^/reclaim-pinned /'
	"$LONGPIN" lifetime lazyfree --list | sed 's/^/lazyfree /') || exit 1
# the test's O_DIRECT cases read a file it makes in its working directory
fbud=$lp_tmp/fbud.out
(cd "${LONGPIN_FILE_DIR:-$lp_tmp}" && "$here/fixed-buf-unpin-dirty") >"$fbud" 2>&1
frc=$?
ktap_header $(($(grep -c '^[a-z-]*: \(PASS\|FAIL\|SKIP\)' "$fbud") + $(echo "$cases" | wc -l)))
sed -n 's/^\(O_DIRECT .*\)/# fixed-buf-unpin-dirty: \1/p' "$fbud"
while IFS= read -r l; do
	c=${l%%: *} r=${l#*: }
	case $r in
	PASS:*) echo "# ${r#PASS: }"
		ktap_result "fixed-buf-unpin-dirty $c" ok ;;
	FAIL:*) ktap_result "fixed-buf-unpin-dirty $c" fail "${r#FAIL: }" ;;
	SKIP:*) ktap_result "fixed-buf-unpin-dirty $c" skip "${r#SKIP: }" ;;
	esac
done <<EOT
$(grep '^[a-z-]*: \(PASS\|FAIL\|SKIP\)' "$fbud")
EOT
case $frc in
0 | 1 | 77) ;;
*) echo "# fixed-buf-unpin-dirty exited $frc:"; sed 's/^/# /' "$fbud"; nbad=$((nbad + 1)) ;;
esac
while read -r c m; do
	why=$(lp_unplaced "$m")
	if [ -n "$why" ]; then
		ktap_skip "$c $m" "$why"
		continue
	fi
	lp_case "$c $m" lifetime "$c" --mem "$m" --size "$LP_SIZE" --prefault all
done <<EOT
$cases
EOT
ktap_done
