/* bench_ocl.c - the OpenCL context queries and the copy kernel of `fricl
 * bench` (see bench_ocl.h). Compiled only with FRICL_WITH_OPENCL. */
#include "bench_ocl.h"

#include <stdlib.h>
#include <string.h>

#include "opencl/opencl.h"

int bench_ocl_has_device(fricl_context *ctx) {
  return fricl_context_backend(ctx) == FRICL_BACKEND_OPENCL;
}

/* The context's OpenCL backend (resolving "auto"'s device), or NULL. */
static fricl__ocl *ocl_of(fricl_context *ctx) {
  fricl__ocl *o = NULL;
  return fricl__ocl_of(ctx, "fricl bench", &o) == FRICL_STATUS_OK ? o : NULL;
}

void bench_ocl_describe(fricl_context *ctx, char *driver, size_t driver_size,
                        char *options, size_t options_size) {
  if (driver_size)
    driver[0] = '\0';
  if (options_size)
    options[0] = '\0';
  fricl__ocl *o = bench_ocl_has_device(ctx) ? ocl_of(ctx) : NULL;
  if (!o)
    return;
  if (driver_size > 1 &&
      clGetDeviceInfo(o->device, CL_DRIVER_VERSION, driver_size - 1, driver,
                      NULL) != CL_SUCCESS)
    driver[0] = '\0';
  if (driver_size)
    driver[driver_size - 1] = '\0';
  if (options_size)
    snprintf(options, options_size, "%s",
             o->build_options ? o->build_options : "");
}

struct bench_ocl_copy {
  fricl__ocl *o;          /* the context's backend, borrowed */
  cl_command_queue queue; /* its queue */
  cl_kernel kernel;       /* cached by the context, not released here */
  cl_mem src, dst;
  size_t n;
};

/* The arguments are set on every run: the kernel is the context's cached
 * one, which another copy of the same precision may use in between. */
static cl_int set_args(bench_ocl_copy *c) {
  const cl_ulong n64 = c->n;
  cl_int err = clSetKernelArg(c->kernel, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->kernel, 1, sizeof(cl_mem), &c->src);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->kernel, 2, sizeof(cl_mem), &c->dst);
  return err;
}

int bench_ocl_copy_run(void *copy, int count) {
  bench_ocl_copy *c = copy;
  if (set_args(c) != CL_SUCCESS) {
    fprintf(stderr, "fricl bench: copy kernel arguments\n");
    return 1;
  }
  for (int i = 0; i < count; ++i) {
    /* The library's launch, so that the roofline uses the same
     * work-group choice as the kernels it is compared with. */
    const cl_int err = fricl__ocl_launch(c->o, c->kernel, c->n, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      clFinish(c->queue);
      fprintf(stderr, "fricl bench: copy kernel: %s\n",
              fricl__cl_error_name(err));
      return 1;
    }
  }
  const cl_int err = clFinish(c->queue);
  if (err != CL_SUCCESS)
    fprintf(stderr, "fricl bench: clFinish: %s\n", fricl__cl_error_name(err));
  return err != CL_SUCCESS;
}

void bench_ocl_copy_close(bench_ocl_copy *c) {
  if (!c)
    return;
  if (c->queue)
    clFinish(c->queue);
  /* The cached kernel must not keep handles of the buffers freed here. */
  static const cl_uint mem_args[] = {1, 2};
  if (c->kernel)
    fricl__kernel_unbind(c->kernel, mem_args, 2);
  if (c->src)
    clReleaseMemObject(c->src);
  if (c->dst)
    clReleaseMemObject(c->dst);
  free(c);
}

int bench_ocl_copy_open(fricl_context *ctx, fricl_precision p, size_t n,
                        bench_ocl_copy **out) {
  *out = NULL;
  fricl__ocl *o = ocl_of(ctx);
  bench_ocl_copy *c = calloc(1, sizeof *c);
  if (!o || !c) {
    fprintf(stderr, "fricl bench: copy kernel: %s\n",
            o ? "out of memory" : fricl_context_last_error(ctx));
    free(c);
    return 1;
  }
  c->o = o;
  c->queue = o->queue;
  c->n = n ? n : 1;
  /* Only type names in the defines: no float text to mis-round. */
  const char *defines = p == FRICL_F64
                            ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                              "#define FRICL_REAL double\n"
                            : "#define FRICL_REAL float\n";
  const fricl_status st = fricl__ocl_kernel(
      o, "fricl_copy.cl", NULL, "fricl_copy", defines, &c->kernel, NULL);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: building fricl_copy.cl: %s: %s\n",
            fricl_status_string(st), fricl_context_last_error(ctx));
    c->kernel = NULL;
    bench_ocl_copy_close(c);
    return 1;
  }
  const size_t esz = p == FRICL_F64 ? 8 : 4, bytes = c->n * esz;
  cl_int err = CL_SUCCESS;
  c->src = clCreateBuffer(o->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    c->dst = clCreateBuffer(o->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    const double zd = 0;
    const float zf = 0;
    err = clEnqueueFillBuffer(c->queue, c->src,
                              p == FRICL_F64 ? (const void *)&zd
                                             : (const void *)&zf,
                              esz, 0, bytes, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl bench: copy kernel buffers: %s\n",
            fricl__cl_error_name(err));
    bench_ocl_copy_close(c);
    return 1;
  }
  *out = c;
  return 0;
}
