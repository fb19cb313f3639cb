/* backend.c - the OpenCL backend's life: creation on a device a spec names
 * or on a caller's context/device/queue, its operations table, and the
 * small helpers its per-feature files share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "opencl/devices.h"
#include "opencl/opencl.h"

/* fricl's build options, then the caller's, then FRICL_BUILD_OPTIONS. */
static char *make_build_options(cl_device_id dev, const char *user) {
  cl_device_fp_config sp = 0;
  clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof sp, &sp, NULL);
  /* Correctly rounded f32 division keeps f32 kernels within a few ULP of
   * the reference, where the OpenCL default allows 2.5 ULP per division. */
  const char *base =
      (sp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
          ? "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
          : "-cl-std=CL1.2";
  const char *env = getenv("FRICL_BUILD_OPTIONS");
  const size_t n =
      strlen(base) + (user ? strlen(user) : 0) + (env ? strlen(env) : 0) + 3;
  char *s = fricl__malloc(n);
  if (s)
    snprintf(s, n, "%s%s%s%s%s", base, user ? " " : "", user ? user : "",
             env ? " " : "", env ? env : "");
  return s;
}

static void ocl_destroy(fricl__backend *be) {
  fricl__ocl *o = (fricl__ocl *)be;
  if (o->queue)
    clFinish(o->queue);
  fricl__ocl_program_cache_clear(o);
  for (int i = 0; i < FRICL__STAGING_SLOTS; ++i)
    if (o->staging[i].mem)
      clReleaseMemObject(o->staging[i].mem);
  if (o->queue)
    clReleaseCommandQueue(o->queue);
  if (o->cl_ctx)
    clReleaseContext(o->cl_ctx);
  if (o->device)
    clReleaseDevice(o->device); /* no-op for root devices */
  free(o->build_options);
  free(o);
}

static fricl_status ocl_prepare(fricl__backend *be,
                                const fricl__prepare_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  cl_kernel k = NULL;
  if (w->feature == FRICL__FEATURE_LAWS)
    return fricl__ocl_law_kernel(o, w->law, &k, NULL);
  return fricl__ocl_scalar_kernel(o, w->precision, w->profile, w->mask,
                                  w->eps_array, w->mus_array, w->muk_array, &k,
                                  NULL);
}

const fricl__backend_ops fricl__ocl_ops = {.name = "opencl",
                                           .kind = FRICL_BACKEND_OPENCL,
                                           .scalar = fricl__ocl_scalar,
                                           .tangential = fricl__ocl_tangential,
                                           .build = fricl__ocl_build,
                                           .laws = fricl__ocl_laws,
                                           .barrier = fricl__ocl_barrier,
                                           .prepare = ocl_prepare,
                                           .destroy = ocl_destroy,
                                           .force = fricl__ocl_force,
                                           .collisions_narrow =
                                               fricl__ocl_collisions_narrow,
                                           .child = &fricl__ocl_child_ops};

/* Fill the device-derived fields of a backend whose device, context and
 * queue are set. */
static fricl_status adopt_device(fricl__ocl *o, fricl_context *ctx) {
  o->base.ops = &fricl__ocl_ops;
  o->base.ctx = ctx;
  o->base.has_fp64 = fricl__device_has_fp64(o->device);
  clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                  sizeof o->max_alloc_bytes, &o->max_alloc_bytes, NULL);
  o->base.max_alloc_bytes = o->max_alloc_bytes;
  cl_bool unified = CL_FALSE;
  clGetDeviceInfo(o->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                  &unified, NULL);
  o->host_unified = unified == CL_TRUE;
  cl_device_type type = 0;
  clGetDeviceInfo(o->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  o->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  if (clGetDeviceInfo(o->device, CL_DEVICE_NAME, sizeof o->name, o->name,
                      NULL) != CL_SUCCESS)
    strcpy(o->name, "OpenCL device");
  o->name[sizeof o->name - 1] = '\0';
  if (!o->platform)
    clGetDeviceInfo(o->device, CL_DEVICE_PLATFORM, sizeof o->platform,
                    &o->platform, NULL);
  o->build_options = make_build_options(o->device, ctx->build_options);
  if (!o->build_options)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  return FRICL_STATUS_OK;
}

fricl_status fricl__ocl_create(fricl_context *ctx, const char *spec, int *found,
                               fricl__backend **out) {
  *out = NULL;
  *found = 0;
  char msg[512] = "";
  fricl__device_choice choice;
  fricl__cl_lock();
  fricl_status st = fricl__device_resolve(spec, &choice, msg, sizeof msg);
  if (st != FRICL_STATUS_OK || !choice.found) {
    fricl__cl_unlock();
    return st == FRICL_STATUS_OK ? st : fricl__fail(ctx, st, "%s", msg);
  }
  fricl__ocl *o = fricl__calloc(1, sizeof *o);
  if (!o) {
    fricl__cl_unlock();
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  cl_int err = CL_SUCCESS;
  o->platform = choice.platform;
  o->device = choice.device;
  o->platform_index = choice.platform_index;
  o->device_index = choice.device_index;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)choice.platform, 0};
  o->cl_ctx =
      FRICL__CL(clCreateContext)(props, 1, &choice.device, NULL, NULL, &err);
  if (err == CL_SUCCESS)
    o->queue = FRICL__CL(clCreateCommandQueue)(o->cl_ctx, o->device, 0, &err);
  if (err != CL_SUCCESS) {
    fricl__cl_unlock();
    st = fricl__fail(ctx,
                     err == CL_OUT_OF_HOST_MEMORY ? FRICL_STATUS_OUT_OF_MEMORY
                                                  : FRICL_STATUS_OPENCL_ERROR,
                     "creating an OpenCL context on device %d:%d: %s",
                     choice.platform_index, choice.device_index,
                     fricl__cl_error_name(err));
    o->base.ops = &fricl__ocl_ops;
    ocl_destroy(&o->base);
    return st;
  }
  st = adopt_device(o, ctx);
  fricl__cl_unlock();
  if (st != FRICL_STATUS_OK) {
    ocl_destroy(&o->base);
    return st;
  }
  snprintf(ctx->device_name, sizeof ctx->device_name, "%s", o->name);
  *found = 1;
  *out = &o->base;
  return FRICL_STATUS_OK;
}

/*
 * Default crossovers of "auto" onto a GPU, in work items (elements,
 * contacts or element-steps), per feature: below them the host backend is
 * faster per call. Measured with `fricl bench --suite sweep`
 * (docs/devices.md, "Devices and fallbacks"): on a CPU OpenCL device the host
 * backend runs the same math on the same cores without the runtime's per-call
 * costs, so it stays at least as fast at every size we measured and auto never
 * switches (is_gpu says which); a GPU pays a fixed launch and transfer cost of
 * tens of microseconds per call, which the estimates below amortise.
 */
static const size_t gpu_crossover[FRICL__FEATURE_COUNT] = {
    [FRICL__FEATURE_SCALAR] = (size_t)1 << 18,
    [FRICL__FEATURE_TANGENTIAL] = (size_t)1 << 14,
    [FRICL__FEATURE_BUILD] = (size_t)1 << 14,
    [FRICL__FEATURE_LAWS] = (size_t)1 << 18,
    [FRICL__FEATURE_BARRIER] = (size_t)1 << 14};

/* Every spec the host entries do not take: fricl__ocl_create checks it and
 * names a bad one in its error. */
static int ocl_accepts(const char *spec) {
  (void)spec;
  return 1;
}

static int ocl_is_gpu(const fricl__backend *be) {
  return fricl__ocl_cast((fricl__backend *)(uintptr_t)be)->is_gpu;
}

static const char *ocl_device_name(const fricl__backend *be) {
  return fricl__ocl_cast((fricl__backend *)(uintptr_t)be)->name;
}

const fricl__backend_entry fricl__opencl_backend = {
    .name = "opencl",
    .mode = FRICL__MODE_OPENCL,
    .accepts = ocl_accepts,
    .create = fricl__ocl_create,
    .is_gpu = ocl_is_gpu,
    .crossover = gpu_crossover,
    .device_name = ocl_device_name,
    .gpu_specs = fricl__ocl_gpu_specs};

fricl_status fricl__ocl_adopt(fricl_context *ctx, cl_context cl_ctx,
                              cl_device_id device, cl_command_queue queue,
                              fricl__backend **out) {
  fricl__ocl *o = fricl__calloc(1, sizeof *o);
  if (!o)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  /* Retain first so that destroy releases exactly what we hold. */
  clRetainContext(cl_ctx);
  o->cl_ctx = cl_ctx;
  clRetainCommandQueue(queue);
  o->queue = queue;
  clRetainDevice(device);
  o->device = device;
  o->platform_index = o->device_index = -1;
  fricl__cl_lock();
  fricl_status st = adopt_device(o, ctx);
  fricl__cl_unlock();
  if (st != FRICL_STATUS_OK) {
    o->base.ops = &fricl__ocl_ops;
    ocl_destroy(&o->base);
    return st;
  }
  snprintf(ctx->device_name, sizeof ctx->device_name, "%s", o->name);
  *out = &o->base;
  return FRICL_STATUS_OK;
}

fricl_status fricl__ocl_of(fricl_context *ctx, const char *entry,
                           fricl__ocl **out) {
  fricl__resolve_device(ctx);
  fricl__ocl *o = fricl__ocl_cast(ctx->dev);
  if (!o)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "%s needs an OpenCL context; this one uses %s", entry,
                       ctx->device_name);
  *out = o;
  return FRICL_STATUS_OK;
}

fricl_status fricl__ocl_check_fp64(fricl_context *ctx, const fricl__ocl *o,
                                   fricl_precision p, int context_flag) {
  if (p != FRICL_F64 ||
      (o->base.has_fp64 &&
       !(context_flag && (ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64))))
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                     "device \"%s\" has no double precision: use FRICL_F32 "
                     "or another device",
                     o->name);
}

fricl_status fricl__ocl_entry(fricl_context *ctx, const char *entry,
                              cl_uint num_wait, const cl_event *wait_list,
                              fricl__ocl **out) {
  fricl_status st = fricl__ocl_of(ctx, entry, out);
  if (st == FRICL_STATUS_OK && num_wait && !wait_list)
    st =
        fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                    "wait_list is NULL with num_wait = %u", (unsigned)num_wait);
  return st;
}

fricl_status fricl__ocl_marker(fricl__ocl *o, cl_uint num_wait,
                               const cl_event *wait, cl_event *done) {
  if (!done)
    return FRICL_STATUS_OK;
  const cl_int err = clEnqueueMarkerWithWaitList(o->queue, num_wait,
                                                 num_wait ? wait : NULL, done);
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(o->base.ctx, err, "clEnqueueMarkerWithWaitList");
}

size_t fricl__ocl_chunk_elements(const fricl__ocl *o, size_t elem_bytes) {
  return fricl__chunk_elements_for(o->base.ctx, o->max_alloc_bytes, elem_bytes);
}

int fricl__ocl_precision_defines(char *buf, size_t size, fricl_precision p) {
  return snprintf(
      buf, size,
      "%s#define FRICL_REAL %s\n#define FRICL_FN(name) "
      "fricl_##name\n",
      p == FRICL_F64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
      p == FRICL_F64 ? "double" : "float");
}

cl_int fricl__ocl_set_real(cl_kernel k, cl_uint idx, fricl_precision p,
                           double v) {
  if (p == FRICL_F64)
    return clSetKernelArg(k, idx, sizeof(double), &v);
  const float f = (float)v;
  return clSetKernelArg(k, idx, sizeof(float), &f);
}

cl_int fricl__ocl_args_int(cl_kernel k, cl_uint first, const cl_int *v,
                           cl_uint n, cl_int err) {
  for (cl_uint i = 0; i < n && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k, first + i, sizeof(cl_int), &v[i]);
  return err;
}

cl_int fricl__ocl_args_real(cl_kernel k, cl_uint first, fricl_precision p,
                            const double *v, cl_uint n, cl_int err) {
  for (cl_uint i = 0; i < n && err == CL_SUCCESS; ++i)
    err = fricl__ocl_set_real(k, first + i, p, v[i]);
  return err;
}

cl_int fricl__ocl_args_mem(cl_kernel k, cl_uint first, const cl_mem *v,
                           cl_uint n, cl_int err) {
  for (cl_uint i = 0; i < n && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k, first + i, sizeof(cl_mem), &v[i]);
  return err;
}
