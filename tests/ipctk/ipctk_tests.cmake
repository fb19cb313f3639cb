# Cross-check of `fricl tangential --mu-profile ipctk` against the IPC
# Toolkit's Python package (ipctk_crosscheck.py). It SKIPs (exit 77, with a
# loud message) only when `import ipctk` fails or there is no python3.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME ipctk_crosscheck
           COMMAND ${Python3_EXECUTABLE}
                   ${CMAKE_CURRENT_LIST_DIR}/ipctk_crosscheck.py
                   $<TARGET_FILE:fricl_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/ipctk_tmp)
else()
  add_test(NAME ipctk_crosscheck
           COMMAND sh -c "echo 'SKIPPED: ipctk not installed (no python3 \
found); the fricl <-> IPC Toolkit cross-check did NOT run'; exit 77")
endif()
set_tests_properties(ipctk_crosscheck PROPERTIES SKIP_RETURN_CODE 77
                                                 TIMEOUT 900)

# `fricl barrier` against ipctk's BarrierPotential (barrier_crosscheck.py):
# every stencil, PSD mode, physical barrier on/off, dmin > 0, mollified
# edges. SKIPs (77) like the test above when ipctk is not importable.
if(Python3_Interpreter_FOUND)
  add_test(NAME ipctk_barrier_crosscheck
           COMMAND ${Python3_EXECUTABLE}
                   ${CMAKE_CURRENT_LIST_DIR}/barrier_crosscheck.py
                   $<TARGET_FILE:fricl_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/ipctk_barrier_tmp)
else()
  add_test(NAME ipctk_barrier_crosscheck
           COMMAND sh -c "echo 'SKIPPED: ipctk not installed (no python3 \
found); the fricl barrier <-> IPC Toolkit cross-check did NOT run'; exit 77")
endif()
set_tests_properties(ipctk_barrier_crosscheck PROPERTIES SKIP_RETURN_CODE 77
                                                         TIMEOUT 900)
