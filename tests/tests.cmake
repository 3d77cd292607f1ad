# ctest tests. Labels: "host" runs on this machine's kernel, "vm" boots
# kernels in QEMU (slow). A test that cannot run here exits 77: SKIP.
set(LP_TESTS ${CMAKE_SOURCE_DIR}/tests/host)
set(LP_VMT ${CMAKE_SOURCE_DIR}/tests/vm)

function(lp_test name)
  add_test(NAME ${name} COMMAND bash ${ARGN})
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "LONGPIN=$<TARGET_FILE:longpin>;LONGPIN_FILE_DIR=${CMAKE_BINARY_DIR}"
    LABELS host)
endfunction()

# Every memory type that this machine can provide, for each prefault,
# against the contract of the running kernel.
set(LP_HOST_TYPES anon anon-thp anon-shared sysv-shm sysv-shm-huge memfd secretmem
    memfd-hugetlb hugetlb tmpfs-shared tmpfs-private file-shared
    file-private fsdax-shared fsdax-private devdax readonly mixed
    anon+file-shared file-private+file-shared anon+hole anon+devdax)
foreach(mem ${LP_HOST_TYPES})
  foreach(pf none read write)
    lp_test(verdict/${mem}/${pf} ${LP_TESTS}/verdict.sh ${mem} ${pf})
    if(mem MATCHES "hugetlb|huge")
      # they change vm.nr_hugepages and put it back
      set_tests_properties(verdict/${mem}/${pf} PROPERTIES RESOURCE_LOCK hugepages)
    endif()
  endforeach()
endforeach()

foreach(case unknown-mem no-mem size-zero size-unaligned size-garbage
    size-overflow size-max size-below-bs mem-twice lifetime-io lifetime-cycles target-exists csv-other-header csv-no-newline csv-no-empty
    size-hugetlb size-thp no-dir dir-env dev-env dir-missing dir-full dir-tmpfs fsdax-not-dax no-dev
    dev-missing dev-not-dax dev-size dev-align prefault bs option expect-name
    csv-unwritable concurrent memlock memlock-hard memlock-ring no-hugepages dir-target-full
    dir-sigbus dir-efault target-full csv-full-file target-chardev csv-full)
  lp_test(badinput/${case} ${LP_TESTS}/badinput.sh ${case})
endforeach()
set_tests_properties(badinput/no-hugepages PROPERTIES RESOURCE_LOCK hugepages)
# io_uring is switched off for the whole machine for a moment: alone.
foreach(case io-uring-disabled io-uring-disabled-lifetime)
  lp_test(badinput/${case} ${LP_TESTS}/badinput.sh ${case})
  set_tests_properties(badinput/${case} PROPERTIES RUN_SERIAL TRUE)
endforeach()

foreach(case corrupt leak csv cli unchecked expect over-1g sigint cycles
    probe-cpus target-size csv-stdout print-expected accel pipe-lines tty-progress
    table list-types)
  lp_test(selftest/${case} ${LP_TESTS}/selftest.sh ${case})
endforeach()

# VM tests: boot kernels in QEMU (TCG). ./test.sh builds the kernels first;
# a test that finds one missing builds it (under the cache's lock).
set(LP_VM ${CMAKE_SOURCE_DIR}/tests/tool)
function(lp_vm_test name)
  add_test(NAME ${name} COMMAND bash ${ARGN})
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS vm
    ENVIRONMENT "LONGPIN=$<TARGET_FILE:longpin>;LONGPIN_BIN=$<TARGET_FILE:longpin>")
endfunction()

foreach(k stock patched debian-6.1 debian-6.12)
  lp_vm_test(vm/${k}/boot-ndctl ${LP_VMT}/boot-ndctl.sh ${k})
  lp_vm_test(vm/${k}/fsdax ${LP_VMT}/vm.sh fsdax ${k})
  lp_vm_test(vm/${k}/matrix ${LP_VMT}/vm.sh matrix ${k})
endforeach()
# the debug kernel (KASAN, lockdep, DEBUG_VM): any report in dmesg fails
lp_vm_test(vm/patched-debug/fsdax ${LP_VMT}/vm.sh fsdax patched-debug)
lp_vm_test(vm/patched-debug/matrix ${LP_VMT}/vm.sh matrix patched-debug)
lp_vm_test(vm/patched/counters ${LP_VMT}/vm.sh counters patched)
lp_vm_test(vm/patched/gup-test ${LP_VMT}/vm.sh gup-test patched)
lp_vm_test(vm/stock/nofault ${LP_VMT}/vm.sh nofault stock)
lp_vm_test(vm/stock/devdax-bad ${LP_VMT}/vm.sh devdax-bad stock)
foreach(t exit-status timeout signal warn-scan usage patch-fail cache boot-retry
    nvdimm-prepared fio-layer)
  lp_vm_test(vm/tool/${t} ${LP_VM}/${t}.sh)
endforeach()
# cache.sh and patch-fail.sh rebuild kernels: not beside the other builds
set_tests_properties(vm/tool/cache vm/tool/patch-fail PROPERTIES RUN_SERIAL TRUE)

include(${CMAKE_SOURCE_DIR}/tests/compare.cmake OPTIONAL)
include(${CMAKE_SOURCE_DIR}/tests/fio.cmake OPTIONAL)
include(${CMAKE_SOURCE_DIR}/tests/lifetime.cmake)

# Fuzzing (issue 7): each parser for a bounded time (see fuzz/README.md)
foreach(target opts csvread compare)
  lp_test(fuzz/${target} ${LP_TESTS}/fuzz.sh ${target} 60)
  set_tests_properties(fuzz/${target} PROPERTIES TIMEOUT 600 LABELS "host;fuzz")
endforeach()
