/*
 * device_pair.h - for the multi-device tests: two OpenCL devices of one
 * platform with the same name (POCL_DEVICES="pthread pthread" gives two),
 * as the device specs of one of them (spec_one) and of both (spec_two).
 * Include after test_util.h.
 */
#ifndef FRICL_TEST_DEVICE_PAIR_H
#define FRICL_TEST_DEVICE_PAIR_H

#include <stdio.h>
#include <string.h>

#include "fricl/fricl.h"

static char spec_one[32], spec_two[80];

/* The first two devices of one platform with the same name. */
static int find_pair(void) {
  fricl_device_info inf[16];
  size_t n = 0;
  fricl_devices_list(inf, 16, &n);
  if (n > 16)
    n = 16;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (inf[i].platform_index == inf[j].platform_index &&
          strcmp(inf[i].device_name, inf[j].device_name) == 0) {
        snprintf(spec_one, sizeof spec_one, "opencl:%d:%d",
                 inf[i].platform_index, inf[i].device_index);
        snprintf(spec_two, sizeof spec_two, "opencl:%d:%d,opencl:%d:%d",
                 inf[i].platform_index, inf[i].device_index,
                 inf[j].platform_index, inf[j].device_index);
        return 1;
      }
  return 0;
}

#endif
