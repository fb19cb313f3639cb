# Tests of the Python package (FRICL_PYTHON=ON; python/CMakeLists.txt
# builds it into ${PROJECT_BINARY_DIR}/python):
#   python_pytest        the pytest suite against the build tree's package,
#                        compared with the `fricl` CLI of the same build
#   python_ipctk_dropin  fricl.ipctk against ipctk itself (needs ipctk)
#   python_pip_install   `pip install .` into a fresh venv, import, tests
# Each skips (77, loudly) when numpy/scipy/pytest (or ipctk, venv,
# scikit-build-core) are missing; scripts/setup_and_run.sh installs them.
set(FRICL_PY_TESTS ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME python_pytest
         COMMAND ${FRICL_PYTHON_EXECUTABLE} ${FRICL_PY_TESTS}/run_pytest.py
                 ${PROJECT_BINARY_DIR}/python $<TARGET_FILE:fricl_cli>
                 --ignore=${FRICL_PY_TESTS}/test_ipctk_dropin.py)
add_test(NAME python_ipctk_dropin
         COMMAND ${FRICL_PYTHON_EXECUTABLE} ${FRICL_PY_TESTS}/run_pytest.py
                 ${PROJECT_BINARY_DIR}/python $<TARGET_FILE:fricl_cli>
                 --require ipctk ${FRICL_PY_TESTS}/test_ipctk_dropin.py)
add_test(NAME python_pip_install
         COMMAND sh ${FRICL_PY_TESTS}/pip_install_check.sh
                 ${FRICL_PYTHON_EXECUTABLE} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/pip_install
                 $<TARGET_FILE:fricl_cli>)
set_tests_properties(python_pytest python_ipctk_dropin python_pip_install
                     PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
