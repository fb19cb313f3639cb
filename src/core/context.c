/* context.c - context creation (device spec -> backends), teardown and the
 * context queries. OpenCL is reached only through the OpenCL backend's
 * creation functions, and for "auto" only when a call first needs it
 * (core/dispatch.c). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/abi.h"
#include "core/backend.h"
#include "core/fault.h"
#include "core/pool.h"
#include "core/tangential.h"
#if FRICL_WITH_OPENCL
#include "opencl/opencl.h"
#endif

void fricl_context_params_init(fricl_context_params *params) {
  if (!params)
    return;
  memset(params, 0, sizeof *params);
  params->struct_size = (uint32_t)sizeof *params;
}

void fricl__context_report(const fricl_context_params *p, const char *msg) {
  if (p && p->error_buffer && p->error_buffer_size > 0)
    snprintf(p->error_buffer, p->error_buffer_size, "%s", msg);
}

fricl_status fricl__context_params_in(const fricl_context_params *params,
                                      fricl_context_params *in) {
  fricl_context_params_init(in);
  if (!params)
    return FRICL_STATUS_OK;
  const fricl__abi_result r =
      fricl__struct_copy_in(in, sizeof *in, params, FRICL__MIN_CONTEXT_PARAMS);
  if (r == FRICL__ABI_OK)
    return FRICL_STATUS_OK;
  /* Too small: the caller's struct may not even hold the error buffer. */
  if (r == FRICL__ABI_UNKNOWN_TAIL) {
    char msg[320];
    fricl__struct_message(
        msg, sizeof msg, "params", fricl__struct_size_of(params),
        FRICL__MIN_CONTEXT_PARAMS, sizeof *in, r, "fricl_context_params_init");
    fricl__context_report(params, msg);
  }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

static char *dup_str(const char *s) {
  if (!s)
    return NULL;
  const size_t n = strlen(s) + 1;
  char *d = fricl__malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

/* A non-negative integer from the environment, at most max (larger values,
 * even past unsigned long long, give max: a cast would wrap
 * FRICL_THREADS=4294967297 to 1), or 0 when unset or not a number. The
 * first character must be a digit: strtoull takes "-1" as ULLONG_MAX. */
static size_t env_size(const char *name, size_t max) {
  const char *s = getenv(name);
  if (!s || !(*s >= '0' && *s <= '9'))
    return 0;
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(s, &end, 10);
  if (!end || *end != '\0')
    return 0;
  return errno == ERANGE || v > max ? max : (size_t)v;
}

fricl_status fricl__context_alloc(fricl_context **out,
                                  const fricl_context_params *p,
                                  unsigned default_threads) {
  fricl_context *ctx = fricl__calloc(1, sizeof *ctx);
  if (!ctx)
    return FRICL_STATUS_OUT_OF_MEMORY;
  ctx->last_error = fricl__calloc(1, 1);
  unsigned threads = p ? p->threads : 0;
  if (!threads)
    threads = default_threads;
  if (!threads)
    threads = (unsigned)env_size("FRICL_THREADS", UINT_MAX);
  if (!threads)
    threads = fricl__cpu_count();
  ctx->threads = threads;
  ctx->pool = fricl__pool_create(threads);
  if (p && p->build_options)
    ctx->build_options = dup_str(p->build_options);
  if (!ctx->last_error || !ctx->pool ||
      (p && p->build_options && !ctx->build_options)) {
    fricl_context_destroy(ctx);
    return FRICL_STATUS_OUT_OF_MEMORY;
  }
  ctx->threads = fricl__pool_threads(ctx->pool);
  if (p) {
    ctx->flags = p->flags;
    ctx->max_chunk_elements = p->max_chunk_elements;
    ctx->crossover = p->auto_crossover;
  }
  if (!ctx->crossover)
    ctx->crossover = env_size("FRICL_AUTO_CROSSOVER", SIZE_MAX);
  ctx->host_grain = env_size("FRICL_HOST_GRAIN", SIZE_MAX);
  *out = ctx;
  return FRICL_STATUS_OK;
}

/* The spec's mode; OPENCL for every OpenCL spec (checked by the OpenCL
 * backend when it is created). */
static fricl__mode mode_of(const char *spec) {
  if (strcmp(spec, "reference") == 0)
    return FRICL__MODE_REFERENCE;
  if (strcmp(spec, "host") == 0)
    return FRICL__MODE_HOST;
  if (strcmp(spec, "auto") == 0)
    return FRICL__MODE_AUTO;
  return FRICL__MODE_OPENCL;
}

fricl_status fricl_context_create(fricl_context **out,
                                  const fricl_context_params *params) {
  if (!out)
    return FRICL_STATUS_INVALID_ARGUMENT;
  *out = NULL;
  fricl_context_params in;
  if (fricl__context_params_in(params, &in) != FRICL_STATUS_OK)
    return FRICL_STATUS_INVALID_ARGUMENT;
  params = &in;
  const char *spec = params && params->device ? params->device : NULL;
  if (!spec)
    spec = getenv("FRICL_DEVICE");
  if (!spec || !*spec)
    spec = "auto";
  /* The reference backend is the simple, single-threaded oracle side of
   * the tests: one thread everywhere (validation and plans too) unless
   * the caller asks for more. */
  const fricl__mode mode = mode_of(spec);
  fricl_context *ctx = NULL;
  fricl_status st = fricl__context_alloc(
      &ctx, params, mode == FRICL__MODE_REFERENCE ? 1u : 0u);
  if (st != FRICL_STATUS_OK) {
    fricl__context_report(params, "out of memory");
    return st;
  }
  ctx->mode = mode;
  switch (ctx->mode) {
  case FRICL__MODE_REFERENCE:
    st = fricl__reference_create(ctx, &ctx->host);
    break;
  case FRICL__MODE_HOST:
  case FRICL__MODE_AUTO:
    st = fricl__host_create(ctx, &ctx->host);
    break;
  case FRICL__MODE_OPENCL:
#if FRICL_WITH_OPENCL
  {
    int found = 0;
    st = fricl__ocl_create(ctx, spec, &found, &ctx->dev);
  }
#else
    st = fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                     "device \"%s\": this fricl was built without OpenCL "
                     "(FRICL_WITH_OPENCL=OFF); use auto, host or reference",
                     spec);
#endif
  break;
  }
  if (st != FRICL_STATUS_OK) {
    fricl__context_report(params, ctx->last_error[0] ? ctx->last_error
                                                     : "out of memory");
    fricl_context_destroy(ctx);
    return st;
  }
  fricl__clear_error(ctx);
  ctx->last_backend = ctx->host ? ctx->host->ops->kind : FRICL_BACKEND_OPENCL;
  *out = ctx;
  return FRICL_STATUS_OK;
}

void fricl_context_destroy(fricl_context *ctx) {
  if (!ctx)
    return;
  fricl__plan_cache_destroy(ctx);
  if (ctx->dev)
    ctx->dev->ops->destroy(ctx->dev);
  if (ctx->host)
    ctx->host->ops->destroy(ctx->host);
  fricl__pool_destroy(ctx->pool);
  free(ctx->device_spec);
  free(ctx->build_options);
  free(ctx->last_error);
  free(ctx);
}

/* "auto": look the device up if no call has yet (queries that describe
 * the device need it). */
static void resolve(const fricl_context *ctx) {
  /* The queries are const for the caller; the lookup is a cache fill. */
  fricl__resolve_device((fricl_context *)(uintptr_t)ctx);
}

fricl_backend fricl_context_backend(const fricl_context *ctx) {
  if (!ctx)
    return FRICL_BACKEND_REFERENCE;
  resolve(ctx);
  return ctx->dev ? FRICL_BACKEND_OPENCL : ctx->host->ops->kind;
}

fricl_backend fricl_context_last_backend(const fricl_context *ctx) {
  return ctx ? ctx->last_backend : FRICL_BACKEND_REFERENCE;
}

const char *fricl_context_device_name(const fricl_context *ctx) {
  /* No lookup: "auto" names its device once a call has opened it. */
  return ctx ? ctx->device_name : "";
}

int fricl_context_fell_back(const fricl_context *ctx) {
  if (!ctx || ctx->mode != FRICL__MODE_AUTO)
    return 0;
  resolve(ctx);
  return ctx->dev == NULL;
}

int fricl_context_has_fp64(const fricl_context *ctx) {
  if (!ctx || (ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64))
    return 0;
  return ctx->host ? 1 : ctx->dev->has_fp64;
}

unsigned fricl_context_threads(const fricl_context *ctx) {
  return ctx ? ctx->threads : 0;
}

size_t fricl__chunk_elements_for(const fricl_context *ctx,
                                 uint64_t max_alloc_bytes, size_t elem_bytes) {
  size_t n = (size_t)-1 / elem_bytes;
  if (max_alloc_bytes > 0 && max_alloc_bytes / elem_bytes < n)
    n = (size_t)(max_alloc_bytes / elem_bytes);
  if (ctx->max_chunk_elements > 0 && ctx->max_chunk_elements < n)
    n = ctx->max_chunk_elements;
  return n > 0 ? n : 1;
}
