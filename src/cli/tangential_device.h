/* tangential_device.h - `fricl tangential --build` on an OpenCL device:
 * the build's outputs stay on the device and the evaluation reads them
 * there (fricl_build_cl, then fricl_tangential_eval_cl on the build's
 * buffers); only the results come back, plus the build's outputs and
 * statuses, which the output file includes. */
#ifndef FRICL_CLI_TANGENTIAL_DEVICE_H
#define FRICL_CLI_TANGENTIAL_DEVICE_H

#include "build_input.h"
#include "fricl/fricl.h"

/* 1 when the context runs its large calls on an OpenCL device: an
 * OpenCL spec or device list, or "auto" (device_arg NULL: FRICL_DEVICE,
 * else auto) when its device is a GPU. */
int tangential_device_wanted(fricl_context *ctx, const char *device_arg);

/* The build of b and the evaluation `eval` (host arrays: its groups' inputs
 * are b's build outputs, filled here; outputs as requested) on the
 * context's OpenCL device. The build is validated on the host first, with
 * fricl_build's messages; b->report is filled from the statuses. */
fricl_status tangential_device_run(fricl_context *ctx, build_input *b,
                                   fricl_mu_blend blend, int physical_barrier,
                                   const fricl_tangential_batch *eval);

#endif
