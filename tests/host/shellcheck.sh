#!/bin/bash
# host/shellcheck.sh: `shellcheck -S warning` finds nothing in any shell
# file of the repository. The shell files are git's tracked files (a new
# script is one once added) that end in .sh, or have no extension and a
# sh or bash shebang; results/ aside (old runs' copies). The dialect (-s)
# is the shebang's, else the "# shellcheck shell=" directive of a file
# that is only sourced; vm/guest/ runs under busybox: sh. -x follows what
# a file sources, as its source-path and source directives say; --norc:
# no ~/.shellcheckrc changes the verdict. Prints each finding as
# FILE:LINE:COL: SEVERITY: TEXT [SCnnnn].
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v shellcheck >/dev/null || skip "no shellcheck (apt-get install -y shellcheck)"
cd "$REPO" || fail "no $REPO"
git rev-parse --git-dir >/dev/null 2>&1 || skip "$REPO is not a git checkout: its shell files are git's tracked files"

# dialect FILE: bash or sh, what FILE runs under; nothing when FILE is
# not a shell file, "?" when it is one (*.sh) of no known shell
dialect() {
	local f=$1 first=
	IFS= read -r first <"$f" 2>/dev/null
	case $f in vm/guest/*) [[ $f == *.sh || $first == '#!'*sh* ]] && echo sh; return ;; esac
	case $first in
	'#!'*bash*) echo bash; return ;;
	'#!'*/sh | '#!'*/sh\ * | '#!'*' sh' | '#!'*' sh '* | '#!'*/dash*) echo sh; return ;;
	esac
	[[ $f == *.sh ]] || return
	first=$(sed -n 's/^# shellcheck shell=\([a-z]*\).*/\1/p' "$f" | head -n 1)
	echo "${first:-?}"
}

bash_files=() sh_files=() unknown=()
while IFS= read -r -d '' f; do
	case $f in results/*) continue ;; esac
	[ -f "$f" ] || continue
	base=${f##*/}
	[[ $f == *.sh || $base != *.* ]] || continue
	case $(dialect "$f") in
	bash) bash_files+=("$f") ;;
	sh | dash) sh_files+=("$f") ;;
	'') ;;
	*) unknown+=("$f: no sh or bash shebang, nor a '# shellcheck shell=sh' or 'shell=bash' directive: which shell runs it?") ;;
	esac
done < <(git ls-files -z)
total=$((${#bash_files[@]} + ${#sh_files[@]}))
[ "$total" -gt 0 ] || fail "no shell file found in git ls-files"
ver=$(shellcheck --version | sed -n 's/^version: //p')
echo "+ shellcheck ${ver:-?} -x -S warning: ${#bash_files[@]} bash files, ${#sh_files[@]} sh files"

# check DIALECT FILE...: shellcheck the FILEs, 8 a call, a call per CPU at
# a time (a test that sources tests/lib.sh takes ~0.1 s with it, vm/longpin-vm
# with its libraries ~2.5 s); each call's output in a file of its own (no
# line of one cut by another's)
mkdir "$T/out"
check() {
	local d=$1
	shift
	# shellcheck disable=SC2016 # $0 and $@ of the sh -c script
	printf '%s\0' "$@" | xargs -0 -n 8 -P "$(nproc)" sh -c \
		'shellcheck --norc -x -S warning -f gcc -s "$0" "$@" >"$(mktemp "$OUT/sc.XXXXXX")" 2>&1' "$d"
}
start=$(date +%s.%N)
rc=0
export OUT=$T/out
[ ${#bash_files[@]} = 0 ] || check bash "${bash_files[@]}" || rc=$?
[ ${#sh_files[@]} = 0 ] || check sh "${sh_files[@]}" || rc=$?
secs=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
cat "$T"/out/sc.* /dev/null | sort -t: -k1,1 -k2,2n -k3,3n >"$T/findings"
printf '%s\n' "${unknown[@]}" | grep . >>"$T/findings"
n=$(grep -c . "$T/findings")
cat "$T/findings"
[ "$n" = 0 ] || fail "$n finding(s) of shellcheck -S warning in the shell files (${secs} s)"
# a call that found nothing but failed (exit 123: a call's non-zero status)
[ "$rc" = 0 ] || fail "shellcheck failed (xargs exit $rc) without a finding"
pass "shellcheck -S warning: none in $total shell files (${secs} s)"
