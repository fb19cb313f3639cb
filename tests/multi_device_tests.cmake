# Tests of contexts over several devices and of the device-resident path
# (included by tests/CMakeLists.txt). PoCL exposes two CPU devices with
# POCL_DEVICES="pthread pthread"; the multi-device tests fail without two
# devices of one kind, so that a missing device is never a silent pass.
set(FRICL_TWO_POCL "POCL_DEVICES=pthread pthread;FRICL_DEVICE=")

fricl_core_test(test_multi_device)
set_tests_properties(test_multi_device PROPERTIES ENVIRONMENT
                     "${FRICL_TWO_POCL}")

# The lagged build on cl_mem buffers and the device-resident Newton step.
fricl_core_test(test_build_cl)
set_tests_properties(test_build_cl PROPERTIES ENVIRONMENT "${FRICL_TWO_POCL}")
