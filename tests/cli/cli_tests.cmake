# Tests of the `fricl` tool (src/cli): test_npy unit-tests the NPY module,
# test_cli runs the built tool as a black box, one CTest case per scenario.
# Neither needs Python: NPY bytes are written and decoded by the tests.

add_executable(test_npy ${CMAKE_CURRENT_LIST_DIR}/test_npy.c
                        ${PROJECT_SOURCE_DIR}/src/cli/npy.c)
target_include_directories(test_npy PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)
target_compile_options(test_npy PRIVATE ${FRICL_C_FLAGS})
foreach(group read malformed write fuzz)
  add_test(NAME npy_${group} COMMAND test_npy ${group})
endforeach()

# The .npz (ZIP) layer over it; the numpy-written fixtures are in
# tests/data/npz (make_npz_fixtures.py).
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
add_executable(test_npz ${CMAKE_CURRENT_LIST_DIR}/test_npz.c
                        ${PROJECT_SOURCE_DIR}/src/cli/npz.c
                        ${PROJECT_SOURCE_DIR}/src/cli/npy.c)
target_include_directories(test_npz PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)
target_compile_options(test_npz PRIVATE ${FRICL_C_FLAGS})
target_link_libraries(test_npz PRIVATE PkgConfig::LIBZIP)
foreach(group read malformed write)
  add_test(NAME npz_${group}
           COMMAND test_npz ${group} ${PROJECT_SOURCE_DIR}/tests/data/npz)
endforeach()

add_executable(test_cli ${CMAKE_CURRENT_LIST_DIR}/test_cli.c)
target_compile_options(test_cli PRIVATE ${FRICL_C_FLAGS})
if(FRICL_LIBM)
  target_link_libraries(test_cli PRIVATE ${FRICL_LIBM})
endif()

set(FRICL_CLI_TEST_SCENARIOS
    roundtrip_one roundtrip_terms term_all f32 empty input_variants
    bad_magic truncated_header truncated_data trailing_data bad_dict
    wrong_dtype two_d big_endian absurd_shape missing_input
    missing_mu usage_errors help devices
    device_reference device_default device_not_found
    out_dir_missing existing_output file_size_limit signal_cleanup)
foreach(scenario ${FRICL_CLI_TEST_SCENARIOS})
  add_test(NAME cli_${scenario}
           COMMAND test_cli ${scenario} $<TARGET_FILE:fricl_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_tmp/${scenario})
endforeach()

# The same tool under valgrind (no leak, no invalid access) when available.
# Sanitizer builds are skipped: ASan and valgrind do not mix.
find_program(FRICL_VALGRIND valgrind)
if(FRICL_VALGRIND AND NOT FRICL_SANITIZE)
  add_test(NAME cli_valgrind
           COMMAND test_cli valgrind $<TARGET_FILE:fricl_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_tmp/valgrind
                   ${FRICL_VALGRIND})
endif()

# `fricl law` (friction laws): black-box scenarios, NPY files via npy.c.
add_executable(test_cli_law ${CMAKE_CURRENT_LIST_DIR}/test_cli_law.c
                            ${PROJECT_SOURCE_DIR}/src/cli/npy.c)
target_include_directories(test_cli_law PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)
target_compile_options(test_cli_law PRIVATE ${FRICL_C_FLAGS})
if(FRICL_LIBM)
  target_link_libraries(test_cli_law PRIVATE ${FRICL_LIBM})
endif()
foreach(scenario list lugre maxwell gms errors same_file)
  add_test(NAME cli_law_${scenario}
           COMMAND test_cli_law ${scenario} $<TARGET_FILE:fricl_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/cli_law_tmp_${scenario})
endforeach()

# `fricl build` and `fricl tangential --build` (test_cli_build.py): the
# spec's worked example end to end, bad inputs, degenerate contacts, mu.
# The inputs are written with numpy; SKIP (77) without python3 or numpy.
find_package(Python3 COMPONENTS Interpreter)
foreach(scenario example errors degenerate mu device)
  if(Python3_Interpreter_FOUND)
    add_test(NAME cli_build_${scenario}
             COMMAND ${Python3_EXECUTABLE}
                     ${CMAKE_CURRENT_LIST_DIR}/test_cli_build.py ${scenario}
                     $<TARGET_FILE:fricl_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_build_tmp/${scenario})
  else()
    add_test(NAME cli_build_${scenario}
             COMMAND sh -c "echo 'SKIPPED: no python3'; exit 77")
  endif()
  set_tests_properties(cli_build_${scenario} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
# Two PoCL devices, so that the device-list case runs too.
set_tests_properties(cli_build_device PROPERTIES ENVIRONMENT
                     "POCL_DEVICES=pthread pthread;FRICL_DEVICE=")

# `fricl tangential` and the .npz writer as numpy sees them
# (tangential_cli_test.py; each scenario SKIPs, exit 77, without numpy).
set(FRICL_TANGENTIAL_CLI_SCENARIOS
    example consistency variants f32 compress empty errors usage atomic
    npz_numpy adhesion)
if(FRICL_VALGRIND AND NOT FRICL_SANITIZE)
  list(APPEND FRICL_TANGENTIAL_CLI_SCENARIOS valgrind)
endif()
foreach(scenario ${FRICL_TANGENTIAL_CLI_SCENARIOS})
  if(Python3_Interpreter_FOUND)
    add_test(NAME cli_tangential_${scenario}
             COMMAND ${Python3_EXECUTABLE}
                     ${CMAKE_CURRENT_LIST_DIR}/tangential_cli_test.py
                     ${scenario} $<TARGET_FILE:fricl_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_tmp/tangential_${scenario}
                     $<TARGET_FILE:test_npz>)
  else()
    add_test(NAME cli_tangential_${scenario}
             COMMAND sh -c "echo 'SKIPPED: no python3; the fricl tangential \
CLI test did NOT run'; exit 77")
  endif()
  set_tests_properties(cli_tangential_${scenario} PROPERTIES
                       SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
if(TEST cli_tangential_valgrind)
  set_tests_properties(cli_tangential_valgrind PROPERTIES
                       ENVIRONMENT FRICL_VALGRIND=${FRICL_VALGRIND})
endif()

# `fricl barrier` (test_cli_barrier.py): an mpmath oracle of B and its
# gradient, global = summed local Hessians, f32; 3,000 EE contacts on
# opencl:0:0 against the host backend; bad inputs; --function adhesion
# against the adhesion's definition; usage.
foreach(scenario oracle device errors adhesion usage)
  if(Python3_Interpreter_FOUND)
    add_test(NAME cli_barrier_${scenario}
             COMMAND ${Python3_EXECUTABLE}
                     ${CMAKE_CURRENT_LIST_DIR}/test_cli_barrier.py ${scenario}
                     $<TARGET_FILE:fricl_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_barrier_tmp/${scenario})
  else()
    add_test(NAME cli_barrier_${scenario}
             COMMAND sh -c "echo 'SKIPPED: no python3'; exit 77")
  endif()
  set_tests_properties(cli_barrier_${scenario} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# Every command with an input and an output file refuses an output that is
# the input (same_file_test.py: path, spelling, symbolic and hard link).
foreach(cmd eval tangential build barrier)
  if(Python3_Interpreter_FOUND)
    add_test(NAME cli_same_file_${cmd}
             COMMAND ${Python3_EXECUTABLE}
                     ${CMAKE_CURRENT_LIST_DIR}/same_file_test.py ${cmd}
                     $<TARGET_FILE:fricl_cli>
                     ${CMAKE_CURRENT_BINARY_DIR}/cli_same_file_tmp/${cmd})
  else()
    add_test(NAME cli_same_file_${cmd}
             COMMAND sh -c "echo 'SKIPPED: no python3'; exit 77")
  endif()
  set_tests_properties(cli_same_file_${cmd} PROPERTIES SKIP_RETURN_CODE 77
                       TIMEOUT 300)
endforeach()
