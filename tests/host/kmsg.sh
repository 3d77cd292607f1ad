#!/bin/bash
# kmsg.sh NAME: the two kernel-log judges on a captured log
# (tests/data/kmsg/NAME.log: its first line names the headline under
# test, the rest is the log as dmesg prints it): longpin's (harness/core/kmsg.c,
# a --torture run reading the log as its /dev/kmsg through
# LONGPIN_TEST_KMSG) and vm/longpin-vm's scan of a guest's dmesg
# (vm/lib/reports.sh); both take their headlines from
# harness/kernel-reports.list. kmsg.sh list: every headline of that list
# has its captured log, and every log's headline is in the list.
# kmsg.sh zero-NAME: vm/longpin-vm's one known false report, gup_test's
# warning over the zero page, on tests/data/kmsg-zero/NAME.dmesg:
# allowed only for a dump of a zero-page pfn longpin announced, and no
# more times than announced.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
D=$REPO/tests/data/kmsg
LIST=$REPO/harness/kernel-reports.list
case=$1

# headlines: the list's lines, no comment or blank
headlines() { grep -v '^#' "$LIST" | grep .; }

# shellcheck source=../../vm/lib/reports.sh
. "$REPO/vm/lib/reports.sh"
# vm_reports LOG: the lines vm/longpin-vm counts as reports in LOG
vm_reports() { grep -E "$WARN_RE" "$1"; }

case $case in
zero-*)
	f=$REPO/tests/data/kmsg-zero/${case#zero-}.dmesg
	# allowed, then report lines left (a warning is two: its WARNING
	# line and its "page dumped because")
	case ${case#zero-} in
	allowed) want="2 0" why="two warnings dumping the announced zero page" ;;
	huge-zero) want="1 0" why="a warning dumping a pfn of the announced huge zero page" ;;
	other-page) want="0 2" why="a warning dumping a page that is not the zero page" ;;
	too-many) want="2 2" why="three warnings where two were announced" ;;
	unannounced) want="0 2" why="a warning no pin announced" ;;
	line-55) want="0 2" why="the warning of line 55 (not pinnable but pinned)" ;;
	*) fail "unknown case $case" ;;
	esac
	allowed=$(known_false "$f" "$T/judged")
	reports=$(vm_reports "$T/judged" | grep -c .)
	[ "$allowed $reports" = "$want" ] ||
		fail "$why: $allowed allowed and $reports report lines left, want $want"
	pass "$why: $allowed allowed, $reports report lines left" ;;
list)
	while IFS= read -r h; do
		n=$(grep -lxF "headline: $h" "$D"/*.log | wc -l)
		[ "$n" = 1 ] || fail "headline '$h': $n captured logs in $D, want 1"
	done < <(headlines)
	for f in "$D"/*.log; do
		h=$(sed -n '1s/^headline: //p' "$f")
		headlines | grep -qxF -- "$h" || fail "$f: headline '$h' is not in $LIST"
	done
	pass "$(headlines | wc -l) headlines in $LIST, each with its captured log" ;;
*)
	f=$D/$case.log
	[ -f "$f" ] || fail "no $f"
	h=$(sed -n '1s/^headline: //p' "$f")
	tail -n +2 "$f" >"$T/kmsg"
	line=$(grep -m 1 -F -- "$h" "$T/kmsg") || fail "$f holds no line with '$h'"
	# longpin: the run fails with the report, its line the first one
	LONGPIN_TEST_KMSG=$T/kmsg run_longpin --torture 1 --mem anon --size 1M --ops madvise \
		--concurrent --csv "$T/t.csv"
	[ "$rc" = 1 ] || fail "longpin --torture with '$h' logged: exit $rc, want 1"
	[ "$(csv_get "$T/t.csv" 1 verdict)" = fail ] || fail "verdict $(csv_get "$T/t.csv" 1 verdict)"
	grep -qF -- "kernel reports, the first: $line" "$T/out" ||
		fail "longpin does not name '$line' as the first report"
	# longpin-vm: the same line is a report
	vm_reports "$T/kmsg" | grep -qxF -- "$line" || fail "vm/longpin-vm does not count '$line'"
	pass "'$h': longpin fails the run naming it, vm/longpin-vm counts it" ;;
esac
