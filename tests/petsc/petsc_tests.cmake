# Tests of fricl_petsc and fricl-mpi (src/petsc), registered only when that
# library is built (MPI and PETSc found). Each MPI test runs under mpiexec
# with 1, 2 and 4 ranks (--oversubscribe: this machine has 2 cores; as root
# with OMPI_ALLOW_RUN_AS_ROOT), with a timeout: a test that hangs fails.
if(NOT TARGET fricl_petsc)
  message(STATUS "fricl_petsc tests: not registered (no MPI or PETSc)")
  return()
endif()

set(FRICL_MPIEXEC ${MPIEXEC_EXECUTABLE} ${MPIEXEC_PREFLAGS})
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                OUTPUT_VARIABLE FRICL_MPIEXEC_VERSION ERROR_QUIET)
if(FRICL_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
  list(APPEND FRICL_MPIEXEC --oversubscribe)
  set(FRICL_MPI_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_rmaps_base_oversubscribe=1)
endif()
if(FRICL_SANITIZE)
  # Open MPI's own allocations from MPI_Init (see the file). Full unwinding:
  # Open MPI's plug-ins have no frame pointers, and a short stack would not
  # show which module allocated.
  list(APPEND FRICL_MPI_ENV
       ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
       LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan_mpi.supp)
endif()
set(FRICL_MPI_RANKS 1 2 4)

# The GPU-per-rank rule, without MPI (made-up device lists).
add_executable(test_petsc_device ${CMAKE_CURRENT_LIST_DIR}/test_petsc_device.c
               ${PROJECT_SOURCE_DIR}/src/petsc/petsc_device.c)
target_include_directories(test_petsc_device PRIVATE
                           ${PROJECT_SOURCE_DIR}/src/petsc)
target_compile_options(test_petsc_device PRIVATE ${FRICL_C_FLAGS})
target_link_libraries(test_petsc_device PRIVATE fricl)
add_test(NAME petsc_device COMMAND test_petsc_device)

add_executable(test_petsc_api ${CMAKE_CURRENT_LIST_DIR}/test_petsc_api.c)
target_compile_options(test_petsc_api PRIVATE ${FRICL_C_FLAGS})
target_link_libraries(test_petsc_api PRIVATE fricl_petsc)
if(FRICL_LIBM)
  target_link_libraries(test_petsc_api PRIVATE ${FRICL_LIBM})
endif()
foreach(scenario assemble dim2 errors nulls)
  foreach(np ${FRICL_MPI_RANKS})
    add_test(NAME petsc_api_${scenario}_np${np}
             COMMAND ${FRICL_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np}
                     $<TARGET_FILE:test_petsc_api> ${scenario})
    set_tests_properties(petsc_api_${scenario}_np${np} PROPERTIES
      TIMEOUT 120 ENVIRONMENT "${FRICL_MPI_ENV};FRICL_DEVICE=reference")
  endforeach()
endforeach()

# fricl-mpi against the serial `fricl tangential` (mpi_cli_test.py, numpy;
# SKIP 77 without it). FRICL_DEVICE=reference keeps 4 ranks on 2 cores
# quick; the `device` scenario runs the default device (auto).
foreach(scenario crossing newton empty errors device ranks same_file)
  foreach(np ${FRICL_MPI_RANKS})
    set(name mpi_cli_${scenario}_np${np})
    if(Python3_Interpreter_FOUND)
      add_test(NAME ${name}
               COMMAND ${Python3_EXECUTABLE}
                       ${CMAKE_CURRENT_LIST_DIR}/mpi_cli_test.py ${scenario}
                       ${np} $<TARGET_FILE:fricl_cli> $<TARGET_FILE:fricl_mpi>
                       ${CMAKE_CURRENT_BINARY_DIR}/mpi_cli_tmp/${scenario}_${np}
                       ${FRICL_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG})
    else()
      add_test(NAME ${name} COMMAND sh -c
               "echo 'SKIPPED: no python3; fricl-mpi tests did NOT run'; exit 77")
    endif()
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
      ENVIRONMENT "${FRICL_MPI_ENV};FRICL_DEVICE=reference")
  endforeach()
endforeach()

# fricl-mpi bench, small: runs on 1, 2 and 4 ranks; it exits 1 if PETSc
# reports a malloc during assembly (exact preallocation on its sheet scene).
foreach(np ${FRICL_MPI_RANKS})
  add_test(NAME mpi_bench_smoke_np${np}
           COMMAND ${FRICL_MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} ${np}
                   $<TARGET_FILE:fricl_mpi> bench --contacts 20000
                   --repeats 2 --preallocator yes)
  set_tests_properties(mpi_bench_smoke_np${np} PROPERTIES TIMEOUT 300
    ENVIRONMENT "${FRICL_MPI_ENV};FRICL_DEVICE=reference")
endforeach()

# Install, then build a fricl_petsc program with find_package(fricl
# COMPONENTS petsc) and with pkg-config (one rank, run directly). Not in
# sanitizer builds: the downstream program is not instrumented.
if(FRICL_SANITIZE)
  return()
endif()
add_test(NAME install_consumer_petsc
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/install_consumer_petsc.sh
                 ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/install_consumer_petsc)
# A build check (label build_check: .ci/run runs it, the README's test
# command does not).
set_tests_properties(install_consumer_petsc PROPERTIES TIMEOUT 300
                     LABELS build_check ENVIRONMENT "${FRICL_MPI_ENV}")
