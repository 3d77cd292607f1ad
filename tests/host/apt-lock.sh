#!/bin/bash
# apt-lock.sh CASE: the package installs of run.sh and test.sh
# (scripts/deps.sh's need_packages) and of longpin-vm (ensure_packages)
# wait for a package lock another apt holds, with a line every 10 s and a
# bound, instead of failing at once. Stand-ins on PATH: dpkg-query says a
# package is missing, apt-get records its arguments and whether the lock
# was still held when it ran, and installs nothing.
#   deps-wait, vm-wait    a lock of the test's own (LONGPIN_APT_LOCKS)
#                         held 3 s: both wait, then run apt-get
#   deps-bound, vm-bound  held past LONGPIN_APT_WAIT=2: one line naming
#                         the holder and the fix, exit 2, no apt-get
#   real-lock             (root) /var/lib/dpkg/lock-frontend itself, held
#                         2 s with flock(2), which never blocks apt or dpkg
#                         (they lock with fcntl): the default lock list
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=$1
mkdir -p "$T/bin"
lock=$T/lock-frontend
: >"$lock"
cat >"$T/bin/dpkg-query" <<'SH'
#!/bin/sh
# every package missing (deps.sh greps "ok installed", common.sh reads the status)
for a; do case $a in -*) ;; *) echo "$a not-installed" ;; esac; done
exit 1
SH
cat >"$T/bin/apt-get" <<SH
#!/bin/sh
held=free
flock -n "\${APT_STANDIN_LOCK:-$lock}" true || held=HELD
echo "apt-get \$* \$held" >>"$T/apt.log"
SH
# need_packages installs only as root: the stand-in id says 0
printf '#!/bin/sh\necho 0\n' >"$T/bin/id"
chmod +x "$T/bin/"*
export PATH=$T/bin:$PATH

# hold SECONDS [FILE]: FILE (default the test's lock) locked by flock(1)
hold() {
	# -o: flock(1) alone holds it (not sleep), so killing it frees it
	flock -o "${2:-$lock}" sleep "$1" >/dev/null 2>&1 &
	holder=$!
	on_exit "kill $holder 2>/dev/null"
	for _ in $(seq 50); do [ -n "$(LONGPIN_APT_LOCKS=${2:-$lock} apt_lock_holder)" ] && return; sleep 0.1; done
	fail "the lock of ${2:-$lock} does not show in /proc/locks"
}
# shellcheck source=../../scripts/apt-lock.sh
. "$REPO/scripts/apt-lock.sh"

# deps ARGS: need_packages ARGS in a subshell; stdout+stderr in $T/out, status in $rc
deps() {
	rc=0
	(cd "$REPO" && . scripts/deps.sh && need_packages "$@") >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
}
# vm: ensure_packages of vm/lib/common.sh, as longpin-vm calls it
vm() {
	rc=0
	# shellcheck disable=SC2016 # expanded by the inner bash
	REPO=$REPO bash -c 'VERBOSE=0; CACHE=$1; . "$REPO/vm/lib/common.sh"; PACKAGES=(longpin-none); ensure_packages' \
		_ "$T/cache" >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
}
# waited: apt-get ran after the lock was given back, with apt's own bound
waited() {
	[ "$rc" = 0 ] || fail "exit $rc"
	grep -q "waiting for $1, held by process [0-9]* ([a-z]*): 0 s, at most 900 s" "$T/out" || fail "no line saying what it waits for"
	[ -s "$T/apt.log" ] || fail "apt-get never ran"
	cat "$T/apt.log"
	! grep -q HELD "$T/apt.log" || fail "apt-get ran while the lock was held"
	grep -q "apt-get -o DPkg::Lock::Timeout=[0-9]* .*install .*longpin-none" "$T/apt.log" || fail "no install with DPkg::Lock::Timeout"
}
# bounded PREFIX: one line naming the holder and the fix, exit 2, no apt-get
bounded() {
	[ "$rc" = 2 ] || fail "exit $rc, want 2"
	grep -q "^$1$lock is still held by process $holder (flock) after 2 s: let it finish (or stop it), then run again; LONGPIN_APT_WAIT=SECONDS waits longer$" "$T/out" ||
		fail "no one line naming the lock, its holder and the fix"
	[ ! -e "$T/apt.log" ] || fail "apt-get ran: $(cat "$T/apt.log")"
}

case $case in
deps-wait)
	hold 3
	LONGPIN_APT_LOCKS=$lock deps longpin-none
	waited "$lock"
	pass "need_packages waited for the lock, then installed with apt's own bound" ;;
vm-wait)
	is_root || skip "ensure_packages installs only as root"
	hold 3
	LONGPIN_APT_LOCKS=$lock vm
	waited "$lock"
	pass "ensure_packages waited for the lock, then installed with apt's own bound" ;;
deps-bound)
	hold 60
	LONGPIN_APT_LOCKS=$lock LONGPIN_APT_WAIT=2 deps longpin-none
	bounded "longpin: "
	pass "need_packages: exit 2 after the bound, one line naming the holder" ;;
vm-bound)
	is_root || skip "ensure_packages installs only as root"
	hold 60
	LONGPIN_APT_LOCKS=$lock LONGPIN_APT_WAIT=2 vm
	bounded "longpin-vm: error: "
	pass "ensure_packages: exit 2 after the bound, one line naming the holder" ;;
real-lock)
	is_root || skip "holds /var/lib/dpkg/lock-frontend: root only"
	real=/var/lib/dpkg/lock-frontend
	[ -f "$real" ] || skip "no $real here (not Debian's dpkg)"
	# one checkout at a time: another's hold of the real file would be
	# taken for this one's, and this one's for the other's install
	serial=$(machine_lock apt-real-lock)
	exec 9>>"$serial"
	flock 9
	# flock(2) of the real file, never fcntl: apt and dpkg go on as ever
	hold 2 "$real"
	APT_STANDIN_LOCK=$real deps longpin-none
	waited "$real"
	pass "need_packages waited for $real, held 2 s, with the default lock list" ;;
*) fail "unknown case $case" ;;
esac
