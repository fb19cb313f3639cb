# Sources of `fricl bench`, compiled into the fricl_cli target (see
# src/cli/CMakeLists.txt). The long-double reference of tests/ref is
# compiled in here rather than linked from the fricl_ref_ld library, which
# exists only when tests are built.
set(FRICL_BENCH_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/bench_main.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_timer.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_data.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_scalar.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_contacts.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_laws.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_build.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_accuracy.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_report.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_lattice.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_resident.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_multi.c
    ${CMAKE_CURRENT_LIST_DIR}/../tests/ref/scalar_ref_ld.c)
