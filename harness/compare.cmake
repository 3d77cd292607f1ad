# longpin-compare: joins the CSV files of several kernels (README.md,
# "Comparing runs"). Plain C and libm, no liburing.
add_executable(longpin-compare harness/compare.c harness/csvread.c)
target_include_directories(longpin-compare PRIVATE harness)
target_compile_options(longpin-compare PRIVATE -Wall -Wextra -Wshadow
  -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers)
if(LONGPIN_WERROR)
  target_compile_options(longpin-compare PRIVATE -Werror)
endif()
target_link_libraries(longpin-compare PRIVATE m)

# libFuzzer target for the CSV parser: clang only, -DLONGPIN_FUZZ=ON.
option(LONGPIN_FUZZ "Build the libFuzzer target fuzz-csvread (clang)" OFF)
if(LONGPIN_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  add_executable(fuzz-csvread fuzz/csvread_fuzz.c harness/csvread.c)
  target_include_directories(fuzz-csvread PRIVATE harness)
  target_compile_options(fuzz-csvread PRIVATE -g -O1
    -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz-csvread PRIVATE -fsanitize=fuzzer,address,undefined)
elseif(LONGPIN_FUZZ)
  message(WARNING "LONGPIN_FUZZ needs clang (CC=clang); fuzz-csvread not built")
endif()
