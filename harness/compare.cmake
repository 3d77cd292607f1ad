# longpin-compare: joins the CSV files of several kernels (README.md,
# "Comparing runs"). Plain C and libm, no liburing.
add_executable(longpin-compare harness/compare.c harness/compare_report.c
  harness/compare_plot.c harness/csvread.c)
target_include_directories(longpin-compare PRIVATE harness)
target_compile_options(longpin-compare PRIVATE -Wall -Wextra -Wshadow
  -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers)
if(LONGPIN_WERROR)
  target_compile_options(longpin-compare PRIVATE -Werror)
endif()
target_link_libraries(longpin-compare PRIVATE m)
