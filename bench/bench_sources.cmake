# Sources of the benchmark harness, compiled into the fricl_bench target
# (fricl-bench, bench/CMakeLists.txt; `fricl bench` runs it). The
# long-double reference of tests/ref is compiled in here rather than linked from the fricl_ref_ld library, which
# exists only when tests are built. The OpenCL side (copy kernel, device
# tiers; declared in bench_ocl.h) is compiled only when the library has
# its OpenCL backend.
set(FRICL_BENCH_SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/bench_main.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_timer.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_json.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_roof.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_data.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_scalar.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_scene.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_contacts.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_laws.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_build.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_sweep.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_accuracy.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_report.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_lattice.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_multi.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_barrier.c
    ${CMAKE_CURRENT_LIST_DIR}/bench_headline.c
    ${CMAKE_CURRENT_LIST_DIR}/../tests/ref/scalar_ref_ld.c)
if(FRICL_WITH_OPENCL)
  list(APPEND FRICL_BENCH_SOURCES
       ${CMAKE_CURRENT_LIST_DIR}/bench_ocl.c
       ${CMAKE_CURRENT_LIST_DIR}/bench_scalar_cl.c
       ${CMAKE_CURRENT_LIST_DIR}/bench_build_cl.c
       ${CMAKE_CURRENT_LIST_DIR}/bench_laws_cl.c
       ${CMAKE_CURRENT_LIST_DIR}/bench_resident.c)
endif()
