#!/bin/bash
# badinput-table.sh [NAME...]: the bad-input table, tests/data/badinput/
# table.tsv (the format is its header): every malformed invocation of
# longpin, longpin-compare, ./run.sh and vm/longpin-vm there, or the rows
# NAME... With the work dir's fixtures (files, a read-only and a full
# tmpfs of its own, mounted under the test's temp dir as root), each row
# must exit with its status and print one line on stderr that matches
# its pattern, and leave alone every file of the work dir (hashed before
# and after: none changed, none appeared or went), the repository and
# the cache. run.sh and longpin-vm run with stand-ins for cmake, make,
# QEMU and apt-get first on PATH, which fail loudly: a row that would
# build, boot or install is caught, never run. Prints a line per row and
# the count by program; bash's own (not root) leaves out the rows that
# need root, saying which.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
TABLE=$REPO/tests/data/badinput/table.tsv
COMPARE=${LONGPIN_COMPARE:-$REPO/build/longpin-compare}
# the table's $D and $W
D=$REPO/tests/data/compare
W=$T/w
export TMPDIR=$T/tmp LONGPIN_CACHE=$T/cache
mkdir -p "$TMPDIR"
unset LONGPIN_FILE_DIR LONGPIN_TMPFS_DIR LONGPIN_DAX_DIR LONGPIN_DEVDAX LONGPIN_EXPECT

# the stand-ins: what a bad invocation must never reach
mkdir -p "$T/guard"
for c in cmake make qemu-system-x86_64 apt-get; do
	printf '#!/bin/sh\necho "GUARD: %s reached: $*" >&2\nexit 99\n' "$c" >"$T/guard/$c"
	chmod +x "$T/guard/$c"
done

# ---- the fixtures ----
mkdir -p "$W/dir" "$W/rootdir"
"$LONGPIN" register --mem anon --size 64K --no-io --quiet --csv "$W/r.csv" 2>/dev/null ||
	fail "fixture: longpin could not write r.csv"
"$LONGPIN" torture --mem anon --size 64K --seconds 1 --quiet --concurrent --csv "$W/t.csv" 2>/dev/null ||
	fail "fixture: longpin could not write t.csv"
: >"$W/file"
head -c 4096 /dev/urandom >"$W/mine"
ln -s /dev/null "$W/null.lnk"
mkfifo "$W/fifo"
cp "$D/stock.csv" "$W/secret.csv"
chmod 0600 "$W/secret.csv"
chmod 0644 "$W/r.csv" "$W/t.csv" "$W/file" "$W/mine"
chmod 0755 "$T" "$W" "$W/dir" "$W/rootdir"
root=0
if is_root; then
	mkdir "$W/ro" "$W/full"
	mount -t tmpfs -o size=1m,ro tmpfs "$W/ro" && on_exit "umount $W/ro" &&
		mount -t tmpfs -o size=1m tmpfs "$W/full" && on_exit "umount $W/full" ||
		fail "fixture: cannot mount a small tmpfs under $W"
	dd if=/dev/zero of="$W/full/fill" bs=4k status=none 2>/dev/null
	root=1
fi

# the state a row must leave as it found: every file of $W with its
# type, mode, owner and hash, the repository's changes, the cache's files
state() {
	find "$W" -printf '%y %m %U %p\n' | sort
	find "$W" -type f -exec md5sum {} + | sort -k 2
	git -C "$REPO" status --porcelain --untracked-files=all 2>/dev/null
	find "$LONGPIN_CACHE" -type f 2>/dev/null
}

# row NAME PROG STATUS SETUP ARGS PATTERN: run it, judge it; 0: held
row() {
	local name=$1 prog=$2 want=$3 setup=$4 args=$5 re=$6 rc=0 before sig='' secs pid
	local -a argv cmd=() pre=() env=()
	eval "argv=($args)"
	case $prog in
	longpin) cmd=("$LONGPIN") ;;
	compare) cmd=("$COMPARE") ;;
	run.sh) cmd=("$REPO/run.sh") env=(PATH="$T/guard:$PATH") ;;
	longpin-vm) cmd=("$REPO/vm/longpin-vm") env=(PATH="$T/guard:$PATH") ;;
	*) echo "$name: unknown program $prog"; return 1 ;;
	esac
	case ",$setup," in *,nobody,*)
		pre=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all) ;;
	esac
	case ",$setup," in *,sigint:*) sig=INT ;; *,sigterm:*) sig=TERM ;; esac
	[ -n "$sig" ] && secs=$(sed -E 's/.*sig(int|term):([0-9.]+).*/\2/' <<<"$setup")
	before=$(state)
	if [ -n "$sig" ]; then
		# job control: a background job's SIGINT is not ignored
		set -m
		(cd "$T" && exec env "${env[@]}" "${pre[@]}" "${cmd[@]}" "${argv[@]}") >"$T/out" 2>"$T/err" &
		pid=$!
		sleep "$secs"
		kill -s "$sig" "$pid"
		wait "$pid" || rc=$?
		set +m
	else
		(cd "$T" && exec timeout -s KILL 120 env "${env[@]}" "${pre[@]}" "${cmd[@]}" "${argv[@]}") \
			>"$T/out" 2>"$T/err" </dev/null || rc=$?
	fi
	# longpin's lines that are no error: the contract it judges by, the seed
	grep -Ev '^longpin: (contract |torture seed )' "$T/err" >"$T/err1"
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, want $want: $(head -c 300 "$T/err1" | tr '\n' '|')"
		return 1
	fi
	if [ "$(grep -c '' "$T/err1")" != 1 ]; then
		echo "FAIL $name: $(grep -c '' "$T/err1") lines on stderr, want one: $(head -c 300 "$T/err1" | tr '\n' '|')"
		return 1
	fi
	if ! grep -Eq -- "$re" "$T/err1"; then
		echo "FAIL $name: '$(cat "$T/err1")' does not match /$re/"
		return 1
	fi
	if [ "$(state)" != "$before" ]; then
		echo "FAIL $name: it changed what it must leave alone:"
		diff <(echo "$before") <(state) | grep '^[<>]' | head -5
		return 1
	fi
	echo "ok $name ($prog, exit $want): $(cat "$T/err1")"
}

t0=$(date +%s)
bad=0 ran=0 left=()
declare -A by=()
while IFS=$'\t' read -r name prog want setup args re; do
	case $name in '' | '#'*) continue ;; esac
	[ $# = 0 ] || [[ " $* " == *" $name "* ]] || continue
	# as root only: the mounts, another user
	if [ $root = 0 ] && { [[ $args == *'$W/ro'* || $args == *'$W/full'* ]] || [[ $setup == *nobody* ]]; }; then
		left+=("$name")
		continue
	fi
	# eval's $W and $D are these
	args=${args//'$W'/$W} args=${args//'$D'/$D}
	row "$name" "$prog" "$want" "$setup" "$args" "$re" || bad=$((bad + 1))
	ran=$((ran + 1))
	by[$prog]=$((${by[$prog]:-0} + 1))
done <"$TABLE"
counts=$(for p in longpin compare run.sh longpin-vm; do printf '%s %s, ' "$p" "${by[$p]:-0}"; done)
echo "rows: $ran (${counts%, }) in $(($(date +%s) - t0)) s${left:+; not root, left out: ${left[*]}}"
[ "$ran" -gt 0 ] || fail "no row of $TABLE ran${*:+ (asked for: $*)}"
[ $bad = 0 ] || fail "$bad of $ran rows failed"
pass "$ran malformed invocations (${counts%, }): each its exit status and one line, nothing changed${left:+; ${#left[@]} left out (not root)}"
