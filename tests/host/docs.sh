#!/bin/bash
# docs.sh links: README.md and docs/*.md hold together. Every relative
# link ([text](path) or ![alt](path), outside code blocks) names a file or
# folder that exists, and its #anchor, if any, a heading of that file;
# README.md is at most 220 lines (the rest is in docs/); no page keeps a
# diary ("this session", "the run before": a figure names its run,
# results/<run-id>/, instead).
#
# docs.sh history|readme|stale|results: tests/py/docs_check.py CHECK (no
# commit or run-id in prose; the README's first 30 lines; no stale patch
# number or missing pinner; results/ holds cited reference runs only)
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=${1:-links}
cd "$REPO" || fail "no $REPO"
case $case in
links) ;;
history | readme | stale | results)
	command -v python3 >/dev/null || skip "python3 missing"
	out=$(python3 "$REPO/tests/py/docs_check.py" "$case" "$REPO" "$LONGPIN" 2>&1) ||
		{ echo "$out"; fail "docs_check $case: $(grep -c . <<<"$out") problems"; }
	pass "docs_check $case: none" ;;
*) fail "unknown case $case" ;;
esac
pages=(README.md docs/*.md)
bad=()

# slugs FILE: the anchors of FILE's headings, as GitHub makes them
slugs() {
	awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}

n=0
for p in "${pages[@]}"; do
	dir=$(dirname "$p")
	# the links outside fenced code blocks, one a line
	links=$(awk '/^```/ { code = !code; next } !code' "$p" |
		grep -oE '!?\[[^]]*\]\([^) ]+\)' | sed -E 's/^!?\[[^]]*\]\(([^) ]+)\)$/\1/')
	while read -r l; do
		[ -n "$l" ] || continue
		case $l in http://* | https://* | mailto:*) continue ;; esac
		n=$((n + 1))
		file=${l%%#*} anchor=
		[[ $l == *#* ]] && anchor=${l#*#}
		target=$p
		if [ -n "$file" ]; then
			target=$dir/$file
			[ -e "$target" ] || { bad+=("$p: $l: no such file $target"); continue; }
		fi
		if [ -n "$anchor" ]; then
			[ -f "$target" ] && [[ $target == *.md ]] ||
				{ bad+=("$p: $l: an anchor into a file that is not markdown"); continue; }
			slugs "$target" | grep -qxF -- "$anchor" ||
				bad+=("$p: $l: no heading #$anchor in $target")
		fi
	done <<<"$links"
done

lines=$(wc -l <README.md)
[ "$lines" -le 220 ] || bad+=("README.md: $lines lines, at most 220: move the rest to docs/")

diary=$(grep -niE 'this session|the run before' "${pages[@]}")
[ -z "$diary" ] || bad+=("diary wording: $diary")

for b in "${bad[@]}"; do echo "$b"; done
[ ${#bad[@]} = 0 ] || fail "${#bad[@]} problems in README.md and docs/"
pass "${#pages[@]} pages, $n relative links resolve; README.md $lines lines; no diary wording"
