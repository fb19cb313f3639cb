# Benchmark tests (included by tests/CMakeLists.txt).

# The independent long-double reference of the scalar family, for tests
# that need an oracle finer than double (the benchmark compiles the same
# source into fricl_cli itself; see bench/bench_sources.cmake).
add_library(fricl_ref_ld STATIC ${CMAKE_CURRENT_SOURCE_DIR}/ref/scalar_ref_ld.c)
target_include_directories(fricl_ref_ld PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/ref)
target_compile_options(fricl_ref_ld PRIVATE ${FRICL_C_FLAGS})
# libm by name, as the library itself links it (long-double functions).
target_link_libraries(fricl_ref_ld PUBLIC m)

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
