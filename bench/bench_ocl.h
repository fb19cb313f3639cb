/* bench_ocl.h - the OpenCL backend of a benchmark context (NULL when it has
 * none), for the device-tier rows and the copy-kernel roofline. */
#ifndef FRICL_BENCH_OCL_H
#define FRICL_BENCH_OCL_H

#include "opencl/opencl.h"

static inline fricl__ocl *bench_ocl(fricl_context *ctx) {
  fricl__ocl *o = NULL;
  return fricl__ocl_of(ctx, "fricl bench", &o) == FRICL_STATUS_OK ? o : NULL;
}

#endif
