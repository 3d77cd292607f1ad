# shellcheck shell=bash
# longpin-vm, phase: common. Logging (stage/say/die/usage_err/v/vq), the
# temp dir, cleanup and signal handling, host packages and the cache lock.
# Sourced by vm/longpin-vm, which sets the constants (see there).

T0=${EPOCHREALTIME/./}
_now_us() { echo "${EPOCHREALTIME/./}"; }
_fmt_s() { # microseconds -> N.N
	local us=$1
	printf '%d.%d' $((us / 1000000)) $(((us % 1000000) / 100000))
}
_fmt_min() { # microseconds -> "M min S s"
	local s=$(($1 / 1000000))
	printf '%d min %02d s' $((s / 60)) $((s % 60))
}
stage() { printf '[%s +%ss] %s\n' "$(date +%H:%M:%S)" "$(_fmt_s $(($(_now_us) - T0)))" "$*" >&2; }
say() { printf 'longpin-vm: %s\n' "$*" >&2; }
usage_err() { printf 'longpin-vm: error: %s\n' "$*" >&2; exit 2; }
die() { printf 'longpin-vm: error: %s\n' "$1" >&2; exit "${2:-1}"; }
v() { # run a command, printing it first with -v
	if ((VERBOSE)); then printf '+ %s\n' "$(printf '%q ' "$@")" >&2; fi
	"$@"
}
vq() { # like v, but output goes to $LOG unless -v.  Runs in the background and
	# waits, so that SIGTERM to this script is handled at once (the trap kills it)
	local rc=0
	if ((VERBOSE)); then printf '+ %s\n' "$(printf '%q ' "$@")" >&2; "$@" & else "$@" >>"$LOG" 2>&1 & fi
	CHILD_PID=$!
	wait "$CHILD_PID" || rc=$?
	CHILD_PID=
	return $rc
}
sha() { sha256sum | cut -c1-16; }

# temp files live in the cache (nothing in /tmp); removed on exit
TMPD=
QEMU_PID=
cleanup() {
	local rc=$?
	if [[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill -KILL "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
	fi
	if [[ -n ${SLEEPER_PID:-} ]]; then kill "$SLEEPER_PID" 2>/dev/null || true; fi
	local p
	for p in ${READER_PID:-} ${OUT_PID:-} ${ERR_PID:-} ${CHILD_PID:-} ${WATCHDOG_PID:-} ${PROGRESS_PID:-}; do kill "$p" 2>/dev/null || true; done
	if [[ -n ${CHILD_PID:-} ]]; then wait "$CHILD_PID" 2>/dev/null || true; fi
	[[ -n $TMPD && -d $TMPD ]] && rm -rf "$TMPD"
	return $rc
}
on_signal() {
	say "interrupted ($1): stopping QEMU/make, removing temp files"
	trap - EXIT
	cleanup || true
	[[ $1 == INT ]] && exit 130
	exit 143
}
trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
mktmp() {
	mkdir -p "$CACHE/tmp"
	[[ -n $TMPD ]] || TMPD=$(mktemp -d "$CACHE/tmp/lpvm.$$.XXXXXX")
}

# ---------------------------------------------------------------- packages
# apt_get: apt-get that waits for a package lock another apt holds
# shellcheck source=../../scripts/apt-lock.sh
. "$REPO/scripts/apt-lock.sh"
ensure_packages() {
	local missing=() p st
	declare -A have=()
	while read -r p st; do have[$p]=$st; done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)
	for p in "${PACKAGES[@]}"; do
		[[ ${have[$p]:-} == installed ]] || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	if ((EUID != 0)); then
		die "missing packages: ${missing[*]}; as root run: apt-get update && apt-get install -y --no-install-recommends ${PACKAGES[*]}" 2
	fi
	stage "packages: installing ${missing[*]}"
	# apt's output to stderr: longpin-vm's stdout is data (the accel
	# line that run.sh keeps in RUN.txt, the kernel lists)
	# a lock another apt holds is waited for, at most LONGPIN_APT_WAIT
	# s (then exit 2, set -e)
	v apt_get "longpin-vm: error" update >&2
	# no recommended packages: QEMU's recommend a desktop (GTK, SDL, Mesa,
	# GStreamer) that -display none never loads
	v apt_get "longpin-vm: error" install -y --no-install-recommends "${PACKAGES[@]}" >&2
}

# One builder at a time per thing built: a kernel's source tree (stock;
# patched, patched-debug and patched-unchunked share one), a Debian
# kernel's unpacked package, the initramfs archives, the NVDIMM images.
# Each is its own lock ($CACHE/.lock-NAME), so that a run waits only for
# what it needs: a boot of stock does not wait for patched-debug's build.
declare -A LOCKFDS=()
lock_named() { # NAME [WHAT]: hold NAME's lock until unlock_named NAME
	local name=$1 fd
	[[ -n ${LOCKFDS[$name]:-} ]] && return 0
	mkdir -p "$CACHE"
	exec {fd}>"$CACHE/.lock-$name"
	if ! flock -n "$fd"; then
		stage "waiting for another longpin-vm ${2:-building $name} (lock $CACHE/.lock-$name)"
		flock "$fd"
	fi
	LOCKFDS[$name]=$fd
}
unlock_named() {
	local fd=${LOCKFDS[$1]:-}
	[[ -n $fd ]] || return 0
	flock -u "$fd"
	exec {fd}>&-
	unset "LOCKFDS[$1]"
}
