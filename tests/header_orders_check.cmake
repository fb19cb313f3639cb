# header_orders: every ordered pair of public headers compiles, a after b
# and b after a, so that no header depends on the order of inclusion (each
# has its guard first and includes what it uses).
#   cmake -DCC=<compiler;flags...> -DHEADERS=<h1;h2;...> -DDIR=<work dir>
#         -P header_orders_check.cmake
file(MAKE_DIRECTORY ${DIR})
set(errors "")
set(count 0)
foreach(a ${HEADERS})
  foreach(b ${HEADERS})
    if(NOT a STREQUAL b)
      math(EXPR count "${count} + 1")
      set(tu ${DIR}/pair_${count}.c)
      file(WRITE ${tu} "#include <fricl/${a}>\n#include <fricl/${b}>\n"
                       "int main(void) { return 0; }\n")
      execute_process(COMMAND ${CC} ${tu} RESULT_VARIABLE rc
                      ERROR_VARIABLE err OUTPUT_VARIABLE out)
      if(NOT rc EQUAL 0)
        string(APPEND errors "${a} then ${b}:\n${err}${out}\n")
      endif()
    endif()
  endforeach()
endforeach()
if(errors)
  message(FATAL_ERROR "${errors}")
endif()
message(STATUS "header_orders: ${count} ordered pairs compile")
