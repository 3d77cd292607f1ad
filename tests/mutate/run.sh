#!/bin/bash
# run.sh [-k] [-R REGEX] [LIST...]: mutation testing of the judges. Each
# mutation of the lists (NAME.mutations beside the code they change:
# tests/mutate/mutate.py reads them) is applied alone to a copy of this
# tree, which is rebuilt in a scratch build directory; the tests the list
# names run there, and a mutation they fail on is killed. One line per
# mutation, then the figures: mutations, killed, the survivors (each must
# be listed as equivalent, with why), the time taken.
#   -k        keep the scratch directory (its path is printed)
#   -R REGEX  only the mutations whose ID (LIST-STEM/NAME) matches
#   LIST      lists by their path in the tree (default: all of them)
# Exit 0 when every mutation not listed as equivalent was killed, every
# equivalent one survived and at least 95 % were killed; 1 otherwise; 2
# on a list that does not apply; 77 when cmake or ctest is missing.
# The tests it runs read the machine-wide pin counters: run it alone
# (ctest: RUN_SERIAL). LONGPIN_MUTATE_DIR: the scratch directory.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
MUT=$REPO/tests/mutate/mutate.py
keep=0
only=
while getopts kR: o; do
	case $o in
	k) keep=1 ;;
	R) only=$OPTARG ;;
	*) echo "usage: run.sh [-k] [-R REGEX] [LIST...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
command -v cmake >/dev/null && command -v ctest >/dev/null || skip "cmake and ctest are needed (apt-get install cmake)"
start=$(date +%s)

if [ -n "${LONGPIN_MUTATE_DIR:-}" ]; then
	W=$LONGPIN_MUTATE_DIR
elif [ $keep = 1 ]; then
	W=$(mktemp -d "${TMPDIR:-/tmp}/longpin-mutate.XXXXXX")
else
	W=$T/mutate
fi
mkdir -p "$W"
[ $keep = 1 ] && on_exit 'echo "kept: $W"'
S=$W/src B=$W/build
rm -rf "$S" && mkdir -p "$S"

# the tree as it is (tracked files and new ones, not the ignored
# builds), each file dated now (tar -m): a build directory kept from an
# earlier run (LONGPIN_MUTATE_DIR) holds objects of its last mutation,
# newer than the files' own dates
if git -C "$REPO" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$REPO" ls-files -co --exclude-standard -z | (cd "$REPO" && tar --null -T - -cf -) | tar -xmf - -C "$S"
else
	(cd "$REPO" && tar --exclude='./build*' --exclude=./results -cf - .) | tar -xmf - -C "$S"
fi
python3 "$MUT" check "$S" "$@" && python3 "$MUT" list "$S" "$@" >"$W/all.tsv" || exit 2
awk -F'\t' -v re="$only" 're == "" || $1 ~ re' "$W/all.tsv" >"$W/list.tsv"
total=$(grep -c . "$W/list.tsv") || fail "no mutation matches '${only}'"

# the tests run with the scratch build's programs, not the caller's
unset LONGPIN LONGPIN_COMPARE LONGPIN_FILE_DIR LONGPIN_TEST_FAULT
echo "building the copy in $B"
cmake -S "$S" -B "$B" >"$W/cmake.log" 2>&1 && cmake --build "$B" -j2 >>"$W/cmake.log" 2>&1 ||
	{ tail -n 20 "$W/cmake.log"; fail "the unchanged copy does not build"; }

# ctest_run REGEX LOG: the tests REGEX names, one at a time; status
ctest_run() {
	(cd "$B" && ctest -j1 --timeout 300 -R "$1") </dev/null >"$2" 2>&1
}

# every mutation's tests exist and pass on the unchanged copy
regex=$(cut -f3 "$W/list.tsv" | sort -u | paste -sd'|')
(cd "$B" && ctest -N -R "$regex") >"$W/n.log" 2>&1
cut -f1,3 "$W/list.tsv" | while IFS=$'\t' read -r id re; do
	(cd "$B" && ctest -N -R "$re") | grep -q '^Total Tests: [1-9]' || { echo "$id: no test matches '$re'"; exit 1; }
done || fail "a mutation names no test"
echo "baseline: $(grep -c '^  Test ' "$W/n.log") tests"
ctest_run "$regex" "$W/baseline.log" || { tail -n 30 "$W/baseline.log"; fail "the tests fail on the unchanged copy"; }
skipped=$(grep -E '\*\*\*Skipped|Not Run' "$W/baseline.log" | sed 's/.*Test *#[0-9]*: \([^ ]*\).*/\1/' | paste -sd' ')
[ -n "$skipped" ] && echo "skipped here (a mutation only they cover survives): $skipped"

killed=0 survived=0 unexplained=0 wrong_eq=0
: >"$W/survivors"
while IFS=$'\t' read -r id file re build eq; do
	cp "$S/$file" "$W/orig"
	python3 "$MUT" apply "$S" "$id" </dev/null || { cp "$W/orig" "$S/$file"; exit 2; }
	# shellcheck disable=SC2086 # BUILD is a list of targets
	if ! cmake --build "$B" -j2 --target $build </dev/null >"$W/build.log" 2>&1; then
		cp "$W/orig" "$S/$file"
		tail -n 5 "$W/build.log"
		echo "$id: does not build: correct the list" >&2
		exit 2
	fi
	if ctest_run "$re" "$W/m.log"; then
		survived=$((survived + 1))
		if [ "$eq" = - ]; then
			unexplained=$((unexplained + 1))
			echo "SURVIVED   $id ($file; tests $re)"
		else
			echo "equivalent $id: $eq"
		fi
		echo "$id	$eq" >>"$W/survivors"
	else
		killed=$((killed + 1))
		by=$(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$W/m.log" | paste -sd' ')
		if [ "$eq" = - ]; then
			echo "killed     $id by ${by:-its tests}"
		else
			wrong_eq=$((wrong_eq + 1))
			echo "KILLED     $id by ${by:-its tests}, though listed as equivalent: $eq"
		fi
	fi
	cp "$W/orig" "$S/$file"
done <"$W/list.tsv"

took=$(($(date +%s) - start))
pct=$(((killed * 1000 + total / 2) / total))
summary="$total mutations, $killed killed ($((pct / 10)).$((pct % 10)) %), $survived survived ($((survived - unexplained)) equivalent, $unexplained not), in $((took / 60)) min $((took % 60)) s"
echo "$summary"
[ "$unexplained" = 0 ] || fail "$summary: kill each survivor with a test, or list it as equivalent with the reason"
[ "$wrong_eq" = 0 ] || fail "$summary: $wrong_eq listed as equivalent were killed: drop 'equivalent' there"
[ $((killed * 100)) -ge $((total * 95)) ] || fail "$summary: under 95 % killed"
pass "$summary"
