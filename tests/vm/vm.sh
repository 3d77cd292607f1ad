#!/bin/bash
# vm.sh CASE KERNEL: boot KERNEL with vm/longpin-vm and check longpin there.
# Label "vm": slow (a QEMU boot each, TCG). Skips when QEMU is missing.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
case=$1 kernel=$2
vm=$LPVM
need_qemu
# the contract each kernel must be judged by
contract=$(contract_of "$kernel") || fail "no contract known for kernel '$kernel'"

# guest KERNEL CMD...: run CMD in the guest, output in $T/out, status in
# $rc; VM_RUN_OPTS: more options of longpin-vm run (--vfio)
guest() {
	rc=0
	# KASAN + lockdep under TCG: the matrix took 8.5 min alone, 15+ when shared
	local tmo=900
	[ "$kernel" = patched-debug ] && tmo=1700
	# shellcheck disable=SC2086 # VM_RUN_OPTS is a list of words
	"$vm" run --kernel "$kernel" --timeout "$tmo" --out "$T/res" ${VM_RUN_OPTS:-} \
		-- "$@" >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
}
# csv_rows FILE: "memtype prefault fs errno verdict contract" per row
csv_rows() { csv_cols "$1" memtype prefault fs_type errno verdict contract; }

case $case in
fsdax)
	# ndctl shows an fsdax and a devdax namespace; both DAX mounts are
	# DAX (longpin refuses fsdax-* otherwise); fsdax-shared -EOPNOTSUPP on
	# every kernel; devdax as the kernel's contract says.
	guest sh -c 'ndctl list -N; for d in $LONGPIN_DAX_EXT4 $LONGPIN_DAX_XFS; do
		longpin --mem fsdax-shared --dir $d --size 8M --prefault all --no-io --csv /results/r.csv || exit $?; done
		longpin --mem devdax --dev $LONGPIN_DEVDAX --size 8M --prefault all --csv /results/r.csv'
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	grep -q '"mode":"fsdax"' "$T/out" || fail "no fsdax namespace in ndctl list -N"
	grep -q '"mode":"devdax"' "$T/out" || fail "no devdax namespace in ndctl list -N"
	grep -q "boot to first result: " "$T/out" || fail "no boot-to-first-result time"
	rows=$(csv_rows "$T/res/r.csv")
	echo "$rows"
	for fs in ext4 xfs; do
		[ "$(echo "$rows" | grep -c "^fsdax-shared [a-z]* $fs EOPNOTSUPP pass $contract$")" = 3 ] ||
			fail "fsdax-shared on $fs: want -EOPNOTSUPP, pass, for 3 prefaults"
	done
	case $contract in
	linux-6.1) want=EOPNOTSUPP ;;
	*) want=- ;;
	esac
	[ "$(echo "$rows" | grep -c "^devdax [a-z]* devdax $want pass $contract$")" = 3 ] ||
		fail "devdax: want errno $want, verdict pass against $contract"
	pass "$kernel: fsdax+devdax namespaces, ext4/xfs DAX, fsdax-shared -EOPNOTSUPP, devdax $want ($contract); $(grep -o 'boot to first result: [0-9.]* s' "$T/out")" ;;
matrix)
	# every memory type and prefault (file and DAX types on ext4 and xfs)
	# against the kernel's own contract
	guest env LONGPIN_ARGS= sh /opt/longpin/run.sh matrix
	rows=$(csv_rows "$T/res/matrix.csv")
	n=$(echo "$rows" | grep -c .)
	[ "$(csv_cols "$T/res/matrix.csv" contract | sort -u)" = "$contract" ] || fail "rows not judged by $contract"
	bad=$(echo "$rows" | grep -v ' pass ')
	[ -z "$bad" ] || fail "verdicts not pass: $bad"
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	grep -q "# SKIP" "$T/out" && fail "a memory type was skipped in the guest"
	[ "$n" = 78 ] || fail "$n rows, want 78 (22 types x 3 + 4 on xfs x 3)"
	[ "$(echo "$rows" | grep -c '^secretmem [a-z]* secretmem EFAULT pass ')" = 3 ] ||
		fail "secretmem: want -EFAULT, pass, for 3 prefaults"
	# QEMU's CPU says what runs it: tcg here (kvm where /dev/kvm is)
	accel=$(csv_cols "$T/res/matrix.csv" accel | sort -u)
	case $accel in tcg|kvm) ;; *) fail "accel '$accel' in the guest's rows, want tcg or kvm" ;; esac
	pass "$kernel: $n rows, all pass against $contract, secretmem refused, accel $accel" ;;
bench)
	# the registration and stall benchmarks (vm/guest/bench.sh) at small
	# sizes: every row passes its contract and each stall row holds its
	# sibling's longest call; the figures are ./run.sh's to compare side
	# by side, not a test's to time
	guest env LONGPIN_BENCH_SIZES="4M 16M" LONGPIN_STALL_SIZES=16M \
		LONGPIN_STALL_RUNS=3 LONGPIN_BENCH_CYCLES=2 sh /opt/longpin/run.sh bench
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	csv=$T/res/bench.csv
	[ -f "$csv" ] || fail "no bench.csv"
	[ "$(csv_cols "$csv" contract | sort -u)" = "$contract" ] || fail "rows not judged by $contract"
	bad=$(csv_cols "$csv" memtype size prefault verdict | grep -v ' pass$')
	[ -z "$bad" ] || fail "verdicts not pass: $bad"
	# one row per stall size and prefault, each with the median stall of
	# its 3 registrations
	stall=$(csv_awk "$csv" 'NR > 1 && $col("op") ~ /mmap-probe/ { print $col("size") "/" $col("prefault") "=" $col("stall_us_med") }')
	[ "$(echo "$stall" | sed 's/=.*//' | tr '\n' ' ')" = "16777216/write 16777216/none " ] ||
		fail "want the stall rows 16M written and untouched, got: $stall"
	echo "$stall" | sed 's/.*=//' | grep -qvE '^[0-9]+(\.[0-9]+)?$' && fail "a stall row without its registrations' stalls: $stall"
	pass "$kernel: $(awk 'NR > 1' "$csv" | grep -c .) benchmark rows pass against $contract; stall rows (us): $(echo $stall)" ;;
counters)
	# the patched kernel's counters prove the path: written anon is served
	# by GUP-fast only; refusals are counted by reason
	guest sh -c 'longpin --mem anon --size 64M --prefault write --no-io --csv /results/c.csv &&
		longpin --mem file-shared --dir $LONGPIN_EXT4 --size 8M --prefault all --no-io --csv /results/c.csv &&
		longpin --mem fsdax-shared --dir $LONGPIN_DAX_EXT4 --size 8M --no-io --csv /results/c.csv &&
		longpin --mem anon --size 8M --prefault none --no-io --csv /results/c.csv &&
		longpin --mem anon+file-shared --dir $LONGPIN_EXT4 --size 8M --prefault write,none --no-io --csv /results/c.csv &&
		longpin --mem file-private+file-shared --dir $LONGPIN_EXT4 --size 8M --prefault none --no-io --csv /results/c.csv'
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	f=$T/res/c.csv
	[ "$(csv_get "$f" 1 gup_fast_pages)" = 16384 ] || fail "anon 64M write: gup_fast_pages $(csv_get "$f" 1 gup_fast_pages), want 16384"
	[ "$(csv_get "$f" 1 gup_slow_pages)" = 0 ] || fail "anon 64M write: gup_slow_pages $(csv_get "$f" 1 gup_slow_pages), want 0"
	for r in 2 3 4; do
		[ "$(csv_get "$f" $r refused_file)" -ge 1 ] || fail "file-shared row $r: refused_file not counted"
		[ "$(csv_get "$f" $r gup_fast_pages)" = 0 ] || fail "file-shared row $r: pages pinned by GUP-fast"
	done
	[ "$(csv_get "$f" 5 refused_fsdax)" -ge 1 ] || fail "fsdax-shared: refused_fsdax not counted"
	[ "$(csv_get "$f" 6 gup_slow_pages)" = 2048 ] || fail "anon 8M none: gup_slow_pages $(csv_get "$f" 6 gup_slow_pages), want 2048 (faulted by the slow path)"
	# several VMAs refused in the last one: one refusal, no page pinned,
	# none faulted (resident and dirty unchanged), whatever came before
	for r in 7 8 9; do
		[ "$(csv_get "$f" $r errno)" = EOPNOTSUPP ] || fail "row $r $(csv_get "$f" $r memtype): $(csv_get "$f" $r errno), want EOPNOTSUPP"
		[ "$(csv_get "$f" $r refused_file)" = 1 ] || fail "row $r: refused_file +$(csv_get "$f" $r refused_file), want +1"
		[ "$(csv_get "$f" $r gup_fast_pages) $(csv_get "$f" $r gup_slow_pages)" = "0 0" ] ||
			fail "row $r: pages pinned before the refusal"
		[ "$(csv_get "$f" $r resident_before)" = "$(csv_get "$f" $r resident_after)" ] ||
			fail "row $r: resident $(csv_get "$f" $r resident_before) -> $(csv_get "$f" $r resident_after)"
	done
	pass "patched: 64 MiB written anon: 16384 pages by GUP-fast, 0 slow; refusals counted; untouched anon served by the slow path; anon+file-shared and file-private+file-shared refused once, nothing pinned or faulted" ;;
nofault)
	# on stock, a refused file-shared registration faults every page: the
	# longpin contract's "nofault" catches it (this is what patch 1 fixes)
	guest longpin --mem file-shared --dir /mnt/ext4 --size 8M --prefault none --no-io --expect longpin --csv /results/n.csv
	[ "$rc" = 1 ] || fail "guest exit status $rc, want 1"
	grep -q "the attempt faulted pages: resident 0 -> 2048" "$T/out" || fail "no 'faulted pages' note"
	pass "$kernel: a refused file-shared registration faulted 2048 pages, and longpin says so" ;;
pinners)
	# the matrix with every other long-term pinner (gup-fast, gup and
	# rdma, read-write and read-only; ext4, then the file types on xfs):
	# every row that ran passes against the kernel's own contract. Our
	# kernels have gup_test and no networking (rdma skips), Debian's have
	# rxe and no gup_test (gup-fast and gup skip): each skip says so.
	guest sh /opt/longpin/run.sh pinners
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	lines=$(grep -cE '^(not )?ok [0-9]+ ' "$T/out")
	[ "$lines" = $(((22 + 4) * 6)) ] || fail "$lines KTAP lines, want $(((22 + 4) * 6))"
	case $kernel in
	debian-*)
		skipped='gup[a-z-]*: this kernel has no /sys/kernel/debug/gup_test (CONFIG_GUP_TEST=n'
		ran=rdma ;;
	*)
		skipped='rdma: no RDMA device, and this kernel has no networking'
		ran=gup ;;
	esac
	n=$(grep -c "# SKIP --pinner $skipped" "$T/out")
	[ "$(grep -c '# SKIP' "$T/out")" = "$n" ] || fail "skips other than '$skipped': $(grep '# SKIP' "$T/out" | grep -v "$skipped" | head -3)"
	# the skipped pinner's runs leave skip rows, a row per prefault
	rows=$(csv_cols "$T/res/matrix.csv" pinner op memtype prefault fs_type errno verdict contract | grep -v ' skip ')
	nskip=$(csv_cols "$T/res/matrix.csv" verdict | grep -c '^skip$')
	want=$(((22 + 4) * 3 * 2))
	[ $ran = gup ] && want=$((want * 2))
	[ "$(echo "$rows" | grep -c .)" = $want ] || fail "$(echo "$rows" | grep -c .) rows, want $want"
	[ "$n" = $(((22 + 4) * 6 - want / 3)) ] || fail "$n lines skip for want of $skipped, want $(((22 + 4) * 6 - want / 3))"
	[ "$nskip" = $((n * 3)) ] || fail "$nskip skip rows, want $((n * 3)): one per prefault of each skipped run"
	bad=$(echo "$rows" | grep -v " pass $contract\$")
	[ -z "$bad" ] || fail "rows not pass against $contract: $bad"
	# where the pinners differ from io_uring: a writable long-term pin of
	# a shared ext4 mapping is taken by stock 6.1 (the LWN seed's danger),
	# refused by ours and by 6.5+, 7.2 too (gup_test counts pages: REFUSED)
	case $contract in
	linux-6.1) want=- ;;
	linux-6.5+ | linux-7.2+) want=EFAULT ;;  # rdma's errno; gup_test's below
	*) want=REFUSED ;;
	esac
	[ $ran = gup ] && [ "$want" = EFAULT ] && want=REFUSED
	case $ran in
	gup)
		for p in gup-fast gup; do
			echo "$rows" | grep -q "^$p pin file-shared write ext4 $want pass" ||
				fail "$p file-shared write: want errno $want"
		done
		echo "$rows" | grep -q "^gup-fast pin-ro fsdax-private write ext4 - pass" ||
			fail "gup-fast read-only of written private fsdax pages: want pinned"
		echo "$rows" | grep -q "^gup pin-ro fsdax-private write ext4 REFUSED pass" ||
			fail "gup read-only of written private fsdax pages: want refused" ;;
	rdma)
		echo "$rows" | grep -q "^rdma pin file-shared write ext4 $want pass" ||
			fail "rdma file-shared write: want errno $want" ;;
	esac
	pass "$kernel: $(echo "$rows" | grep -c .) $ran rows pass against $contract, $n lines skip; file-shared write: $want" ;;
gup-test)
	# 6.1's own GUP selftest, built from the same tree, as run_vmtests.sh runs it
	src=${LONGPIN_CACHE:-$HOME/.cache/longpin}/trees/stock/src
	[ -f "$src/tools/testing/selftests/vm/gup_test.c" ] || skip "no kernel tree at $src (vm/longpin-vm build first)"
	gcc -O2 -I "$src" -I "$src/tools/testing/selftests/vm" -o "$T/gup_test" \
		"$src/tools/testing/selftests/vm/gup_test.c" -lpthread || fail "gup_test does not build"
	rc=0
	LONGPIN_DMESG_ALLOW='page dumped because: gup_test: dump_pages\(\) test' \
	"$vm" run --kernel "$kernel" --timeout 900 --add "$T/gup_test:/usr/bin/gup_test" -- sh -c \
		'set -e; for a in "-u" "-a" "-L" "-ct -F 0x1 0 19 0x1000"; do echo "# gup_test $a"; gup_test $a; done' \
		>"$T/out" 2>&1 || rc=$?
	cat "$T/out"
	[ "$rc" = 0 ] || fail "gup_test failed (exit $rc)"
	pass "$kernel: gup_test -u, -a, -L, -ct -F 0x1 0 19 0x1000 pass" ;;
devdax-bad)
	# size and alignment of a real device-dax device, as the host cannot.
	# 2>&1 in the guest: stdout and stderr leave on two serial ports and
	# the host interleaves them at random (CI saw "2048Krc=2").
	guest sh -c 'exec 2>&1
		longpin --mem devdax --dev $LONGPIN_DEVDAX --size 64G; echo "rc=$?"
		longpin --mem devdax --dev $LONGPIN_DEVDAX --size 1028K; echo "rc=$?"'
	[ "$(grep -c '^rc=2$' "$T/out")" = 2 ] || fail "want exit status 2 twice"
	grep -Eq "^longpin: --dev /dev/dax[0-9.]+ has [0-9]+ bytes, --size asks 68719476736: give --size [0-9]+M or less$" "$T/out" ||
		fail "no one-line message for a size above the device's"
	grep -Eq "^longpin: --size 1052672 is not a multiple of /dev/dax[0-9.]+'s alignment 2097152: use a multiple of 2048K$" "$T/out" ||
		fail "no one-line message for a misaligned size"
	pass "$kernel: devdax size and alignment errors: exit 2 with their messages" ;;
rxe)
	# soft-RoCE for longpin --pinner rdma: /init made rxe0 over dummy0,
	# ib_uverbs made its device file, what libibverbs loads at run time
	# (the rxe provider, the file naming it) is in the guest, and
	# ibv_reg_mr() pins written anon memory, charged to VmPin
	guest sh -c 'exec 2>&1; rdma link show; ls /dev/infiniband
		ls /usr/lib/*/libibverbs/librxe-rdmav*.so /etc/libibverbs.d/rxe.driver
		longpin --pinner rdma --mem anon --size 4M --prefault write --csv /results/r.csv'
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	grep -q '^link rxe0/1 state ACTIVE .*netdev dummy0' "$T/out" ||
		fail "no ACTIVE rxe0 over dummy0 in rdma link show"
	grep -q '^uverbs0$' "$T/out" || fail "no /dev/infiniband/uverbs0"
	grep -q 'librxe-rdmav[0-9]*\.so$' "$T/out" || fail "no rxe provider of libibverbs"
	row=$(csv_cols "$T/res/r.csv" pinner op result vmpin_reg_kb vmpin_after_kb)
	[ "$row" = "rdma pin 0 4096 0" ] ||
		fail "--pinner rdma --mem anon: want 'rdma pin 0 4096 0' (pinner op result VmPin kB pinned, after), got '$row'"
	pass "$kernel: rxe0 over dummy0 ACTIVE, /dev/infiniband/uverbs0, libibverbs' rxe provider; --pinner rdma pinned 4 MiB of anon, VmPin 4096 kB, then 0" ;;
vfio)
	# --pinner vfio in a guest of longpin-vm run --vfio (q35, intel-iommu,
	# edu bound to vfio-pci): the matrix mapped read-write and read-only,
	# ext4 then the file types on xfs, 4 MiB (anon+devdax: two 2 MiB
	# halves). Every row passes against the kernel's contract but those of
	# devdax and anon+devdax where the kernel has the known defect
	# vfio-reserved-unpin (vfio's put_pfn() skips PageReserved pfns, which
	# ZONE_DEVICE pages are): they answer 0 and read "defect", with exactly
	# their devdax pages' pins kept (1024 for devdax, 512 for
	# anon+devdax). The patched kernels carry the fix
	# (kernel-patches/*-vfio): those rows pass, their pins balanced.
	case $contract in
	longpin | longpin-6.12 | longpin-7.2) leak=0 ;;
	*) leak=1 ;;
	esac
	VM_RUN_OPTS=--vfio guest env LONGPIN_SIZE=4M LONGPIN_PINNERS=vfio \
		sh /opt/longpin/run.sh pinners
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	grep -q '# SKIP' "$T/out" && fail "skips: $(grep '# SKIP' "$T/out" | head -3)"
	lines=$(grep -cE '^(not )?ok [0-9]+ ' "$T/out")
	[ "$lines" = $(((22 + 4) * 2)) ] || fail "$lines KTAP lines, want $(((22 + 4) * 2))"
	grep -q '^not ok ' "$T/out" && fail "not ok: $(grep '^not ok ' "$T/out" | head -3)"
	csv=$T/res/matrix.csv
	rows=$(csv_cols "$csv" pinner op memtype prefault fs_type errno verdict contract)
	[ "$(echo "$rows" | grep -c .)" = $(((22 + 4) * 6)) ] ||
		fail "$(echo "$rows" | grep -c .) rows, want $(((22 + 4) * 6))"
	bad=$(echo "$rows" | grep -v " pass $contract\$" | grep -vE '^vfio pin(-ro)? (anon\+)?devdax ')
	[ -z "$bad" ] || fail "rows not pass against $contract: $bad"
	# devdax: answer 0; the pins kept (the defect) or all given back
	leaks=$(csv_cols "$csv" memtype op prefault errno verdict foll_pin_acquired foll_pin_released |
		grep -E '^(anon\+)?devdax ')
	echo "$leaks"
	[ "$(echo "$leaks" | grep -c .)" = 12 ] || fail "$(echo "$leaks" | grep -c .) devdax rows, want 12"
	echo "$leaks" | awk -v leak=$leak '$4 != "-" ||
		(leak && ($5 != "defect" || $6 - $7 != ($1 == "devdax" ? 1024 : 512))) ||
		(!leak && ($5 != "pass" || $6 != $7)) { print "unexpected: " $0; bad = 1 }
		END { exit bad }' ||
		fail "devdax rows: want answer 0 and $([ $leak = 1 ] && echo "verdict defect, the devdax pages' pins kept" || echo "verdict pass, pins balanced")"
	# where the kernels differ: a writable map of a shared ext4 file
	case $contract in
	linux-6.1) want=- ;;
	longpin) want=EOPNOTSUPP ;;
	*) want=EFAULT ;;
	esac
	echo "$rows" | grep -q "^vfio pin file-shared write ext4 $want pass" ||
		fail "vfio file-shared write: want errno $want"
	echo "$rows" | grep -q "^vfio pin-ro file-shared write ext4 - pass" ||
		fail "vfio read-only file-shared write: want mapped"
	# locked_vm: charged by the map, given back by the unmap
	note=$(csv_cols "$csv" op memtype prefault note | grep '^pin anon write ')
	case $note in
	*"VmLck 0 -> 4096 -> 0 kB"*) ;;
	*) fail "anon: want VmLck 0 -> 4096 -> 0 kB in the note, got '$note'" ;;
	esac
	pass "$kernel: $(echo "$rows" | grep -c .) vfio rows pass against $contract; file-shared write: $want; devdax $([ $leak = 1 ] && echo "pins leak, the known defect" || echo "pins balance") ($(echo "$leaks" | awk '$1 == "devdax" && $3 == "write" { print $2 ": acquired " $6 ", released " $7 }' | tr '\n' ';'))" ;;
rdma-lifetime)
	# --pinner rdma's lifetime cases on every memory type
	# (vm/guest/lifetime-rdma.sh): every row passes against the kernel's
	# contract, VmPin and nr_foll_pin balanced; reclaim: what an RDMA
	# WRITE put into the MR is still there after ibv_dereg_mr and the
	# page-out (or the contract's defect), read-prefaulted memfd too,
	# where io_uring's 6.1 loses it; cycles: a row per memory type
	guest sh /opt/longpin/lifetime-rdma.sh /results/lifetime.csv
	[ "$rc" = 0 ] || fail "guest exit status $rc"
	grep -q '^not ok' "$T/out" && fail "a case failed in the guest"
	# skip rows (a type the kernel or rdma refuses) say why and no more
	rows=$(csv_cols "$T/res/lifetime.csv" pinner op memtype prefault errno verdict data_check vmpin_leak_kb contract | grep -v ' skip ')
	# every other row passes, or lost its data as the contract's defect,
	# or (a reclaim row whose every page was dirty before the
	# deregistration) proves nothing: reclaim_rows.py checks its pages
	bad=$(echo "$rows" | awk -v c="$contract" '$1 != "rdma" || $8 != 0 || $9 != c ||
		($6 != "pass" && !($6 == "defect" && $2 == "lifetime-reclaim" && $7 == "mismatch") &&
		 !($6 == "unexercised" && $2 ~ /^lifetime-(reclaim|lazyfree)$/ && $7 == "ok")) ||
		($6 == "pass" && $2 == "lifetime-reclaim" && $7 != "ok")')
	[ -z "$bad" ] || fail "rows not pass against $contract: $bad"
	# and the reclaim rows say what their pages did: pages out on every
	# pass and defect
	python3 "$REPO/tests/py/select_rows.py" "$T/res/lifetime.csv" "$T/reclaim.csv" \
		lifetime-reclaim lifetime-lazyfree || fail "no reclaim rows"
	python3 "$REPO/tests/py/reclaim_rows.py" "$T/reclaim.csv" --want-exercised || fail "reclaim rows"
	types=$(echo "$rows" | awk '$2 == "lifetime-cycles"' | grep -c .)
	[ "$types" = "$("$LONGPIN" --list | grep -c .)" ] ||
		fail "$types cycles rows, want one per memory type"
	echo "$rows" | grep -q '^rdma lifetime-reclaim memfd read - pass ok 0 ' ||
		fail "reclaim memfd read: want the RDMA WRITE's data kept"
	rec=$(echo "$rows" | awk '$2 == "lifetime-reclaim"' | grep -c .)
	lost=$(echo "$rows" | awk '$6 == "defect" { printf " %s/%s", $3, $4 }')
	pass "$kernel: $rec reclaim rows (data lost, known defect:${lost:- none}), $types cycles rows, all pass against $contract" ;;
*) fail "unknown case $case" ;;
esac
