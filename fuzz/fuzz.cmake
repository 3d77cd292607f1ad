# libFuzzer targets (clang only, -DLONGPIN_FUZZ=ON): the option parser of
# longpin, the CSV reader of longpin-compare and the whole of
# longpin-compare (read, join, report). tests/host/fuzz.sh builds them
# in build-fuzz/ and runs each for a bounded time on fuzz/corpus/.
option(LONGPIN_FUZZ "Build the libFuzzer targets (clang)" OFF)
if(LONGPIN_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(LP_FUZZ_FLAGS -g -O1 -fsanitize=fuzzer,address,undefined)
  add_executable(fuzz-csvread fuzz/csvread_fuzz.c compare/csvread.c)
  # the harness's objects (CMakeLists.txt: longpin-objs), built for the
  # fuzzer too; longpin links them with the sanitizers
  target_compile_options(longpin-objs PRIVATE -g -O1 -fsanitize=fuzzer-no-link,address,undefined)
  target_link_options(longpin PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
  add_executable(fuzz-opts fuzz/opts_fuzz.c)
  target_link_libraries(fuzz-opts PRIVATE longpin-objs)
  # the whole of longpin-compare, its main renamed
  add_executable(fuzz-compare fuzz/compare_fuzz.c compare/compare.c
    compare/compare_cell.c compare/compare_report.c compare/compare_pinner.c
    compare/compare_plot.c compare/compare_grid.c compare/csvread.c)
  target_compile_definitions(fuzz-compare PRIVATE main=compare_main)
  target_include_directories(fuzz-csvread PRIVATE compare)
  target_include_directories(fuzz-compare PRIVATE compare harness/pinners)
  foreach(t fuzz-csvread fuzz-opts fuzz-compare)
    target_compile_options(${t} PRIVATE ${LP_FUZZ_FLAGS})
    target_link_options(${t} PRIVATE ${LP_FUZZ_FLAGS})
  endforeach()
elseif(LONGPIN_FUZZ)
  message(WARNING "LONGPIN_FUZZ needs clang (CC=clang); no fuzz targets")
endif()
