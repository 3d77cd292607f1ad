#!/bin/bash
# layers.sh: the harness stays layered (tests/py/layers.py over the
# objects of the build): no circle of files or folders in harness/,
# core/ refers to nothing outside it, and every exported symbol carries
# the prefix lp_.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v nm >/dev/null || skip "no nm (apt-get install -y binutils)"
objs=$(dirname "$LONGPIN")/CMakeFiles/longpin-objs.dir
[ -d "$objs" ] || fail "no $objs: build first (cmake --build build)"
python3 "$REPO/tests/py/layers.py" "$REPO" "$objs" >"$T/out" || { cat "$T/out"; fail "the harness's layers are broken"; }
pass "$(tail -n 1 "$T/out")"
