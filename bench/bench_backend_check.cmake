# bench_on_<backend>: `fricl bench --device DEVICE` on a host backend: every
# row of the laws and build suites must exist (no OpenCL needed), have run
# on EXPECT (what fricl_context_last_backend said), carry no device-tier
# row (the context has no OpenCL device) and be measured against the host
# copy over the context's own threads (THREADS of them).
#   cmake -DCLI=<fricl> -DJSON=<file> -DDEVICE=<spec> -DEXPECT=<backend>
#         -DTHREADS=<n> -P bench_backend_check.cmake
cmake_minimum_required(VERSION 3.19) # string(JSON)
file(REMOVE ${JSON})
execute_process(COMMAND ${CLI} bench --device ${DEVICE} --suite laws,build
                        --quick --precision f64 --repeats 1 --json ${JSON}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fricl bench --device ${DEVICE} exited with ${rc}:\n${err}")
endif()
if(NOT err MATCHES "has no OpenCL device: host-tier rows only")
  message(FATAL_ERROR "no reason given for the missing device tier:\n${err}")
endif()
file(READ ${JSON} json)
foreach(section laws build)
  string(JSON len LENGTH "${json}" ${section})
  if(len EQUAL 0)
    message(FATAL_ERROR "${JSON}: no ${section} rows on ${DEVICE}")
  endif()
  math(EXPR last "${len} - 1")
  foreach(i RANGE ${last})
    string(JSON row GET "${json}" ${section} ${i})
    string(JSON backend GET "${row}" backend)
    string(JSON tier GET "${row}" tier)
    string(JSON threads GET "${row}" threads)
    string(JSON pct GET "${row}" pct_copy)
    if(NOT backend STREQUAL EXPECT OR NOT tier STREQUAL "host" OR
       NOT threads EQUAL THREADS OR NOT pct GREATER 0)
      message(FATAL_ERROR "${JSON}: ${section}[${i}] on ${DEVICE}: ${row}")
    endif()
  endforeach()
endforeach()
message(STATUS "bench on ${DEVICE}: every row ran on ${EXPECT} (${THREADS} threads)")
