# bench_errors: `fricl bench` refuses what it cannot do, before running.
#   cmake -DCLI=<fricl> -DDIR=<scratch dir> -P bench_errors_check.cmake
# 1. The laws suite alone on the reference backend: no rows to measure
#    (they compare kernels with the C reference), so an error that says
#    why, not a header and an empty table with exit status 0.
# 2. --json naming a file in a missing directory: exit status 1 before any
#    row is measured (nothing on stdout), for the main driver and for the
#    `--group laws` one; no file is created.
function(expect_failure what needle)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${what}: exit status 0\nstdout: ${out}\nstderr: ${err}")
  endif()
  if(NOT err MATCHES "${needle}")
    message(FATAL_ERROR "${what}: stderr does not say '${needle}': ${err}")
  endif()
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "${what}: it ran before failing; stdout: ${out}")
  endif()
  message(STATUS "${what}: refused (${rc}): ${err}")
endfunction()

file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR})
expect_failure("laws suite on the reference backend"
               "laws suite needs an OpenCL device"
               ${CMAKE_COMMAND} -E env FRICL_DEVICE=reference
               ${CLI} bench --suite laws --quick)
expect_failure("--json in a missing directory" "--json .*missing"
               ${CLI} bench --quick --suite scalar --json ${DIR}/missing/x.json)
expect_failure("--group laws --json in a missing directory"
               "--json .*missing"
               ${CLI} bench --group laws --quick --json ${DIR}/missing/x.json)
if(EXISTS ${DIR}/missing)
  message(FATAL_ERROR "${DIR}/missing was created")
endif()
