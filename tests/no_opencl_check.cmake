# no_opencl_build (see no_opencl.cmake): configure, build and test a
# FRICL_WITH_OPENCL=OFF tree.
#   cmake -DSRC=<source> -DBIN=<tree> -DPOISON=<dir> -DGENERATOR=<g>
#         -DC_COMPILER=<cc> -DCXX_COMPILER=<c++> -DBUILD_TYPE=<t>
#         -DSANITIZE=<ON|OFF> -P no_opencl_check.cmake
# Checked: everything listed below compiles with the OpenCL headers
# shadowed by #error stubs; libfricl.so does not depend on libOpenCL; the
# tests below pass; `fricl devices` lists the host backends and no OpenCL
# device; `fricl bench` runs (host-tier rows, a sweep without OpenCL
# columns).

# Tests that need no OpenCL device (their bodies run on the host backends):
# the executables to build and the CTest tests to run.
set(targets test_scalar_oracle test_identities test_tangential_fd
    test_tangential_assembly test_build test_laws ref_ld_check)
set(ctests test_scalar_oracle test_identities test_tangential_fd
    test_tangential_assembly test_build test_laws
    ref_ld_spec_values ref_ld_oracle bench_on_host bench_on_reference
    bench_sweep_smoke)
list(LENGTH ctests nctests)
string(REPLACE ";" "|" ctest_regex "^(${ctests})$")

function(run what)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${BIN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "no_opencl_build: ${what} failed (${rc}):\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(MAKE_DIRECTORY ${BIN})
set(type ${BUILD_TYPE})
if(NOT type)
  set(type Release)
endif()
run("configure" ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G "${GENERATOR}"
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=${type} -DFRICL_WITH_OPENCL=OFF
    -DFRICL_BUILD_TESTS=ON -DFRICL_SANITIZE=${SANITIZE}
    "-DCMAKE_C_FLAGS=-I${POISON}" "-DCMAKE_CXX_FLAGS=-I${POISON}")
run("build" ${CMAKE_COMMAND} --build ${BIN} -j 2 --target fricl fricl_static
    fricl_cli ${targets})

# The shared library must not need libOpenCL.
find_program(READELF readelf)
if(READELF)
  file(GLOB libs ${BIN}/libfricl.so*)
  list(GET libs 0 lib)
  run("readelf" ${READELF} -d ${lib})
  if(last_output MATCHES "libOpenCL")
    message(FATAL_ERROR "no_opencl_build: ${lib} needs libOpenCL")
  endif()
endif()

run("fricl devices" ${BIN}/src/cli/fricl devices)
if(NOT last_output MATCHES "\nhost +host" OR
   NOT last_output MATCHES "\nreference +host" OR
   last_output MATCHES "opencl:")
  message(FATAL_ERROR "no_opencl_build: fricl devices says:\n${last_output}")
endif()

run("ctest" ${CMAKE_CTEST_COMMAND} --output-on-failure -R "${ctest_regex}")
message(STATUS "no_opencl_build: ${last_output}")
string(REGEX MATCH "100% tests passed, 0 tests failed out of ([0-9]+)"
       summary "${last_output}")
if(NOT summary OR NOT CMAKE_MATCH_1 EQUAL nctests)
  message(FATAL_ERROR
          "no_opencl_build: expected ${nctests} tests to pass: ${summary}")
endif()
