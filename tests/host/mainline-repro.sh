#!/bin/bash
# mainline-repro.sh: the upstream test of the fixed-buffer data loss
# (kernel-patches/mainline/test/fixed-buf-unpin-dirty) on this machine's
# kernel, judged by the contract longpin matches to it. Its cases are
# longpin's lifetime rows: shmem (and shmem-odirect, READ_FIXED from an
# O_DIRECT file) is `lifetime reclaim` of memfd read before, madvfree (and
# madvfree-odirect) is `lifetime lazyfree` of anon. Where the contract names
# that row's loss as a known defect (expected -EIO), the case must fail
# with bytes lost; where it expects the data kept (0), the case must not
# fail. longpin prints no lifetime expectation on its own (`longpin
# expected` answers registration rows), so each row's `expected` column is
# read from a 64 KiB run of the row: the contract's answer, whatever the
# run did. A case that skips (nothing paged out) is named in the result;
# when all skip, so does the test.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T
[ -x "$LONGPIN" ] || fail "no $LONGPIN: build longpin first (cmake --build build)"

# the contract's answer for a case's row: loss (-EIO) or kept (0)
declare -A row=(
	[shmem]="reclaim --mem memfd --prefault read"
	[madvfree]="lazyfree --mem anon --prefault write"
)
declare -A want
contract=
for c in shmem madvfree; do
	# shellcheck disable=SC2086 # the row's words
	run_longpin lifetime ${row[$c]} --size 64K --csv "$T/$c.csv" --quiet
	case $rc in
	0 | 1) ;;
	77) skip "longpin lifetime ${row[$c]}: $(tail -n 1 "$T/out"): the contract's row cannot be had here" ;;
	*) fail "longpin lifetime ${row[$c]}: exit $rc: $(tail -n 1 "$T/out")" ;;
	esac
	[ -s "$T/$c.csv" ] || fail "longpin lifetime ${row[$c]}: no CSV row"
	contract=$(csv_get "$T/$c.csv" 1 contract)
	case $(csv_get "$T/$c.csv" 1 expected) in
	-EIO) want[$c]=loss ;;
	0) want[$c]=kept ;;
	*) fail "$c: contract $contract expects '$(csv_get "$T/$c.csv" 1 expected)' of lifetime ${row[$c]}, neither -EIO (a known loss) nor 0" ;;
	esac
	echo "$c: contract $contract, lifetime ${row[$c]}: ${want[$c]}"
done

echo "+ kernel-patches/mainline/test/build.sh $T/bin"
"$REPO/kernel-patches/mainline/test/build.sh" "$T/bin" >"$T/build" 2>&1 ||
	fail "build.sh: $(tail -n 1 "$T/build")"
bin=$(tail -n 1 "$T/build")
echo "+ $bin"
rc=0
"$bin" >"$T/out" 2>&1 || rc=$?
cat "$T/out"
echo "exit $rc"

# the O_DIRECT cases are the same experiments, READ_FIXED by DMA
want[shmem-odirect]=${want[shmem]}
want[madvfree-odirect]=${want[madvfree]}
nfail=0 nskip=0 skipped='' summary=''
for c in shmem madvfree shmem-odirect madvfree-odirect; do
	line=$(grep -E "^$c: (PASS|FAIL|SKIP): " "$T/out")
	[ "$(grep -c . <<<"$line")" = 1 ] || fail "$c: want one PASS, FAIL or SKIP line, got: ${line:-none}"
	v=$(sed -E "s/^$c: ([A-Z]+): .*/\1/" <<<"$line")
	why=${line#"$c: $v: "}
	case $v in
	FAIL) nfail=$((nfail + 1)) ;;
	SKIP) nskip=$((nskip + 1)) skipped="$skipped; $c skipped: $why" ;;
	esac
	case ${want[$c]}/$v in
	loss/FAIL)
		[[ $why =~ ^lost\ ([0-9]+)\ of\ 65536\ bytes ]] ||
			fail "$c: $why; the contract's known loss is bytes lost, not this"
		summary="$summary, $c lost ${BASH_REMATCH[1]} of 65536 bytes (known defect)" ;;
	loss/PASS)
		fail "$c: no byte lost ($why), but contract $contract names the loss as a known defect of this kernel: the defect is fixed here and the contract says otherwise" ;;
	kept/FAIL)
		fail "$c: $why; contract $contract expects the data kept" ;;
	kept/PASS)
		summary="$summary, $c kept its data" ;;
	esac
done
# the test's own exit rule: 1 if a case failed, 77 if all skipped, else 0
want_rc=0
[ $nskip = 4 ] && want_rc=77
[ $nfail -gt 0 ] && want_rc=1
[ "$rc" = "$want_rc" ] || fail "exit $rc, but its lines ($nfail failed, $nskip skipped) make it $want_rc"
[ "$rc" = 77 ] && skip "every case skipped, nothing was tested${skipped}"
pass "contract $contract:${summary#,}${skipped}"
