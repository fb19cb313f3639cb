# no_opencl_build: the library, the `fricl` tool (benchmark included) and
# the tests that need no OpenCL, configured with -DFRICL_WITH_OPENCL=OFF in
# a tree of their own, built, and a few of them run there. The OpenCL
# headers are shadowed by ones that stop the compile (#error), so that no
# source of that build can include them by accident even on a machine that
# has them. Included by tests/CMakeLists.txt (OpenCL builds only: an
# OFF build is its own check). Takes a few minutes (a second build of the
# library); labels no_opencl and build_check: the README's test command
# (`ctest -LE build_check`) leaves it out, .ci/run runs it.
if(FRICL_WITH_OPENCL)
  set(FRICL_NO_OPENCL_POISON ${CMAKE_CURRENT_BINARY_DIR}/no_opencl_poison)
  foreach(h CL/cl.h CL/opencl.h CL/cl_platform.h CL/cl_ext.h OpenCL/opencl.h)
    file(WRITE ${FRICL_NO_OPENCL_POISON}/${h}
         "#error \"${h} included in a FRICL_WITH_OPENCL=OFF build\"\n")
  endforeach()
  add_test(NAME no_opencl_build
           COMMAND ${CMAKE_COMMAND}
                   -DSRC=${PROJECT_SOURCE_DIR}
                   -DBIN=${CMAKE_CURRENT_BINARY_DIR}/no_opencl
                   -DPOISON=${FRICL_NO_OPENCL_POISON}
                   "-DGENERATOR=${CMAKE_GENERATOR}"
                   -DC_COMPILER=${CMAKE_C_COMPILER}
                   -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                   -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
                   -DSANITIZE=${FRICL_SANITIZE}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/no_opencl_check.cmake)
  set_tests_properties(no_opencl_build PROPERTIES LABELS "no_opencl;build_check"
                                                  TIMEOUT 1800)
endif()
