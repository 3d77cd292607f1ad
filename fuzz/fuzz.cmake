# libFuzzer targets (clang only, -DLONGPIN_FUZZ=ON): the option parser of
# longpin. tests/host/fuzz.sh builds them in build-fuzz/ and runs each for
# a bounded time on fuzz/corpus/.
option(LONGPIN_FUZZ "Build the libFuzzer targets (clang)" OFF)
if(LONGPIN_FUZZ AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(LP_FUZZ_FLAGS -g -O1 -fsanitize=fuzzer,address,undefined)
  # the harness's objects (CMakeLists.txt: longpin-objs), built for the
  # fuzzer too; longpin links them with the sanitizers
  target_compile_options(longpin-objs PRIVATE -g -O1 -fsanitize=fuzzer-no-link,address,undefined)
  target_link_options(longpin PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
  add_executable(fuzz-opts fuzz/opts_fuzz.c)
  target_link_libraries(fuzz-opts PRIVATE longpin-objs)
  target_compile_options(fuzz-opts PRIVATE ${LP_FUZZ_FLAGS})
  target_link_options(fuzz-opts PRIVATE ${LP_FUZZ_FLAGS})
elseif(LONGPIN_FUZZ)
  message(WARNING "LONGPIN_FUZZ needs clang (CC=clang); no fuzz targets")
endif()
