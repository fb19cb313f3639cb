/*
 * child.c - the OpenCL backend as one device of a list (core/backend.h's
 * child table): what the device is and has done, and the per-device parts
 * of the calls that a combinator over several devices (src/multi) splits.
 */
#include <stdio.h>
#include <string.h>

#include "opencl/opencl.h"

static void ocl_info(const fricl__backend *be, fricl__child_info *out) {
  const fricl__ocl *o = (const fricl__ocl *)be;
  memset(out, 0, sizeof *out);
  out->name = o->name;
  out->platform_index = o->platform_index;
  out->device_index = o->device_index;
  snprintf(out->label, sizeof out->label, "opencl:%d:%d", o->platform_index,
           o->device_index);
  /* Compute units x clock: a crude guess that treats equal devices
   * equally, until calls are measured. */
  cl_uint cu = 0, mhz = 0;
  clGetDeviceInfo(o->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
  clGetDeviceInfo(o->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz,
                  NULL);
  out->estimate = (double)(cu ? cu : 1) * (double)(mhz ? mhz : 1000);
  cl_device_type type = 0;
  clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  out->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  out->is_gpu = o->is_gpu;
  for (const fricl__program_entry *e = o->programs; e; e = e->next)
    ++out->programs;
  out->moved_in = o->moved_in;
  out->moved_out = o->moved_out;
}

static fricl_status ocl_barrier_open(fricl__backend *be,
                                     const fricl_barrier_batch *b,
                                     void **state) {
  return fricl__ocl_barrier_open((fricl__ocl *)be, b, state);
}

const fricl__child_ops fricl__ocl_child_ops = {
    .info = ocl_info,
    .laws_range = fricl__ocl_laws_range,
    .barrier_open = ocl_barrier_open,
    .barrier_records = fricl__ocl_barrier_records,
    .barrier_close = fricl__ocl_barrier_close,
    .tan_chunk = fricl__ocl_tan_chunk,
    .tan_open = fricl__ocl_tan_open,
    .tan_part = fricl__ocl_tan_part,
    .tan_gather = fricl__ocl_tan_gather,
    .tan_close = fricl__ocl_tan_close};
