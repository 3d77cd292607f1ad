#!/bin/bash
# man.sh CASE: the manual pages say what the --help says.
#   longpin   every option of every command's --help is in that command's
#             section of `man -l build/longpin.1`, and every command is
#   compare   every option of longpin-compare --help is in
#             `man -l build/longpin-compare.1`
#   pinners   longpin-compare knows the pinners `longpin pinners --list`
#             prints, and no other
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=$1
BUILD=$(dirname "$LONGPIN")
command -v man >/dev/null || skip "no man (apt-get install -y man-db)"

# render PAGE: the page as man shows it, plain text, 200 columns wide
# (col(1), not lib.sh's col)
render() {
	MANWIDTH=200 man -l "$1" 2>"$T/man.err" | command col -b >"$T/page" ||
		fail "man -l $1 failed: $(cat "$T/man.err")"
	[ -s "$T/page" ] || fail "man -l $1 shows nothing"
	! grep -q . "$T/man.err" || fail "man -l $1 warns: $(head -n 3 "$T/man.err")"
}
# options FILE: the --options a help text shows at the start of its lines
options() { grep -oE '^  --[a-z-]+' "$1" | sed 's/^ *//'; }

case $case in
longpin)
	page=$BUILD/longpin.1
	[ -f "$page" ] || fail "$page was not built (the man target)"
	"$LONGPIN" man | cmp -s - "$page" || fail "$page is not what longpin man prints: rebuild"
	render "$page"
	cmds=$("$LONGPIN" --help | sed -n 's/^  longpin \([a-z-]*\).*/\1/p')
	[ -n "$cmds" ] || fail "longpin --help lists no command"
	n=0
	for c in $cmds; do
		# the command's section: from its heading to the next one
		awk -v c="$c" '/^   [a-z]/ { on = ($1 == c) } on' "$T/page" >"$T/sect"
		[ -s "$T/sect" ] || fail "the manual page has no section for $c"
		"$LONGPIN" "$c" --help >"$T/help" || fail "longpin $c --help: exit $?"
		for o in $(options "$T/help"); do
			grep -qE "^ +$o( |$)" "$T/sect" || fail "longpin $c --help shows $o, its manual page section does not"
			n=$((n + 1))
		done
	done
	# and the other way: no option in the page that no help shows
	for o in $(grep -oE '^ +--[a-z-]+' "$T/page" | sed 's/^ *//' | sort -u); do
		for c in $cmds; do "$LONGPIN" "$c" --help; done | grep -qE "^  $o( |$)" ||
			fail "the manual page shows $o, no --help does"
	done
	pass "$(echo $cmds | wc -w) commands, $n options: each in the manual page as in its --help" ;;
compare)
	page=$BUILD/longpin-compare.1
	[ -f "$page" ] || fail "$page was not built"
	render "$page"
	"$LONGPIN_COMPARE" --help >"$T/help" || fail "longpin-compare --help: exit $?"
	opts=$(grep -oE '\[--[a-z-]+' "$T/help" | tr -d '[' | sort -u; echo --help)
	for o in $opts; do
		grep -qE "^ +$o( |$)" "$T/page" || fail "longpin-compare --help shows $o, its manual page does not"
	done
	pass "longpin-compare: $(echo $opts | wc -w) options, each in the manual page" ;;
pinners)
	# a CSV of each pinner joins; an unknown one is refused naming them all
	names=$("$LONGPIN" pinners --list)
	[ -n "$names" ] || fail "longpin pinners --list prints nothing"
	for f in a b; do
		"$LONGPIN" register --mem anon --size 64K --prefault none --no-io --quiet --csv "$T/$f.csv" 2>/dev/null ||
			fail "longpin register: exit $?"
	done
	for p in $names; do
		csv_awk "$T/b.csv" -v p="$p" 'NR > 1 { $col("pinner") = p } { print }' >"$T/$p.csv"
		rc=0
		"$LONGPIN_COMPARE" "$T/a.csv" "$T/$p.csv" >"$T/out" 2>&1 || rc=$?
		[ "$rc" = 0 ] || fail "longpin-compare refuses pinner $p: $(tail -n 1 "$T/out")"
	done
	csv_awk "$T/b.csv" 'NR > 1 { $col("pinner") = "dma-buf" } { print }' >"$T/x.csv"
	rc=0
	"$LONGPIN_COMPARE" "$T/a.csv" "$T/x.csv" >"$T/out" 2>&1 || rc=$?
	list=$(echo $names | sed 's/ /, /g')
	[ "$rc" = 2 ] && grep -qF "unknown pinner 'dma-buf' ($list)" "$T/out" ||
		fail "an unknown pinner: exit $rc, $(tail -n 1 "$T/out"); want exit 2 naming ($list)"
	pass "longpin-compare knows $list, as longpin pinners --list, and no other" ;;
*)	fail "unknown case $case" ;;
esac
