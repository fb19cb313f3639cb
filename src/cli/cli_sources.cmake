# Sources of the `fricl` tool (the benchmark harness is bench/'s fricl-bench).
# npy.c is also compiled into tests/cli/test_npy. npz.c (numpy .npz
# archives) reads and writes the ZIP container with libzip: the CLI links
# FRICL_CLI_LIBS; the library itself never does.
set(FRICL_CLI_SOURCES)
foreach(
  src
  main bench_exec cli_args cli_run
  cmd_devices devices_shares
  cmd_eval eval_args cmd_law
  atomic_file same_file npy npz npz_input npz_schema npz_output
  cmd_tangential tangential_args tangential_input tangential_device
  cmd_build build_args build_input
  cmd_barrier barrier_args barrier_input)
  list(APPEND FRICL_CLI_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${src}.c)
endforeach()
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
set(FRICL_CLI_LIBS PkgConfig::LIBZIP)
