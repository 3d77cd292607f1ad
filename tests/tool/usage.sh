#!/usr/bin/env bash
# Bad input gives a one-line error naming the cause and exit status 2.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
check() { # expected-regex args...
	local re=$1 rc
	shift
	"$LPVM" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	((rc == 2)) || fail "'longpin-vm $*' exited $rc, expected 2"
	[[ $(wc -l <"$T/err") -eq 1 ]] || fail "'longpin-vm $*' printed more than one line: $(cat "$T/err")"
	grep -qE -- "$re" "$T/err" || fail "'longpin-vm $*' message does not match /$re/: $(cat "$T/err")"
}
check "no verb"
check "unknown verb 'frobnicate'" frobnicate
check "unknown kernel 'nope'" run --kernel nope -- true
check "unknown kernel 'nope'" build --kernel nope
check "no command; put it after '--'" run --kernel stock
check "unexpected 'true'" run --kernel stock true
check "--kernel is missing" run -- true
check "--timeout 'x'" run --kernel stock --timeout x -- true
check "does not exist" run --kernel stock --add /nonexistent/x:/x -- true
check "--icount 'x': give a shift from 0 to 10" run --kernel stock --icount x -- true
check "--icount '11': give a shift from 0 to 10" run --kernel stock --icount 11 -- true
check "--nodes '3': give 1 or 2" run --kernel stock --nodes 3 -- true
check "--mem '3G': give whole GiB" run --kernel stock --mem 3G -- true
check "--mem '0G': give whole GiB" run --kernel stock --nodes 1 --mem 0G -- true
check "kernels: unknown option '--x'" kernels --x
check "kernels --contract needs one kernel name" kernels --contract
check "unknown kernel 'nope'" kernels --contract nope
check "kernels --names takes nothing more: drop 'x'" kernels --names x
check "build: debian-6.1 is a prebuilt Debian kernel" build --kernel debian-6.1
check "accel: unexpected '--x'" accel --x
check "accel: --image '/nonexistent/bz' is not a file" accel --image /nonexistent/bz
check "unknown kernel 'nope'" accel --kernel nope
LONGPIN_ACCEL=fast check "LONGPIN_ACCEL='fast': give kvm, tcg or leave it unset" accel --image "$0"
# the one list of kernel names that run.sh and the tests ask for
names=$("$LPVM" kernels --names | paste -sd,)
[[ $names == stock,patched,patched-debug,patched-unchunked,stock-6.12,patched-6.12,stock-7.2,patched-7.2,debian-6.1,debian-6.12,debian-7.2 ]] ||
	fail "kernels --names printed '$names'"
# each kernel's contract is one that longpin has; the built ones are a
# part of the list in its order, without the Debian images
for k in $("$LPVM" kernels --names); do
	c=$("$LPVM" kernels --contract "$k") || fail "kernels --contract $k failed"
	[[ -f $VMDIR/../harness/contracts/$c.contract ]] ||
		fail "kernels --contract $k printed '$c', no harness/contracts/$c.contract"
done
[[ $("$LPVM" kernels --contract patched-6.12) == longpin-6.12 ]] ||
	fail "kernels --contract patched-6.12 is not longpin-6.12"
[[ $("$LPVM" kernels --contract patched-7.2) == longpin-7.2 ]] ||
	fail "kernels --contract patched-7.2 is not longpin-7.2"
built=$("$LPVM" kernels --built | paste -sd,)
[[ $built == stock,patched,patched-debug,patched-unchunked,stock-6.12,patched-6.12,stock-7.2,patched-7.2 ]] ||
	fail "kernels --built printed '$built'"
# --series: a patched kernel's files, in its series' order; none for stock
[[ $("$LPVM" kernels --series stock-7.2) == "" ]] || fail "kernels --series stock-7.2 printed files"
[[ $("$LPVM" kernels --series patched-7.2 | head -n 1) == */kernel-patches/mainline/0001-* ]] ||
	fail "kernels --series patched-7.2 does not start with mainline/0001"
check "kernels --series: debian-7.2 is not built here from source" kernels --series debian-7.2
out=$(cd "$VMDIR/.." && ./run.sh --kernels nope 2>&1); rc=$?
((rc == 2)) && [[ $out == *"one of: $names"* ]] || fail "run.sh --kernels nope: exit $rc, '$out'"
# run.sh's modes and their options, answered before anything is built
# (tool/run-usage checks the one-line form of each)
runsh() { # MESSAGE ARGS...
	local msg=$1 out rc
	shift
	out=$(cd "$VMDIR/.." && ./run.sh "$@" 2>&1); rc=$?
	((rc == 2)) && [[ $out == *"$msg"* ]] || fail "run.sh $*: exit $rc, '$out'"
}
runsh "--torture-seconds does not belong to mode main" --torture-seconds 5
runsh "--torture-seconds '0': give whole seconds from 1 to 3600" torture --torture-seconds 0
runsh "--torture-seconds 'x'" torture --torture-seconds x
runsh "give VM kernels, not host" torture --kernels stock,host
runsh "--no-bench does not belong to mode torture" torture --no-bench
runsh "'--torture': a mode is a word, and first: ./run.sh torture" --torture
runsh "--repeat '0': give a whole number of benchmark boots from 1 to 20" full --repeat 0
runsh "--repeat 'x'" bench --repeat x
runsh "--repeat '21'" bench --repeat 21
runsh "--bench-clock 'cpu': give icount (instructions) or wall" --bench-clock cpu
runsh "--repeat needs --bench-clock icount" full --bench-clock wall --repeat 3
runsh "--repeat does not belong to mode main" --repeat 2
runsh "--bench-clock does not belong to mode torture" torture --bench-clock wall
pass "bad input rejected with exit status 2"
