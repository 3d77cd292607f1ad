# ctest tests of longpin-compare (tests/compare.sh CASE), on the hand-made
# CSVs of tests/data/compare/; "real" compares two fresh longpin runs.
# This file is included before harness/compare.cmake defines the target;
# $<TARGET_FILE:...> is resolved at generation time, so that is fine.
foreach(case join missing-row schema-mismatch malformed no-header noise
    report mixed defect failures two-kernels cycles-mix fs-split baseline usage accel
    real)
  add_test(NAME compare/${case}
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/host/compare.sh ${case})
  set_tests_properties(compare/${case} PROPERTIES
    SKIP_RETURN_CODE 77
    ENVIRONMENT "LONGPIN_COMPARE=$<TARGET_FILE:longpin-compare>;LONGPIN=$<TARGET_FILE:longpin>;LONGPIN_FILE_DIR=${CMAKE_BINARY_DIR}"
    LABELS host)
endforeach()
