# Tests of contexts over several devices and of the device-resident path
# (included by tests/CMakeLists.txt). PoCL exposes two CPU devices with
# POCL_DEVICES="pthread pthread"; the multi-device tests fail without two
# devices of one kind, so that a missing device is never a silent pass.
# The tests that name a second device carry the label pocl_pair: a run on a
# vendor with one CPU device (the Intel pass of scripts/setup_and_run.sh)
# leaves them out with -LE pocl_pair instead of failing on a missing device.
set(FRICL_TWO_POCL "POCL_DEVICES=pthread pthread;FRICL_DEVICE=")

fricl_core_test(test_multi_device)
set_tests_properties(test_multi_device PROPERTIES ENVIRONMENT
                     "${FRICL_TWO_POCL}" LABELS pocl_pair)

# The barrier: auto routes it through the dispatcher; two devices give
# one device's result bitwise.
fricl_core_test(test_barrier_multi)
set_tests_properties(test_barrier_multi PROPERTIES ENVIRONMENT
                     "${FRICL_TWO_POCL}" LABELS pocl_pair SKIP_RETURN_CODE 77)

# The lagged build on cl_mem buffers and the device-resident Newton step.
fricl_core_test(test_build_cl)
set_tests_properties(test_build_cl PROPERTIES ENVIRONMENT "${FRICL_TWO_POCL}")

# `fricl devices --device LIST`: per-device rates, the list's, the shares;
# a bad entry is named.
add_test(NAME cli_devices_list
         COMMAND fricl_cli devices --device opencl:0:0,opencl:0:1)
set_tests_properties(cli_devices_list PROPERTIES LABELS pocl_pair ENVIRONMENT
  "${FRICL_TWO_POCL}" PASS_REGULAR_EXPRESSION
  "opencl:0:1 +alone.*the list .*x the first device.*opencl:0:1 +[0-9]+%")
add_test(NAME cli_devices_bad_list
         COMMAND fricl_cli devices --device opencl:0:0,opencl:0:77)
set_tests_properties(cli_devices_bad_list PROPERTIES ENVIRONMENT
  "${FRICL_TWO_POCL}" PASS_REGULAR_EXPRESSION
  "entry 2: device \"opencl:0:77\"")

# The benchmark rows of this work, quick: the device-resident iteration
# (bytes and time of both paths) and the device-list rows (every feature
# bitwise equal to the first device).
add_test(NAME bench_resident_smoke
         COMMAND fricl_cli bench --suite resident --device opencl:0:0 --quick)
set_tests_properties(bench_resident_smoke PROPERTIES LABELS bench
  ENVIRONMENT "${FRICL_TWO_POCL}" PASS_REGULAR_EXPRESSION
  "state on the device\\): <= 5% of the host tier's bytes")
add_test(NAME bench_multi_smoke
         COMMAND fricl_cli bench --device opencl:0:0,opencl:0:1 --quick)
set_tests_properties(bench_multi_smoke PROPERTIES LABELS "bench;pocl_pair"
  ENVIRONMENT "${FRICL_TWO_POCL}" FAIL_REGULAR_EXPRESSION
  "bitwise equal to the first device: NO" PASS_REGULAR_EXPRESSION
  "friction laws.*bitwise equal to the first device: yes")
