/* context.c - context creation (device spec -> backends, chosen from the
 * registry its creator supplies) and teardown. Core knows no backend: the
 * device backend of "auto" is opened only when a call first needs it
 * (core/dispatch.c). The public context functions are in src/api. */
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

void fricl__context_report(const fricl_context_params *p, const char *msg) {
  if (p && p->error_buffer && p->error_buffer_size > 0)
    snprintf(p->error_buffer, p->error_buffer_size, "%s", msg);
}

fricl_status fricl__context_params_in(fricl_context **out,
                                      const fricl_context_params *params,
                                      fricl_context_params *in) {
  if (!out)
    return FRICL_STATUS_INVALID_ARGUMENT;
  *out = NULL;
  /* What fricl_context_params_init gives (core calls no public function). */
  memset(in, 0, sizeof *in);
  in->struct_size = (uint32_t)sizeof *in;
  if (!params)
    return FRICL_STATUS_OK;
  const fricl__abi_result r =
      fricl__struct_copy_in(in, sizeof *in, params, FRICL__MIN_CONTEXT_PARAMS,
                            _Alignof(fricl_context_params));
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
    fricl__context_destroy(ctx);
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

/* The entry that takes `spec`: for "auto", the host entry. */
static const fricl__backend_entry *
entry_for(const fricl__backend_entry *const *backends, size_t n,
          const char *spec) {
  const int is_auto = strcmp(spec, "auto") == 0;
  for (size_t i = 0; i < n; ++i)
    if (is_auto ? backends[i]->mode == FRICL__MODE_HOST
                : backends[i]->accepts(spec))
      return backends[i];
  return NULL;
}

fricl_status fricl__backend_child(fricl_context *ctx, const char *spec,
                                  fricl__backend **out) {
  *out = NULL;
  const fricl__backend_entry *e =
      strcmp(spec, "auto") == 0
          ? NULL
          : entry_for(ctx->backends, ctx->n_backends, spec);
  if (!e)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "device \"%.256s\": no backend takes it", spec);
  int found = 0;
  const fricl_status st = e->create(ctx, spec, &found, out);
  if (st == FRICL_STATUS_OK && !*out)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "device \"%.256s\": not found", spec);
  return st;
}

fricl_status fricl__context_open(fricl_context **out,
                                 const fricl_context_params *params,
                                 const fricl__backend_entry *const *backends,
                                 size_t n) {
  const char *spec = params && params->device ? params->device : NULL;
  if (!spec)
    spec = getenv("FRICL_DEVICE");
  if (!spec || !*spec)
    spec = "auto";
  const fricl__backend_entry *e = entry_for(backends, n, spec);
  if (!e) {
    char msg[320];
    snprintf(msg, sizeof msg, "device \"%.256s\": no backend takes it", spec);
    fricl__context_report(params, msg);
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  fricl_context *ctx = NULL;
  fricl_status st = fricl__context_alloc(&ctx, params, e->threads);
  if (st != FRICL_STATUS_OK) {
    fricl__context_report(params, "out of memory");
    return st;
  }
  ctx->mode = strcmp(spec, "auto") == 0 ? FRICL__MODE_AUTO : e->mode;
  ctx->backends = backends;
  ctx->n_backends = n;
  int found = 0;
  fricl__backend *be = NULL;
  st = e->create(ctx, spec, &found, &be);
  if (e->mode == FRICL__MODE_OPENCL) {
    ctx->dev = be;
    ctx->dev_entry = e;
  } else {
    ctx->host = be;
  }
  if (st != FRICL_STATUS_OK) {
    fricl__context_report(params, ctx->last_error[0] ? ctx->last_error
                                                     : "out of memory");
    fricl__context_destroy(ctx);
    return st;
  }
  fricl__clear_error(ctx);
  ctx->last_backend = ctx->host ? ctx->host->ops->kind : FRICL_BACKEND_OPENCL;
  *out = ctx;
  return FRICL_STATUS_OK;
}

void fricl__context_destroy(fricl_context *ctx) {
  if (!ctx)
    return;
  fricl__plan_cache_destroy(ctx);
  for (int i = 0; i < FRICL__SCRATCH_N; ++i)
    if (ctx->scratch[i].p && ctx->scratch[i].free)
      ctx->scratch[i].free(ctx->scratch[i].p);
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

size_t fricl__chunk_elements_for(const fricl_context *ctx,
                                 uint64_t max_alloc_bytes, size_t elem_bytes) {
  size_t n = (size_t)-1 / elem_bytes;
  if (max_alloc_bytes > 0 && max_alloc_bytes / elem_bytes < n)
    n = (size_t)(max_alloc_bytes / elem_bytes);
  if (ctx->max_chunk_elements > 0 && ctx->max_chunk_elements < n)
    n = ctx->max_chunk_elements;
  return n > 0 ? n : 1;
}
