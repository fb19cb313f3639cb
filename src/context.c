/* context.c - context creation on a chosen or adopted device, teardown. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "fault.h"

void fricl_context_params_init(fricl_context_params *params) {
  if (!params)
    return;
  memset(params, 0, sizeof *params);
  params->struct_size = (uint32_t)sizeof *params;
}

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

static fricl_status alloc_ctx(fricl_context **out,
                              const fricl_context_params *p) {
  fricl_context *ctx = fricl__calloc(1, sizeof *ctx);
  if (!ctx)
    return FRICL_STATUS_OUT_OF_MEMORY;
  ctx->last_error = fricl__calloc(1, 1);
  if (!ctx->last_error) {
    free(ctx);
    return FRICL_STATUS_OUT_OF_MEMORY;
  }
  if (p) {
    ctx->flags = p->flags;
    ctx->max_chunk_elements = p->max_chunk_elements;
  }
  *out = ctx;
  return FRICL_STATUS_OK;
}

/* Fill the OpenCL fields of ctx from device/context/queue it now owns. */
static fricl_status adopt_device(fricl_context *ctx,
                                 const fricl_context_params *p) {
  ctx->backend = FRICL_BACKEND_OPENCL;
  ctx->has_fp64 = fricl__device_has_fp64(ctx->device) &&
                  !(ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64);
  clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                  sizeof ctx->max_alloc_bytes, &ctx->max_alloc_bytes, NULL);
  cl_bool unified = CL_FALSE;
  clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified,
                  &unified, NULL);
  ctx->host_unified = unified == CL_TRUE;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name,
                      ctx->device_name, NULL) != CL_SUCCESS)
    strcpy(ctx->device_name, "OpenCL device");
  ctx->device_name[sizeof ctx->device_name - 1] = '\0';
  if (!ctx->platform)
    clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform,
                    &ctx->platform, NULL);
  ctx->build_options =
      make_build_options(ctx->device, p ? p->build_options : NULL);
  return ctx->build_options ? FRICL_STATUS_OK : FRICL_STATUS_OUT_OF_MEMORY;
}

static void report(const fricl_context_params *p, const char *msg) {
  if (p && p->error_buffer && p->error_buffer_size > 0)
    snprintf(p->error_buffer, p->error_buffer_size, "%s", msg);
}

fricl_status fricl_context_create(fricl_context **out,
                                  const fricl_context_params *params) {
  if (!out)
    return FRICL_STATUS_INVALID_ARGUMENT;
  *out = NULL;
  if (params && params->struct_size < sizeof *params) {
    report(params, "params.struct_size is smaller than this library's "
                   "fricl_context_params: call fricl_context_params_init");
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  const char *spec = params && params->device ? params->device : NULL;
  if (!spec)
    spec = getenv("FRICL_DEVICE");
  char msg[512] = "";
  fricl__device_choice choice;
  fricl_status st = fricl__device_resolve(spec, &choice, msg, sizeof msg);
  if (st != FRICL_STATUS_OK) {
    report(params, msg);
    return st;
  }
  fricl_context *ctx = NULL;
  st = alloc_ctx(&ctx, params);
  if (st != FRICL_STATUS_OK) {
    report(params, "out of memory");
    return st;
  }
  ctx->fell_back = choice.fell_back;
  if (choice.reference) {
    ctx->backend = FRICL_BACKEND_REFERENCE;
    ctx->has_fp64 = !(ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64);
    strcpy(ctx->device_name, "reference (portable C)");
    *out = ctx;
    return FRICL_STATUS_OK;
  }
  cl_int err = CL_SUCCESS;
  ctx->platform = choice.platform;
  ctx->device = choice.device;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)choice.platform, 0};
  ctx->cl_ctx =
      FRICL__CL(clCreateContext)(props, 1, &choice.device, NULL, NULL, &err);
  if (err == CL_SUCCESS)
    ctx->queue =
        FRICL__CL(clCreateCommandQueue)(ctx->cl_ctx, ctx->device, 0, &err);
  if (err != CL_SUCCESS) {
    snprintf(msg, sizeof msg, "creating an OpenCL context on device %d:%d: %s",
             choice.platform_index, choice.device_index,
             fricl__cl_error_name(err));
    report(params, msg);
    fricl_context_destroy(ctx);
    return err == CL_OUT_OF_HOST_MEMORY ? FRICL_STATUS_OUT_OF_MEMORY
                                        : FRICL_STATUS_OPENCL_ERROR;
  }
  st = adopt_device(ctx, params);
  if (st != FRICL_STATUS_OK) {
    report(params, "out of memory");
    fricl_context_destroy(ctx);
    return st;
  }
  *out = ctx;
  return FRICL_STATUS_OK;
}

fricl_status fricl_context_create_from_cl(fricl_context **out,
                                          cl_context cl_ctx,
                                          cl_device_id device,
                                          cl_command_queue queue,
                                          const fricl_context_params *params) {
  if (!out)
    return FRICL_STATUS_INVALID_ARGUMENT;
  *out = NULL;
  if (!cl_ctx || !device || !queue) {
    report(params, "cl_ctx, device and queue must all be non-NULL");
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  if (params && params->struct_size < sizeof *params) {
    report(params, "params.struct_size is too small");
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  fricl_context *ctx = NULL;
  fricl_status st = alloc_ctx(&ctx, params);
  if (st != FRICL_STATUS_OK)
    return st;
  /* Retain first so that destroy releases exactly what we hold. */
  clRetainContext(cl_ctx);
  ctx->cl_ctx = cl_ctx;
  clRetainCommandQueue(queue);
  ctx->queue = queue;
  clRetainDevice(device);
  ctx->device = device;
  st = adopt_device(ctx, params);
  if (st != FRICL_STATUS_OK) {
    fricl_context_destroy(ctx);
    return st;
  }
  *out = ctx;
  return FRICL_STATUS_OK;
}

fricl_status fricl_context_get_cl(const fricl_context *ctx, cl_context *cl_ctx,
                                  cl_device_id *device,
                                  cl_command_queue *queue) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  if (ctx->backend != FRICL_BACKEND_OPENCL)
    return FRICL_STATUS_UNSUPPORTED;
  if (cl_ctx)
    *cl_ctx = ctx->cl_ctx;
  if (device)
    *device = ctx->device;
  if (queue)
    *queue = ctx->queue;
  return FRICL_STATUS_OK;
}

void fricl_context_destroy(fricl_context *ctx) {
  if (!ctx)
    return;
  if (ctx->queue)
    clFinish(ctx->queue);
  fricl__program_cache_clear(ctx);
  for (int i = 0; i < FRICL__STAGING_SLOTS; ++i)
    if (ctx->staging[i].mem)
      clReleaseMemObject(ctx->staging[i].mem);
  if (ctx->queue)
    clReleaseCommandQueue(ctx->queue);
  if (ctx->cl_ctx)
    clReleaseContext(ctx->cl_ctx);
  if (ctx->device)
    clReleaseDevice(ctx->device); /* no-op for root devices */
  free(ctx->build_options);
  free(ctx->last_error);
  free(ctx);
}

fricl_backend fricl_context_backend(const fricl_context *ctx) {
  return ctx ? ctx->backend : FRICL_BACKEND_REFERENCE;
}
const char *fricl_context_device_name(const fricl_context *ctx) {
  return ctx ? ctx->device_name : "";
}
int fricl_context_fell_back(const fricl_context *ctx) {
  return ctx ? ctx->fell_back : 0;
}
int fricl_context_has_fp64(const fricl_context *ctx) {
  return ctx ? ctx->has_fp64 : 0;
}

size_t fricl__chunk_elements(const fricl_context *ctx, size_t elem_bytes) {
  size_t n = (size_t)-1 / elem_bytes;
  if (ctx->backend == FRICL_BACKEND_OPENCL && ctx->max_alloc_bytes > 0 &&
      ctx->max_alloc_bytes / elem_bytes < n)
    n = (size_t)(ctx->max_alloc_bytes / elem_bytes);
  if (ctx->max_chunk_elements > 0 && ctx->max_chunk_elements < n)
    n = ctx->max_chunk_elements;
  return n > 0 ? n : 1;
}

fricl_status fricl__staging_get(fricl_context *ctx, int slot, size_t bytes,
                                cl_mem *mem) {
  fricl__staging *s = &ctx->staging[slot];
  if (s->mem && s->bytes >= bytes) {
    *mem = s->mem;
    return FRICL_STATUS_OK;
  }
  if (s->mem)
    clReleaseMemObject(s->mem);
  s->mem = NULL;
  s->bytes = 0;
  cl_int err = CL_SUCCESS;
  cl_mem m = FRICL__CL(clCreateBuffer)(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes,
                                       NULL, &err);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(ctx, err, "clCreateBuffer (staging)");
  const fricl_status st = fricl__zero_fill(ctx, m, bytes);
  if (st != FRICL_STATUS_OK) {
    clReleaseMemObject(m);
    return st;
  }
  s->mem = m;
  s->bytes = bytes;
  *mem = m;
  return FRICL_STATUS_OK;
}
