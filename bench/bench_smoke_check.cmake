# bench_smoke: run `fricl bench --quick --json JSON` and check that it exits
# 0 and that JSON holds the run's rows.
#   cmake -DCLI=<fricl> -DJSON=<file> -P bench_smoke_check.cmake
file(REMOVE ${JSON})
execute_process(COMMAND ${CLI} bench --quick --json ${JSON}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fricl bench --quick exited with ${rc}:\n${err}")
endif()
if(NOT EXISTS ${JSON})
  message(FATAL_ERROR "fricl bench --quick did not write ${JSON}")
endif()
file(READ ${JSON} json)
# Every group must be there: 5 mollifier rows, 7 mu rows and `all`,
# `all_per_element` per profile, per precision the device supports.
string(REGEX MATCHALL "\"group\": \"" rows "${json}")
list(LENGTH rows nrows)
foreach(needle "\"rows\": \\[" "\"group\": \"all\"" "\"group\": \"all_per_element\""
        "\"group\": \"smooth_mu_f2_x_minus_mu_f1_over_x3\"" "\"max_err_ulp\": [0-9]")
  if(NOT json MATCHES "${needle}")
    message(FATAL_ERROR "${JSON} lacks ${needle}")
  endif()
endforeach()
if(nrows LESS 23)
  message(FATAL_ERROR "${JSON} has ${nrows} rows, expected >= 23")
endif()
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
  string(JSON n LENGTH "${json}" rows)
  if(NOT n EQUAL nrows)
    message(FATAL_ERROR "${JSON}: JSON parser sees ${n} rows, text ${nrows}")
  endif()
endif()
message(STATUS "bench_smoke: ${nrows} rows in ${JSON}")
