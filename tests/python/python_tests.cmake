# Tests of the Python package (FRICL_PYTHON=ON; python/CMakeLists.txt
# builds it into ${PROJECT_BINARY_DIR}/python):
#   python_pytest_<file> the pytest suite against the build tree's package,
#                        compared with the `fricl` CLI of the same build: one
#                        CTest test per tests/python/test_<file>.py (label
#                        python_pytest, `ctest -L python_pytest` runs them
#                        all), so that `ctest -j` spreads the suite over the
#                        cores instead of running it as one long process
#                        (python_pytest_ipctk_force: the friction force
#                        and its Jacobians against ipctk 1.6.1 and mpmath)
#   python_ipctk_dropin  fricl.ipctk against ipctk itself (needs ipctk)
#   python_example_cloth_on_box
#                        examples/python/cloth_on_box.py at a small size on
#                        both backends (ipctk and fricl.ipctk): completes,
#                        same trajectories, prints the table (needs ipctk)
#   python_pip_install   `pip install .` into a fresh venv, import, tests
#                        (label build_check: .ci/run runs it, the README's
#                        test command does not)
# Each skips (77, loudly) when numpy/scipy/pytest (or ipctk, venv,
# scikit-build-core) are missing; scripts/setup_and_run.sh installs them.
set(FRICL_PY_TESTS ${CMAKE_CURRENT_LIST_DIR})
file(GLOB FRICL_PY_TEST_FILES CONFIGURE_DEPENDS ${FRICL_PY_TESTS}/test_*.py)
set(FRICL_PY_SPLIT_TESTS)
foreach(file ${FRICL_PY_TEST_FILES})
  get_filename_component(stem ${file} NAME_WE)
  if(stem STREQUAL "test_ipctk_dropin" OR
     stem STREQUAL "test_example_cloth_on_box")
    continue() # python_ipctk_dropin, python_example_cloth_on_box below
  endif()
  string(REGEX REPLACE "^test_" "python_pytest_" name ${stem})
  set(require)
  if(stem MATCHES "ipctk")
    set(require --require ipctk) # skipped loudly without ipctk
  endif()
  add_test(NAME ${name}
           COMMAND ${FRICL_PYTHON_EXECUTABLE} ${FRICL_PY_TESTS}/run_pytest.py
                   ${PROJECT_BINARY_DIR}/python $<TARGET_FILE:fricl_cli>
                   ${require} ${file})
  list(APPEND FRICL_PY_SPLIT_TESTS ${name})
endforeach()
set_tests_properties(${FRICL_PY_SPLIT_TESTS} PROPERTIES LABELS python_pytest)
add_test(NAME python_ipctk_dropin
         COMMAND ${FRICL_PYTHON_EXECUTABLE} ${FRICL_PY_TESTS}/run_pytest.py
                 ${PROJECT_BINARY_DIR}/python $<TARGET_FILE:fricl_cli>
                 --require ipctk ${FRICL_PY_TESTS}/test_ipctk_dropin.py)
add_test(NAME python_example_cloth_on_box
         COMMAND ${FRICL_PYTHON_EXECUTABLE} ${FRICL_PY_TESTS}/run_pytest.py
                 ${PROJECT_BINARY_DIR}/python $<TARGET_FILE:fricl_cli>
                 --require ipctk
                 ${FRICL_PY_TESTS}/test_example_cloth_on_box.py)
set_tests_properties(python_example_cloth_on_box PROPERTIES
                     LABELS python_pytest SKIP_RETURN_CODE 77 TIMEOUT 300)
add_test(NAME python_pip_install
         COMMAND sh ${FRICL_PY_TESTS}/pip_install_check.sh
                 ${FRICL_PYTHON_EXECUTABLE} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/pip_install
                 $<TARGET_FILE:fricl_cli>)
set_tests_properties(python_pip_install PROPERTIES LABELS build_check)
set_tests_properties(${FRICL_PY_SPLIT_TESTS} python_ipctk_dropin
                     python_pip_install
                     PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
