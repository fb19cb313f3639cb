# Benchmark tests (included by tests/CMakeLists.txt).

# The independent long-double reference of the scalar family, for tests
# that need an oracle finer than double (the benchmark compiles the same
# source into fricl-bench itself; see bench/bench_sources.cmake).
add_library(fricl_ref_ld STATIC ${CMAKE_CURRENT_SOURCE_DIR}/ref/scalar_ref_ld.c)
target_include_directories(fricl_ref_ld PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/ref)
target_compile_options(fricl_ref_ld PRIVATE ${FRICL_C_FLAGS})
if(FRICL_LIBM)
  target_link_libraries(fricl_ref_ld PUBLIC ${FRICL_LIBM})
endif()

# The reference itself against the spec's tables (3.8, 3.6, 2.3) and
# against the exact oracle table: the benchmark's accuracy column is only
# as good as this reference.
add_executable(ref_ld_check ${CMAKE_CURRENT_SOURCE_DIR}/ref/ref_ld_check.c)
target_compile_options(ref_ld_check PRIVATE ${FRICL_C_FLAGS})
target_link_libraries(ref_ld_check PRIVATE fricl_ref_ld)
add_test(NAME ref_ld_spec_values COMMAND ref_ld_check)
add_test(NAME ref_ld_oracle
         COMMAND ref_ld_check --oracle ${FRICL_TEST_DATA}/scalar_oracle.txt)
set_tests_properties(ref_ld_spec_values ref_ld_oracle PROPERTIES
                     LABELS "bench;ref" TIMEOUT 60)

# `fricl bench --quick` on the default device: exits 0 and writes a JSON
# file with its rows.
add_test(NAME bench_smoke
         COMMAND ${CMAKE_COMMAND}
                 -DCLI=$<TARGET_FILE:fricl_cli>
                 -DJSON=${CMAKE_CURRENT_BINARY_DIR}/bench_smoke.json
                 -P ${PROJECT_SOURCE_DIR}/bench/bench_smoke_check.cmake)
set_tests_properties(bench_smoke PROPERTIES LABELS "bench" TIMEOUT 180)

# `fricl bench` refuses the laws suite without an OpenCL device and an
# unwritable --json path before it measures anything.
add_test(NAME bench_errors
         COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:fricl_cli>
                 -DDIR=${CMAKE_CURRENT_BINARY_DIR}/bench_errors
                 -P ${PROJECT_SOURCE_DIR}/bench/bench_errors_check.cmake)
set_tests_properties(bench_errors PROPERTIES LABELS "bench" TIMEOUT 120)

# The sweep (reference, host, auto and every OpenCL device at 10 and 100
# contacts, one repeat): what ran each call, the JSON, and the plot.
find_program(FRICL_BENCH_PYTHON NAMES python3 python)
add_test(NAME bench_sweep_smoke
         COMMAND ${CMAKE_COMMAND}
                 -DCLI=$<TARGET_FILE:fricl_cli>
                 -DJSON=${CMAKE_CURRENT_BINARY_DIR}/bench_sweep_smoke.json
                 -DPYTHON=${FRICL_BENCH_PYTHON}
                 -DPLOT=${PROJECT_SOURCE_DIR}/bench/plot_sweep.py
                 -P ${PROJECT_SOURCE_DIR}/bench/bench_sweep_check.cmake)
set_tests_properties(bench_sweep_smoke PROPERTIES LABELS "bench" TIMEOUT 300)

# The host backends, explicitly: every row is a host-tier row that ran on
# that backend, with its roofline the host copy over the context's threads
# (FRICL_THREADS=2 pins the host backend's count; reference has one).
foreach(spec reference host)
  set(threads 2)
  if(spec STREQUAL "reference")
    set(threads 1)
  endif()
  add_test(NAME bench_on_${spec}
           COMMAND ${CMAKE_COMMAND} -E env FRICL_THREADS=2 FRICL_DEVICE=
                   ${CMAKE_COMMAND}
                   -DCLI=$<TARGET_FILE:fricl_cli>
                   -DJSON=${CMAKE_CURRENT_BINARY_DIR}/bench_on_${spec}.json
                   -DDEVICE=${spec} -DEXPECT=${spec} -DTHREADS=${threads}
                   -P ${PROJECT_SOURCE_DIR}/bench/bench_backend_check.cmake)
  set_tests_properties(bench_on_${spec} PROPERTIES LABELS "bench" TIMEOUT 180)
endforeach()

# `fricl bench --suite barrier` on a small scene: every row runs.
add_test(NAME bench_barrier_smoke
         COMMAND fricl_cli bench --suite barrier --contacts 2000 --quick
                 --device host)
set_tests_properties(bench_barrier_smoke PROPERTIES LABELS "bench" TIMEOUT 180
                     PASS_REGULAR_EXPRESSION "pv 2d +f32")

# `fricl bench --suite headline` (the default of `setup_and_run.sh bench`),
# quick: its three rows print.
add_test(NAME bench_headline_smoke
         COMMAND fricl_cli bench --suite headline --quick)
set_tests_properties(bench_headline_smoke PROPERTIES LABELS "bench" TIMEOUT 180
  PASS_REGULAR_EXPRESSION
  "global H +16384 .*latency +10 .*barrier FV pot\\+grad\\+global H +16384")
