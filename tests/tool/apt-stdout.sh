#!/usr/bin/env bash
# What longpin-vm prints on stdout is data (run.sh keeps `longpin-vm
# accel`'s line in RUN.txt): installing missing packages must not add to
# it. Stand-ins first on PATH: dpkg-query says qemu-system-x86 is not
# installed, apt-get prints a line on stdout and installs nothing.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
need_qemu
need_kernel stock
is_root || skip "ensure_packages installs only as root (not root: it stops with the apt-get line)"
mkdir -p "$T/bin"
cat >"$T/bin/dpkg-query" <<'SH'
#!/bin/sh
# every package installed but qemu-system-x86
for a; do case $a in -*) ;; qemu-system-x86) echo "$a not-installed" ;; *) echo "$a installed" ;; esac; done
SH
cat >"$T/bin/apt-get" <<'SH'
#!/bin/sh
echo "APT-STANDIN $*"
SH
chmod +x "$T/bin/dpkg-query" "$T/bin/apt-get"
rc=0
PATH=$T/bin:$PATH "$LPVM" accel --kernel stock >"$T/out" 2>"$T/err" || rc=$?
echo "stdout:"; cat "$T/out"
echo "stderr:"; cat "$T/err"
((rc == 0)) || fail "longpin-vm accel exited $rc"
grep -q APT-STANDIN "$T/out" && fail "apt-get's output went to stdout, where longpin-vm's data goes"
grep -q APT-STANDIN "$T/err" || fail "the stand-in apt-get did not run (or its output went elsewhere)"
[[ $(wc -l <"$T/out") == 1 && $(cat "$T/out") == "accel: "* ]] || fail "stdout is not the one accel line"
pass "apt-get's output on stderr, stdout the accel line alone"
