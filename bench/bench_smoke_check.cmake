# bench_smoke: run `fricl bench --quick --json JSON` on the default device
# (every suite but the sweep, which bench_sweep_smoke covers) and check that
# it exits 0 and that JSON holds the run's rows, each naming its tier and
# the backend that ran it.
#   cmake -DCLI=<fricl> -DJSON=<file> -P bench_smoke_check.cmake
file(REMOVE ${JSON})
execute_process(COMMAND ${CLI} bench --quick --suite scalar,contacts,build,laws
                        --json ${JSON}
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
# `all_per_element` per profile, per precision the device supports (and
# as many device-tier rows with an OpenCL device).
string(REGEX MATCHALL "\"group\": \"" rows "${json}")
list(LENGTH rows nrows)
foreach(needle "\"rows\": \\[" "\"group\": \"all\"" "\"group\": \"all_per_element\""
        "\"group\": \"smooth_mu_f2_x_minus_mu_f1_over_x3\"" "\"max_err_ulp\": [0-9]"
        "\"tier\": \"host\"" "\"contacts\": \\[" "\"build\": \\[" "\"laws\": \\[")
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
  # Every row of every suite names a known backend; device-tier rows ran
  # on OpenCL; every row has its copy roofline and C reference times.
  foreach(section rows contacts build laws)
    string(JSON len LENGTH "${json}" ${section})
    if(len EQUAL 0)
      message(FATAL_ERROR "${JSON}: no ${section} rows")
    endif()
    math(EXPR last "${len} - 1")
    foreach(i RANGE ${last})
      string(JSON backend GET "${json}" ${section} ${i} backend)
      if(NOT backend MATCHES "^(reference|host|opencl)$")
        message(FATAL_ERROR "${JSON}: ${section}[${i}] backend '${backend}'")
      endif()
      string(JSON tier ERROR_VARIABLE no_tier GET "${json}" ${section} ${i}
             tier)
      if(tier STREQUAL "device" AND NOT backend STREQUAL "opencl")
        message(FATAL_ERROR "${JSON}: ${section}[${i}] device tier on ${backend}")
      endif()
      foreach(key time_s copy_s ref_s)
        string(JSON t GET "${json}" ${section} ${i} ${key} median)
        if(NOT t GREATER 0)
          message(FATAL_ERROR "${JSON}: ${section}[${i}].${key} = ${t}")
        endif()
      endforeach()
    endforeach()
  endforeach()
endif()
message(STATUS "bench_smoke: ${nrows} scalar rows in ${JSON}")
