# longpin --lifetime CASE: host tests on this machine's kernel, and one
# boot per kernel running every case (tests/vm/lifetime.sh, harness/guest-lifetime.sh).
foreach(case munmap fork truncate punch mremap reclaim reclaim-pinned
    unreg-inflight close-ring
    update cycles limits memlock)
  lp_test(lifetime/${case} ${LP_TESTS}/lifetime.sh ${case})
endforeach()
# they reserve huge pages (vm.nr_hugepages, put back after)
set_tests_properties(lifetime/munmap lifetime/fork lifetime/mremap
  lifetime/reclaim lifetime/reclaim-pinned
  lifetime/unreg-inflight lifetime/close-ring lifetime/update
  PROPERTIES RESOURCE_LOCK hugepages)
# system-wide pin counters: nothing else of ours runs meanwhile
set_tests_properties(lifetime/cycles PROPERTIES RUN_SERIAL TRUE)
foreach(k stock patched patched-debug)
  lp_vm_test(vm/${k}/lifetime ${LP_VMT}/lifetime.sh ${k})
endforeach()
