/* context.c - the context entry points: creation checks the parameters
 * and hands the spec to core with the backends this build has
 * (api/backends.c); the queries read what core and the backends recorded. */
#include <string.h>

#include "api/backends.h"
#include "core/backend.h"

void fricl_context_params_init(fricl_context_params *params) {
  fricl__struct_init(params, sizeof *params);
}

fricl_status fricl_context_create(fricl_context **out,
                                  const fricl_context_params *params) {
  /* An older, smaller struct is read with the tail defaulted (core/abi.h). */
  fricl_context_params in;
  FRICL__TRY(fricl__context_params_in(out, params, &in));
  return fricl__context_open(out, &in, fricl__backends, fricl__backend_count);
}

void fricl_context_destroy(fricl_context *ctx) { fricl__context_destroy(ctx); }

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
