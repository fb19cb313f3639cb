# bench_errors: `fricl bench` never answers with nothing.
#   cmake -DCLI=<fricl> -DDIR=<scratch dir> -P bench_errors_check.cmake
# 1. The laws suite alone on the reference backend (once a header and an
#    empty table, exit status 0): rows, host tier, one per law.
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
execute_process(COMMAND ${CMAKE_COMMAND} -E env FRICL_DEVICE=reference
                        ${CLI} bench --suite laws --quick --repeats 1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
foreach(law coulomb stribeck maxwell lugre_rk4 lugre_exp gms4_rk4)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\n${law} +f64 +host +reference")
    message(FATAL_ERROR "laws suite on the reference backend: exit ${rc}, "
                        "no ${law} row\nstdout: ${out}\nstderr: ${err}")
  endif()
endforeach()
message(STATUS "laws suite on the reference backend: host-tier rows")
expect_failure("--json in a missing directory" "--json .*missing"
               ${CLI} bench --quick --suite scalar --json ${DIR}/missing/x.json)
expect_failure("--group laws --json in a missing directory"
               "--json .*missing"
               ${CLI} bench --group laws --quick --json ${DIR}/missing/x.json)
if(EXISTS ${DIR}/missing)
  message(FATAL_ERROR "${DIR}/missing was created")
endif()
