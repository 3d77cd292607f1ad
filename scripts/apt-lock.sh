# shellcheck shell=bash
# apt-lock.sh (sourced by scripts/deps.sh and vm/lib/common.sh): apt-get
# that waits for the package locks that another apt or dpkg holds (the
# unattended upgrades of a freshly booted machine) instead of failing at
# once with "Could not get lock", for a bound and with a line every 10 s.
#
#   apt_get WHO ARGS...  apt-get ARGS once none of APT_LOCKS is held, and
#                        with -o DPkg::Lock::Timeout for what is left of
#                        the bound (apt's own wait, for a lock taken in
#                        between); 2 after one line "WHO: ..." when a lock
#                        is still held after LONGPIN_APT_WAIT seconds
#                        (default 900), else apt-get's status; apt-get
#                        runs with DEBIAN_FRONTEND=noninteractive
#
# A lock is held when /proc/locks has one on its inode: dpkg and apt take
# them with fcntl(), flock(1) with flock(); either counts. The tests give
# lock files of their own in LONGPIN_APT_LOCKS (a colon list).

APT_LOCKS=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock
	/var/cache/apt/archives/lock)

# apt_lock_holder: "PID FILE" of a held lock of APT_LOCKS (the first), or
# nothing
apt_lock_holder() {
	local locks=("${APT_LOCKS[@]}") f id kind pid dev maj min ino
	[ -n "${LONGPIN_APT_LOCKS:-}" ] && IFS=: read -ra locks <<<"$LONGPIN_APT_LOCKS"
	for f in "${locks[@]}"; do
		id=$(stat -L -c '%Hd %Ld %i' "$f" 2>/dev/null) || continue
		# "1: POSIX  ADVISORY  WRITE 1234 fe:01:5678 0 EOF"; a waiter's
		# line has "->" before its kind
		while read -r _ kind _ _ pid dev _; do
			[ "$kind" = "->" ] && continue
			IFS=: read -r maj min ino <<<"$dev"
			[[ $maj =~ ^[0-9a-f]+$ && $min =~ ^[0-9a-f]+$ ]] || continue
			if [ "$((16#$maj)) $((16#$min)) $ino" = "$id" ]; then
				echo "$pid $f"
				return
			fi
		done </proc/locks
	done
}

# apt_wait_locks WHO: 0 once no lock is held (APT_WAITED: the seconds it
# took), 1 after one line on stderr when one still is after the bound
apt_wait_locks() {
	local who=$1 bound=${LONGPIN_APT_WAIT:-900} h pid f comm
	APT_WAITED=0
	while h=$(apt_lock_holder) && [ -n "$h" ]; do
		pid=${h%% *} f=${h#* }
		comm=$(cat "/proc/$pid/comm" 2>/dev/null || echo "?")
		if ((APT_WAITED >= bound)); then
			echo "$who: $f is still held by process $pid ($comm) after ${bound} s: let it finish (or stop it), then run again; LONGPIN_APT_WAIT=SECONDS waits longer" >&2
			return 1
		fi
		((APT_WAITED % 10 == 0)) &&
			echo "[$(date +%T)] waiting for $f, held by process $pid ($comm): ${APT_WAITED} s, at most ${bound} s" >&2
		sleep 1
		APT_WAITED=$((APT_WAITED + 1))
	done
	return 0
}

apt_get() {
	local who=$1 bound=${LONGPIN_APT_WAIT:-900}
	shift
	apt_wait_locks "$who" || return 2
	DEBIAN_FRONTEND=noninteractive apt-get \
		-o "DPkg::Lock::Timeout=$((bound > APT_WAITED ? bound - APT_WAITED : 1))" "$@"
}
