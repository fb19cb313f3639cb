# Sources of the `fricl` tool (the benchmark harness is bench/'s fricl-bench).
# npy.c is also compiled into tests/cli/test_npy.
set(FRICL_CLI_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/main.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_exec.c
    ${CMAKE_CURRENT_LIST_DIR}/cli_args.c
    ${CMAKE_CURRENT_LIST_DIR}/cmd_devices.c
    ${CMAKE_CURRENT_LIST_DIR}/devices_shares.c
    ${CMAKE_CURRENT_LIST_DIR}/cmd_eval.c
    ${CMAKE_CURRENT_LIST_DIR}/cmd_law.c
    ${CMAKE_CURRENT_LIST_DIR}/eval_args.c
    ${CMAKE_CURRENT_LIST_DIR}/atomic_file.c
    ${CMAKE_CURRENT_LIST_DIR}/same_file.c
    ${CMAKE_CURRENT_LIST_DIR}/npy.c)
# npz.c (numpy .npz archives, `fricl tangential`) reads and writes the ZIP
# container with libzip: the CLI links FRICL_CLI_LIBS; the library itself
# never does.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
list(APPEND FRICL_CLI_SOURCES ${CMAKE_CURRENT_LIST_DIR}/npz.c
     ${CMAKE_CURRENT_LIST_DIR}/npz_input.c
     ${CMAKE_CURRENT_LIST_DIR}/npz_schema.c
     ${CMAKE_CURRENT_LIST_DIR}/cmd_tangential.c
     ${CMAKE_CURRENT_LIST_DIR}/tangential_args.c
     ${CMAKE_CURRENT_LIST_DIR}/tangential_input.c
     ${CMAKE_CURRENT_LIST_DIR}/build_input.c
     ${CMAKE_CURRENT_LIST_DIR}/tangential_device.c
     ${CMAKE_CURRENT_LIST_DIR}/build_args.c
     ${CMAKE_CURRENT_LIST_DIR}/cmd_build.c
     ${CMAKE_CURRENT_LIST_DIR}/barrier_args.c
     ${CMAKE_CURRENT_LIST_DIR}/barrier_input.c
     ${CMAKE_CURRENT_LIST_DIR}/cmd_barrier.c)
set(FRICL_CLI_LIBS PkgConfig::LIBZIP)
