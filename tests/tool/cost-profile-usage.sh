#!/usr/bin/env bash
# scripts/cost-profile.sh, invoked wrongly: each mistake is one line
# naming the cause and the fix, exit 2, and no guest booted. No
# arguments; a kernel longpin-vm does not know; SIZE not whole MiB;
# CYCLES of 1 (nothing over the baseline boot's cycle); no longpin
# binary; a calibration file without the model's constants.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"

# refused WHAT CAUSE ARGS...: cost-profile.sh ARGS says CAUSE in one
# line, exits 2 and boots nothing
refused() {
	local what=$1 cause=$2 rc
	shift 2
	LONGPIN_CACHE=$T/cache timeout 30 "$REPO/scripts/cost-profile.sh" "$@" >"$T/out" 2>&1
	rc=$?
	cat "$T/out"
	[[ $rc == 2 ]] || fail "$what: exit status $rc, want 2"
	grep -qF -- "$cause" "$T/out" || fail "$what: the cause is not named"
	[[ $(wc -l <"$T/out") == 1 ]] || fail "$what: want one line of output"
	[[ ! -e $T/cache/runs ]] || fail "$what: a guest was started"
}
printf 'stand-in\n' >"$T/longpin" && chmod +x "$T/longpin"
export LONGPIN=$T/longpin
printf '# no constants\nf_core 4.0 4.0 4.0 GHz\n' >"$T/calib.txt"
refused "no arguments" "usage: cost-profile.sh KERNEL [SIZE] [CYCLES]"
refused "unknown kernel" "KERNEL 'nosuch': not a kernel of longpin-vm: give one of stock," nosuch
refused "SIZE 4K" "SIZE '4K': give whole MiB, e.g. 64M" stock 4K
refused "CYCLES 1" "CYCLES '1': give a count of 2 or more" stock 4M 1
LONGPIN=$T/none refused "no binary" "no longpin binary at $T/none" stock 4M 2
LONGPIN_CALIB=$T/calib.txt refused "calibration without constants" \
	"calibration file $T/calib.txt has no CPI0: write it anew with scripts/calib.c" stock 4M 2
pass "no arguments, unknown kernel, SIZE 4K, CYCLES 1, no binary, a calibration without constants: one line each, exit 2, no boot"
