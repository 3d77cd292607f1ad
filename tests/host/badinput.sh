#!/bin/bash
# badinput.sh CASE: one bad input; asserts the exit status, that the
# message is one line naming the cause and the fix, and that nothing is
# left behind.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
export TMPDIR=$T

expect() { # STATUS REGEX ARGS...
	local status=$1 re=$2; shift 2
	run_longpin "$@"
	[ "$rc" = "$status" ] || fail "exit status $rc, expected $status"
	grep -v '^longpin: contract ' "$T/out" | grep -Eq "^longpin: .*$re" ||
		fail "no message matching /$re/"
	[ "$(grep -c '^longpin: ' "$T/out")" -le 2 ] || fail "more than one error line"
	no_leftovers "$T"
	pass "$case: exit $status, message matches /$re/"
}

# expect_keep FILE STATUS REGEX ARGS...: expect, and FILE is unchanged
expect_keep() {
	local f=$1 sum; shift
	sum=$(md5sum <"$f")
	( expect "$@" ) || exit 1
	[ "$(md5sum <"$f")" = "$sum" ] || fail "$f was changed"
	rm -f "$f"
	pass "$case: refused, $f unchanged"
}

case=$1
# pinner_skip PINNER REGEX: --pinner PINNER cannot pin here: exit 77 with
# one line "--pinner PINNER: REGEX" that names the fix, and a CSV of one
# skip row, its note that line
pinner_skip() {
	run_longpin --pinner "$1" --mem anon --size 1M --csv "$T/p.csv"
	[ "$rc" = 77 ] || fail "exit status $rc, expected 77"
	grep -Eq "^longpin: --pinner $1: $2\$" "$T/out" ||
		fail "no message naming the cause and the fix"
	[ "$(csv_cols "$T/p.csv" verdict pinner)" = "skip $1" ] || fail "the CSV holds $(csv_cols "$T/p.csv" verdict pinner | tr '\n' ' '), want one skip row"
	[ "longpin: $(csv_get "$T/p.csv" 1 note)" = "$(grep "^longpin: --pinner" "$T/out" | tr , ';')" ] || fail "the skip row's note is not the message"
	rm -f "$T/p.csv"
	no_leftovers "$T"
	pass "$case: exit 77, $(grep '^longpin: --pinner' "$T/out")"
}
# io_uring_off: kernel.io_uring_disabled=2 for the whole machine until the
# test exits (root, 6.6+). The tests run alone in their ctest (RUN_SERIAL);
# beside another checkout's, a machine-wide lock keeps two of them from
# saving each other's 2 as the value to restore, and the flip waits (up
# to 120 s) for a moment when no other longpin runs, whose io_uring it
# would refuse
io_uring_off() {
	local f=/proc/sys/kernel/io_uring_disabled lock
	[ -e $f ] || skip "kernel $(uname -r) has no kernel.io_uring_disabled (added in 6.6)"
	is_root || skip "needs root to set kernel.io_uring_disabled"
	lock=$(machine_lock io-uring-disabled)
	exec 8>>"$lock"
	flock 8
	others_quiet 120 ||
		skip "other longpin processes ran for 120 s: kernel.io_uring_disabled=2 would refuse their io_uring"
	on_exit "echo $(cat $f) > $f"
	echo 2 >$f
}

# loopdev: a loop device over a temp file of 8 MiB of data (root, losetup),
# detached at exit; its path in $loop, its data in $T/loop.img
loopdev() {
	is_root || skip "needs root for losetup"
	command -v losetup >/dev/null || skip "no losetup (util-linux)"
	head -c 8M /dev/urandom >"$T/loop.img"
	loop=$(losetup --find --show "$T/loop.img" 2>"$T/losetup.err") ||
		skip "losetup: $(head -n1 "$T/losetup.err")"
	on_exit "losetup -d $loop"
}
# keep_dev DEV STATUS REGEX ARGS...: expect, and DEV's bytes unchanged
keep_dev() {
	local d=$1 sum; shift
	sum=$(md5sum <"$d")
	( expect "$@" ) || exit 1
	[ "$(md5sum <"$d")" = "$sum" ] || fail "$d was written"
	pass "$case: refused, $d unchanged"
}

case $case in
target-blockdev)
	loopdev
	keep_dev "$loop" 2 "--target $loop is a block device, whose data the I/O would overwrite: give a new or empty file, or --target-overwrite to write the device" \
		--mem anon --size 1M --target "$loop" --ios 16 --repeat 1 ;;
target-busy-*)
	# --target-overwrite writes a device that nothing else uses: not one
	# mounted (a partition of it either), held (device-mapper, md) or swap,
	# nor one another program opened O_EXCL. This host's kernel has no
	# partition tables and no device-mapper, and a test adds no swap to the
	# machine: a sysfs, mountinfo and swaps of the test's own stand in for
	# those (LONGPIN_TEST_SYSFS, _MOUNTINFO, _SWAPS) around a real loop
	# device; the whole device mounted and O_EXCL are real.
	loopdev
	majmin=$(lsblk -dno MAJ:MIN "$loop" 2>/dev/null | tr -d ' ')
	[ -n "$majmin" ] || majmin=$(printf '%d:%d' "0x$(stat -c %t "$loop")" "0x$(stat -c %T "$loop")")
	fake=$T/sys/dev/block/$majmin
	mkdir -p "$fake/holders" "$fake/${loop#/dev/}p1/holders"
	: >"$fake/${loop#/dev/}p1/partition"
	echo 259:77 >"$fake/${loop#/dev/}p1/dev"
	args=(--mem anon --size 1M --ios 16 --repeat 1 --target "$loop" --target-overwrite)
	case $case in
	target-busy-part)
		printf '99 1 259:77 / /mnt/data rw - ext4 /dev/longpin-p1 rw\n' >"$T/mountinfo"
		PREFIX=(env LONGPIN_TEST_SYSFS="$T/sys" LONGPIN_TEST_MOUNTINFO="$T/mountinfo")
		keep_dev "$loop" 2 "--target $loop is in use: its partition ${loop#/dev/}p1 is mounted on /mnt/data: give an unused block device or a file" "${args[@]}" ;;
	target-busy-holder)
		ln -s ../../../dm-3 "$fake/${loop#/dev/}p1/holders/dm-3"
		PREFIX=(env LONGPIN_TEST_SYSFS="$T/sys")
		keep_dev "$loop" 2 "--target $loop is in use: its partition ${loop#/dev/}p1 is held by dm-3 \\($fake/${loop#/dev/}p1/holders\\): give an unused block device or a file" "${args[@]}" ;;
	target-busy-swap)
		printf 'Filename\tType\tSize\tUsed\tPriority\n%s partition 8188 0 -2\n' "$loop" >"$T/swaps"
		PREFIX=(env LONGPIN_TEST_SYSFS="$T/sys" LONGPIN_TEST_SWAPS="$T/swaps")
		keep_dev "$loop" 2 "--target $loop is in use: it is swap \\($T/swaps\\): give an unused block device or a file" "${args[@]}" ;;
	target-busy-mounted)
		command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (e2fsprogs)"
		mkfs.ext4 -q "$loop" && mkdir "$T/mnt" && mount "$loop" "$T/mnt" || skip "cannot make and mount an ext4 on $loop"
		on_exit "umount $T/mnt"
		keep_dev "$loop" 2 "--target $loop is in use: it is mounted on $T/mnt: give an unused block device or a file" "${args[@]}" ;;
	target-busy-excl)
		# another program holds it O_EXCL (as mkfs or a mount would)
		python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(60)' "$loop" >"$T/held" &
		holder=$!
		on_exit "kill $holder 2>/dev/null"
		for _ in $(seq 50); do grep -q held "$T/held" && break; sleep 0.1; done
		grep -q held "$T/held" || skip "could not open $loop O_EXCL here"
		keep_dev "$loop" 2 "--target $loop is in use: another program has it open exclusively \\(open O_EXCL: Device or resource busy\\): give an unused block device or a file" "${args[@]}" ;;
	target-busy-free)
		# the control: the same device, nothing on it, is written
		PREFIX=(env LONGPIN_TEST_SYSFS="$T/sys")
		run_longpin "${args[@]}"
		[ "$rc" = 0 ] || fail "an unused device with --target-overwrite: exit $rc"
		pass "$case: an unused loop device is written with --target-overwrite" ;;
	esac ;;
csv-blockdev)
	loopdev
	keep_dev "$loop" 2 "--csv $loop is a block device: give a regular file, a FIFO or - \\(standard output\\)" \
		--mem anon --size 64K --no-io --csv "$loop" ;;
place-empty)
	# a place's variable set empty: this machine has none (a user's kernel
	# without NVDIMMs): a skip with the reason, and a skip row per prefault
	PREFIX=(env LONGPIN_DAX_DIR= "LONGPIN_NVDIMM_OFF=the kernel lacks CONFIG_LIBNVDIMM")
	run_longpin --mem fsdax-shared --size 4M --prefault all --no-io --csv "$T/p.csv"
	[ "$rc" = 77 ] || fail "exit $rc, want 77"
	grep -q "^longpin: memory type fsdax-shared: no DAX mount here (LONGPIN_DAX_DIR is empty): the kernel lacks CONFIG_LIBNVDIMM$" "$T/out" ||
		fail "no one line naming the empty variable and why"
	[ "$(csv_cols "$T/p.csv" verdict | tr '\n' ' ')" = "skip skip skip " ] || fail "want 3 skip rows"
	pass "$case: exit 77, the reason, 3 skip rows" ;;
csv-chardev)	expect 2 "--csv /dev/full is a character device: give a regular file, a FIFO or -" --mem anon --size 64K --no-io --csv /dev/full ;;
unknown-mem)	expect 2 "unknown memory type 'bogus': longpin types lists" --mem bogus ;;
no-mem)		expect 2 "no memory type: give --mem" --size 4K ;;
size-zero)	expect 2 "--size 0: give a size of at least one page" --mem anon --size 0 ;;
size-unaligned)	expect 2 "not a multiple of the page size .*round it to 8K" --mem anon --size 5000 ;;
size-garbage)	expect 2 "--size 12Q: give bytes or N with K, M or G" --mem anon --size 12Q ;;
size-overflow)	expect 2 "--size 99999999999999999999G is too large: give at most 1024G" --mem anon --size 99999999999999999999G ;;
size-max)	expect 2 "--size 18446744073709551615 is too large: give at most 1024G" --mem anon --size 18446744073709551615 ;;
size-below-bs)	expect 2 "--size 4K is smaller than --bs 8K: give --size 8K or more, a smaller --bs, or --no-io" --mem anon --size 4K --bs 8K ;;
mem-twice)	expect 2 "--mem given twice \\(anon, then memfd\\): give one memory type per run" --mem anon --mem memfd --size 4M --no-io ;;
target-exists)
	# a file with data is the user's: refused, left as it was
	head -c 100000 /dev/urandom >"$T/mine" && sum=$(md5sum <"$T/mine")
	run_longpin --mem anon --size 4M --target "$T/mine" --ios 16 --repeat 1
	[ "$rc" = 2 ] || fail "exit status $rc, expected 2"
	grep -q "^longpin: --target $T/mine holds 100000 bytes that the I/O would overwrite: give a new or empty file, or --target-overwrite$" "$T/out" ||
		fail "no one-line message naming the file and --target-overwrite"
	[ "$(md5sum <"$T/mine")" = "$sum" ] || fail "the file was changed"
	run_longpin --mem anon --size 4M --target "$T/mine" --target-overwrite --ios 16 --repeat 1
	[ "$rc" = 0 ] || fail "exit status $rc with --target-overwrite"
	rm -f "$T/mine"
	no_leftovers "$T"
	pass "an existing file with data is refused (exit 2, unchanged), --target-overwrite writes it" ;;
lifetime-io)	expect 2 "lifetime takes no --qd \\(an option of register\\): drop it$" --lifetime munmap --mem anon --size 4M --qd 4 ;;
lifetime-cycles)	expect 2 "lifetime fork ignores --cycles \\(only lifetime cycles takes it\\): drop it$" --lifetime fork --mem anon --size 4M --cycles 3 ;;
dir-full)
	# a --dir whose file system cannot hold the buffer: exit 77 naming
	# both sizes, not a SIGBUS at the first touch (it was exit 135)
	is_root || skip "needs root to mount a small tmpfs"
	mkdir "$T/small"
	mount -t tmpfs -o size=1m tmpfs "$T/small" || skip "cannot mount tmpfs here"
	on_exit "umount $T/small"
	expect 77 "--dir $T/small has [0-9]+ kB free, the buffer needs 4096 kB: give a larger file system or a smaller --size" \
		--mem tmpfs-shared --dir "$T/small" --size 4M ;;
dir-target-full|dir-sigbus|dir-efault|target-full|csv-full-file)
	# a file system that is (or becomes) full: exit 77 naming the cause
	# and a skip row, or for the CSV an error and the file unchanged
	is_root || skip "needs root to mount a small tmpfs"
	mkdir "$T/small"
	mount -t tmpfs -o size=6m tmpfs "$T/small" || skip "cannot mount tmpfs here"
	on_exit "umount $T/small"
	full="SIGBUS at page 0 of 1024: the file system of $T/small is full \\(0 kB free, the buffer needs 4096 kB\\): free space there or give another --dir"
	case $case in
	dir-target-full)
		# the buffer fits, its I/O target beside it does not (it was a
		# write error naming the wrong errno)
		expect 77 "$T/small has 2048 kB free, the I/O target needs 4096 kB: free space there, or give --target or --no-io" \
			--mem tmpfs-shared --dir "$T/small" --size 4M --csv "$T/r.csv" ;;
	dir-sigbus)
		# another writer takes the space after the check (it was exit 135)
		( expect 77 "tmpfs-shared: $full" --mem tmpfs-shared --dir "$T/small" --size 4M \
			--prefault write --no-io --inject fill --csv "$T/r.csv" ) || exit 1
		[ "$(csv_cols "$T/r.csv" verdict prefault)" = "skip write" ] ||
			fail "rows $(csv_cols "$T/r.csv" verdict prefault | tr '\n' ' '), want one skip row"
		csv_get "$T/r.csv" 1 note | grep -q "SIGBUS at page 0 of 1024" || fail "the skip row does not say why"
		pass "$case: SIGBUS while prefaulting is exit 77 with the reason, a skip row" ;;
	dir-efault)
		# nothing prefaulted: GUP's fault fails, -EFAULT is the file
		# system's answer, not the kernel's verdict (it was a fail row)
		expect 77 "tmpfs-shared: $full" --mem tmpfs-shared --dir "$T/small" --size 4M \
			--prefault none --no-io --inject fill ;;
	target-full)
		TMPDIR=$T/small expect 77 "the I/O target in $T/small: write at [0-9]+ MiB: No space left on device: free space there, or give --target or --no-io" \
			--mem anon --size 4M --inject fill ;;
	csv-full-file)
		# a row that does not fit is not written at all
		f=$T/small/r.csv
		"$LONGPIN" --mem anon --size 64K --no-io --quiet --prefault all --csv "$f" 2>/dev/null || fail "first rows"
		head -c $((4096 - $(stat -c %s "$f") - 10)) /dev/zero | tr '\0' x >>"$f"; echo >>"$f"
		dd if=/dev/zero of="$T/small/fill" bs=1M status=none 2>/dev/null || true
		sum=$(md5sum <"$f")
		( expect 2 "--csv $f: write: No space left on device: the row was not written \\(the file is as it was\\)" \
			--mem anon --size 64K --no-io --csv "$f" ) || exit 1
		[ "$(md5sum <"$f")" = "$sum" ] || fail "$f was changed: $(tail -c 200 "$f")"
		pass "$case: a full disk leaves no cut-off row" ;;
	esac ;;
dir-absent|dev-absent|dir-unused|dev-unused)
	# a place given to a type that has none: a path that does not exist
	# is an error, and one that does is an option the run would ignore
	case $case in
	dir-absent)	expect 2 "--dir $T/nope: No such file or directory: give an existing directory" --mem anon --size 64K --no-io --dir "$T/nope" ;;
	dev-absent)	expect 2 "--dev /dev/longpin-none: No such file or directory: give an existing device" --mem anon --size 64K --no-io --dev /dev/longpin-none ;;
	dir-unused)	expect 2 "memory type anon maps no file, so --dir would do nothing: drop it \\(the I/O target goes to \\\$TMPDIR, or give --target\\)" --mem anon --size 64K --no-io --dir "$T" ;;
	dev-unused)	expect 2 "memory type memfd maps no device, so --dev would do nothing: drop it" --mem memfd --size 64K --no-io --dev /dev/null ;;
	esac ;;
dir-readonly)
	# a read-only --dir says so, whatever its free space (it was "too small")
	is_root || skip "needs root to mount a small read-only tmpfs"
	mkdir "$T/ro"
	mount -t tmpfs -o size=1m,ro tmpfs "$T/ro" || skip "cannot mount tmpfs here"
	on_exit "umount $T/ro"
	expect 2 "--dir $T/ro is on a read-only file system: give a writable directory" --mem tmpfs-shared --dir "$T/ro" --size 4M ;;
csv-full-new|target-full-new)
	# a new --csv or --target on a full file system: exit 2, and no new
	# file left behind (it was an empty one)
	is_root || skip "needs root to mount a small tmpfs"
	mkdir "$T/small"
	mount -t tmpfs -o size=1m tmpfs "$T/small" || skip "cannot mount tmpfs here"
	on_exit "umount $T/small"
	dd if=/dev/zero of="$T/small/fill" bs=4k status=none 2>/dev/null || true
	case $case in
	csv-full-new)
		( expect 2 "--csv $T/small/new.csv: write: No space left on device: the row was not written" \
			--mem anon --size 64K --no-io --csv "$T/small/new.csv" ) || exit 1 ;;
	target-full-new)
		( expect 2 "--target $T/small/new: write at 0 MiB: No space left on device: free space there, or give another --target" \
			--mem anon --size 64K --ios 16 --repeat 1 --target "$T/small/new" ) || exit 1 ;;
	esac
	[ "$(ls "$T/small")" = fill ] || fail "left behind: $(ls "$T/small" | tr '\n' ' ')"
	grep -q "(no file was left)" "$T/out" || fail "the message does not say that no file was left"
	pass "$case: exit 2, no new file left on the full file system" ;;
target-csv-same)
	# one path for two outputs: the pattern would overwrite the rows
	( expect 2 "--target $T/x and --csv $T/x are the same file: give each its own" \
		--mem anon --size 64K --ios 16 --repeat 1 --target "$T/x" --csv "$T/x" ) || exit 1
	[ ! -e "$T/x" ] || fail "$T/x was created"
	# the same file by two names, existing: refused, left as it was
	"$LONGPIN" --mem anon --size 64K --no-io --quiet --csv "$T/r.csv" || fail "a first row"
	ln -s r.csv "$T/link"
	expect_keep "$T/r.csv" 2 "--target $T/link and --csv $T/r.csv are the same file: give each its own" \
		--mem anon --size 64K --ios 16 --repeat 1 --target-overwrite --target "$T/link" --csv "$T/r.csv" ;;
target-chardev)	expect 2 "--target /dev/full is a character device: give a regular file or a block device" --mem anon --size 64K --target /dev/full ;;
size-hugetlb)	expect 2 "not a multiple of hugetlb's huge page size 2048K: use 2M" --mem hugetlb --size 4K ;;
size-thp)	expect 2 "not a multiple of anon-thp's huge page size 2048K: use 4M" --mem anon-thp --size 3M ;;
no-dir)		PREFIX=(env -u LONGPIN_FILE_DIR)
		expect 2 "file-shared needs --dir DIR on a page-cache directory .*\(or LONGPIN_FILE_DIR\)" --mem file-shared ;;
dir-env)	# no --dir: the type's variable is the directory
		PREFIX=(env LONGPIN_FILE_DIR="$T/nope")
		expect 2 "--dir $T/nope: No such file or directory" --mem file-shared ;;
dev-env)	PREFIX=(env LONGPIN_DEVDAX=/dev/null)
		expect 2 "--dev /dev/null: no size in /sys/dev/char/1:3" --mem devdax ;;
dir-missing)	expect 2 "--dir $T/nope: No such file or directory: give an existing directory" --mem file-private --dir "$T/nope" ;;
dir-tmpfs)	expect 2 "file-shared: --dir /dev/shm is tmpfs, not a page-cache filesystem.*use tmpfs-shared" --mem file-shared --dir /dev/shm ;;
fsdax-not-dax)
	case $(fs_of "$T") in tmpfs|ramfs) skip "$T is on $(fs_of "$T"), want a non-DAX disk filesystem";; esac
	expect 2 "fsdax-shared: a file in --dir $T .* is not DAX .*mounted with -o dax" --mem fsdax-shared --dir "$T" ;;
no-dev)		PREFIX=(env -u LONGPIN_DEVDAX)
		expect 2 "devdax needs --dev /dev/daxX.Y \(or LONGPIN_DEVDAX\): create a devdax namespace" --mem devdax ;;
dev-missing)	expect 2 "--dev /dev/dax-longpin-none: No such file or directory: create a devdax namespace" --mem devdax --dev /dev/dax-longpin-none ;;
dev-not-dax)	expect 2 "--dev /dev/null: no size in /sys/dev/char/1:3: is it a device-dax device" --mem devdax --dev /dev/null ;;
dev-size)
	[ -n "${LONGPIN_DEVDAX:-}" ] || skip "no device-dax here: set LONGPIN_DEVDAX (the vm tests do)"
	expect 2 "--dev $LONGPIN_DEVDAX has [0-9]+ bytes, --size asks" --mem devdax --dev "$LONGPIN_DEVDAX" --size 64G ;;
dev-align)
	[ -n "${LONGPIN_DEVDAX:-}" ] || skip "no device-dax here: set LONGPIN_DEVDAX (the vm tests do)"
	expect 2 "--size 1052672 is not a multiple of $LONGPIN_DEVDAX's alignment" --mem devdax --dev "$LONGPIN_DEVDAX" --size 1028K ;;
prefault)	expect 2 "--prefault sometimes: give none, read, write" --mem anon --prefault sometimes ;;
bs)		expect 2 "--bs 100: give a number from 512" --mem anon --bs 100 ;;
option)		expect 2 "unknown option or missing argument '--frobnicate'" --mem anon --frobnicate ;;
expect-name)	expect 2 "--expect linux-9.9: no such contract" --mem anon --expect linux-9.9 ;;
concurrent)	expect 2 "lifetime munmap ignores --concurrent \\(only lifetime cycles takes it\\): drop it$" --mem anon --lifetime munmap --concurrent ;;
csv-unwritable)	expect 2 "--csv $T/no/such.csv: No such file or directory: give a writable file" --mem anon --size 4K --no-io --csv "$T/no/such.csv" ;;
csv-other-header)
	# a CSV of another tool or schema: refused, left as it was
	printf 'a,b,c\n1,2,3\n' >"$T/other.csv"
	expect_keep "$T/other.csv" 2 "--csv $T/other.csv:1: not a longpin CSV of schema 4 \\(another header\\): give a new --csv file" \
		--mem anon --size 4M --no-io --csv "$T/other.csv" ;;
csv-no-newline)
	# a row cut short (no trailing newline): never glue a row onto it
	run_longpin --mem anon --size 4M --no-io --csv "$T/cut.csv"
	printf '1,harness,cut' >>"$T/cut.csv"
	expect_keep "$T/cut.csv" 2 "--csv $T/cut.csv:3: the last line has no newline \\(a cut-off row\\?\\): remove or finish it, or give a new --csv file" \
		--mem anon --size 4M --no-io --csv "$T/cut.csv" ;;
csv-no-empty)
	# a usage error (2) creates no CSV; a skip (77) leaves its skip rows,
	# one per prefault, the reason their note, and nothing else
	run_longpin --mem anon --size 4M --bs 8M --csv "$T/new.csv"
	[ "$rc" = 2 ] || fail "exit status $rc, expected 2"
	[ ! -e "$T/new.csv" ] || fail "exit 2 left $T/new.csv behind"
	PREFIX=(env LONGPIN_RDMA_DEV=longpin-none)
	run_longpin --pinner rdma --mem anon --size 4M --prefault all --csv "$T/new2.csv"
	[ "$rc" = 77 ] || fail "--pinner rdma without that device: exit $rc, expected 77"
	[ "$(csv_cols "$T/new2.csv" verdict | sort -u)" = skip ] || fail "rows other than skip rows: $(csv_cols "$T/new2.csv" verdict | tr '\n' ' ')"
	[ "$(csv_cols "$T/new2.csv" verdict | grep -c .)" = 3 ] || fail "want a skip row per prefault"
	why=$(csv_get "$T/new2.csv" 1 note)
	# (the CSV writes a comma of a note as ';')
	tr , ';' <"$T/out" | grep -qF -- "$why" || fail "the skip rows' note '$why' is not the message printed"
	pass "exit 2 creates no CSV; exit 77 leaves 3 skip rows: $why" ;;
memlock)
	is_root || skip "needs root to run as another user with a small RLIMIT_MEMLOCK"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
	chmod 0777 "$T"
	# the soft limit only: the hard one stays what it is here (unlimited:
	# ulimit -l can raise the soft one; else the message names a --size)
	PREFIX=(prlimit --memlock=65536: setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	expect 2 "RLIMIT_MEMLOCK is 64 kB.*, registering 65536 kB needs at least (655[0-9][0-9]) kB.*: (run \`ulimit -l \\1\` \\(or unlimited\\) first, or )?give --size [0-9]+K or less" \
		--mem anon --size 64M ;;
memlock-hard)
	# Debian's default for a user: 8 MiB, soft and hard; ulimit -l cannot
	# raise it, so the message names the --size that fits
	is_root || skip "needs root to run as another user with a small RLIMIT_MEMLOCK"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
	chmod 0777 "$T"
	PREFIX=(prlimit --memlock=8388608:8388608 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	( expect 2 "RLIMIT_MEMLOCK is 8192 kB \\(hard limit 8192 kB\\), registering 16384 kB needs at least [0-9]+ kB \\(the buffer and [0-9]+ kB for the ring\\): give --size 7M or less, or have root raise memlock in /etc/security/limits.conf" \
		--mem anon ) || exit 1
	run_longpin --mem anon --size 7M --no-io
	[ "$rc" = 0 ] || fail "--size 7M, as the message says, exit $rc"
	pass "$case: the default size under Debian's 8 MiB limit names the size that fits, and it does" ;;
memlock-ring)
	# a limit of exactly the buffer: the kernel may also charge the ring
	# (6.18 does); the check counts that, so the answer is a pass or a
	# refusal up front, never the kernel's -ENOMEM
	is_root || skip "needs root to run as another user with a small RLIMIT_MEMLOCK"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) missing"
	chmod 0777 "$T"
	PREFIX=(prlimit --memlock=$((4 << 20)) setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	run_longpin --mem anon --size 4M --no-io
	PREFIX=()
	grep -q ENOMEM "$T/out" && fail "the kernel answered -ENOMEM: the up-front check missed a charge"
	case $rc in
	0) pass "this kernel charges only the buffer: 4 MiB fits a 4 MiB limit" ;;
	2) grep -Eq "^longpin: RLIMIT_MEMLOCK is 4096 kB( \(hard limit 4096 kB\))?, registering 4096 kB needs at least 4[01][0-9][0-9] kB \(the buffer and [0-9]+ kB for the ring\)" "$T/out" ||
		fail "exit 2 without the message naming the ring's charge"
	   no_leftovers "$T"
	   pass "refused up front, naming the ring's charge" ;;
	*) fail "exit status $rc" ;;
	esac ;;
no-hugepages)
	free=$(free_hugepages)
	expect 77 "hugetlb needs $((free + 1)) free 2048 kB huge pages, $free are free: reserve them as root with \`echo [0-9]+ > /proc/sys/vm/nr_hugepages\`" \
		--mem hugetlb --size $(( (free + 1) * 2 ))M ;;
io-uring-disabled)
	io_uring_off
	expect 2 "io_uring is disabled \(kernel.io_uring_disabled=2\): run \`sysctl -w kernel.io_uring_disabled=0\`" --mem anon --size 4K ;;
io-uring-disabled-lifetime)
	# --lifetime names the sysctl too (it said "Operation not permitted")
	io_uring_off
	expect 2 "io_uring is disabled \(kernel.io_uring_disabled=2\): run \`sysctl -w kernel.io_uring_disabled=0\`" --lifetime munmap --mem anon --size 4M ;;
io-uring-disabled-torture)
	# --torture answers before any thread starts, with nothing left behind
	io_uring_off
	run_longpin --torture 1 --mem anon --csv "$T/tt.csv"
	[ "$rc" = 2 ] || fail "exit status $rc, expected 2"
	grep -q "^longpin: io_uring is disabled (kernel.io_uring_disabled=2): run \`sysctl -w kernel.io_uring_disabled=0\`" "$T/out" ||
		fail "no message naming the sysctl"
	[ ! -e "$T/tt.csv" ] || fail "--torture left a CSV behind"
	grep -q "torture seed" "$T/out" && fail "--torture started its threads"
	no_leftovers "$T"
	pass "$case: exit 2 before any thread, the sysctl named, no CSV" ;;
pinner-unknown)
	expect 2 "--pinner foo: give io_uring, gup-fast, gup, rdma or vfio \(longpin pinners\)$" --pinner foo --mem anon ;;
readonly-pin)
	expect 2 "--readonly-pin belongs to --pinner gup-fast, gup, rdma or vfio .*: give --pinner too$" --readonly-pin --mem anon ;;
pinner-cycles)
	expect 2 "--pinner gup only pins and unpins, so --cycles would do nothing: drop it$" --pinner gup --cycles 3 --mem anon ;;
pinner-io)
	expect 2 "--pinner gup-fast only pins and unpins, so --qd would do nothing: drop it$" --pinner gup-fast --qd 4 --mem anon ;;
pinner-torture)
	expect 2 "torture takes no --pinner \(an option of register, lifetime or expected\): drop it$" --pinner gup --torture 1 --mem anon ;;
pinner-lifetime-gup)
	expect 2 "lifetime cycles: --pinner gup unpins inside its ioctl, so there is no unpin to test: give --pinner io_uring or rdma$" --pinner gup --lifetime cycles --mem anon ;;
pinner-lifetime-case)
	expect 2 "lifetime fork takes --pinner io_uring only: with --pinner rdma give reclaim, lazyfree or cycles$" --pinner rdma --lifetime fork --mem anon ;;
pinner-lifetime-vfio)
	expect 2 "lifetime reclaim takes --pinner io_uring or rdma only: --pinner vfio takes no lifetime case$" --pinner vfio --lifetime reclaim --mem anon ;;
pinner-lifetime-ro)
	expect 2 "lifetime reclaim pins for the device to write: drop --readonly-pin$" --pinner rdma --readonly-pin --lifetime reclaim --mem anon ;;
pinner-absent)
	# no gup_test here (debugfs unmounted, or CONFIG_GUP_TEST=n)
	[ -e /sys/kernel/debug/gup_test ] && skip "this kernel has gup_test: nothing absent to check"
	pinner_skip gup "(debugfs is not mounted: mount -t debugfs none /sys/kernel/debug|/sys/kernel/debug/gup_test: .*: run as root|this kernel has no /sys/kernel/debug/gup_test \(CONFIG_GUP_TEST=n.*)" ;;
pinner-rdma-absent)
	# no RDMA device here (or no libibverbs in the build)
	[ -d /sys/class/infiniband ] && skip "this machine has an RDMA device: nothing absent to check"
	pinner_skip rdma "(no RDMA device: modprobe rdma_rxe; .*rdma link add rxe0 type rxe netdev dummy0|no RDMA device, and this kernel has no networking .*CONFIG_RDMA_RXE|longpin was built without libibverbs: apt-get install libibverbs-dev and rebuild)" ;;
pinner-vfio-absent)
	# no device bound to vfio-pci here (nothing is ever bound by a test)
	compgen -G '/sys/bus/pci/drivers/vfio-pci/[0-9a-f][0-9a-f][0-9a-f][0-9a-f]:*' >/dev/null &&
		skip "this machine has a device bound to vfio-pci: nothing absent to check"
	LONGPIN_VFIO_DEV='' pinner_skip vfio "(vfio-pci is not loaded \(no /sys/bus/pci/drivers/vfio-pci\): modprobe vfio-pci, then bind a device to it \(echo vfio-pci > /sys/bus/pci/devices/D/driver_override; .*\)|no device bound to vfio-pci: bind one \(echo vfio-pci > /sys/bus/pci/devices/D/driver_override; .*\), or name one in LONGPIN_VFIO_DEV)" ;;
*)	fail "unknown case $case" ;;
esac
