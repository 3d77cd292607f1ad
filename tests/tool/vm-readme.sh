#!/usr/bin/env bash
# vm/README.md's verb table is what `vm/longpin-vm help --markdown`
# prints, line for line (the block after its "generated" comment), and
# `help` names every verb that longpin-vm's dispatch takes.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
readme=$REPO/vm/README.md
"$LPVM" help --markdown >"$T/want" || fail "longpin-vm help --markdown: exit $?"
awk '/^<!-- generated: vm\/longpin-vm help --markdown/ { on = 1; next }
     on && /^\|/ { print; next }
     on { exit }' "$readme" >"$T/got"
[ -s "$T/got" ] || fail "vm/README.md has no table after its 'generated: vm/longpin-vm help --markdown' comment"
diff -u "$T/want" "$T/got" >"$T/diff" ||
	fail "vm/README.md's verb table differs from 'vm/longpin-vm help --markdown' (paste its output there): $(cat "$T/diff")"
# every verb the dispatch takes is in the table, and no other
sed -n '/^main() {/,/^}/p' "$REPO/vm/longpin-vm" |
	sed -n 's/^\t\([a-z][a-z]*\)\( | [^)]*\)\{0,1\}) .*/\1/p' | sort >"$T/dispatch"
sed -n 's/^| `\([a-z]*\)[ `].*/\1/p' "$T/want" | sort >"$T/verbs"
diff -u "$T/dispatch" "$T/verbs" >"$T/diff" ||
	fail "the verbs longpin-vm takes and those help lists differ: $(cat "$T/diff")"
echo "ok: $(grep -c . "$T/verbs") verbs, vm/README.md's table as help --markdown prints it"
