# ctest tests. Labels: "host" runs on this machine's kernel, "vm" boots
# kernels in QEMU (slow). A test that cannot run here exits 77: SKIP.
set(LP_TESTS ${CMAKE_SOURCE_DIR}/tests)

function(lp_test name)
  add_test(NAME ${name} COMMAND bash ${ARGN})
  set_tests_properties(${name} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "LONGPIN=$<TARGET_FILE:longpin>;LONGPIN_FILE_DIR=${CMAKE_BINARY_DIR}"
    LABELS host)
endfunction()

# Every memory type that this machine can provide, for each prefault,
# against the contract of the running kernel.
set(LP_HOST_TYPES anon anon-thp anon-shared sysv-shm sysv-shm-huge memfd
    memfd-hugetlb hugetlb tmpfs-shared tmpfs-private file-shared
    file-private fsdax-shared fsdax-private devdax readonly mixed)
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
    size-hugetlb size-thp no-dir dir-missing dir-tmpfs fsdax-not-dax no-dev
    dev-missing dev-not-dax dev-size dev-align prefault bs option expect-name
    csv-unwritable memlock no-hugepages)
  lp_test(badinput/${case} ${LP_TESTS}/badinput.sh ${case})
endforeach()
set_tests_properties(badinput/no-hugepages PROPERTIES RESOURCE_LOCK hugepages)
# io_uring is switched off for the whole machine for a moment: alone.
lp_test(badinput/io-uring-disabled ${LP_TESTS}/badinput.sh io-uring-disabled)
set_tests_properties(badinput/io-uring-disabled PROPERTIES RUN_SERIAL TRUE)

foreach(case corrupt leak csv cli unchecked expect over-1g sigint cycles
    print-expected)
  lp_test(selftest/${case} ${LP_TESTS}/selftest.sh ${case})
endforeach()

include(${CMAKE_SOURCE_DIR}/tests/compare.cmake OPTIONAL)
