# ctest tests of the fio jobs (tests/fio.sh CASE): fio/CASE. "host":
# fio-jobs/fio2csv.sh on the captured outputs of tests/data/fio/, the job
# files and the memory type mapping; "vm": the jobs in the stock guest.
function(lp_fio_test case label)
  add_test(NAME fio/${case} COMMAND bash ${ARGN})
  set_tests_properties(fio/${case} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "LONGPIN=$<TARGET_FILE:longpin>;LONGPIN_SRC=${CMAKE_SOURCE_DIR}"
    LABELS ${label})
endfunction()

foreach(case header convert convert-6.12 append error-text verdicts memtype
    memtype-dir jobs
    parse-only bad-usage bad-nodir bad-nometa bad-header bad-fields bad-norun
    bad-json bad-job bad-csv)
  lp_fio_test(${case} host ${CMAKE_SOURCE_DIR}/tests/host/fio.sh ${case})
endforeach()
# boots the stock kernel in QEMU: ~90 s under TCG
lp_fio_test(vm-stock vm ${CMAKE_SOURCE_DIR}/tests/vm/fio.sh)
set_tests_properties(fio/vm-stock PROPERTIES TIMEOUT 600)
