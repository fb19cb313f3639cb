/* dispatch.c - which backend runs a call. Explicit device specs have one
 * backend. "auto" holds the host backend and, once a call is large enough
 * to need it, the device backend of the context's registry: a solver's
 * small calls never pay for a device runtime's start-up, large ones get
 * the device's throughput. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"

/* The backend "auto" opens for large calls: the context's first registry
 * entry with crossovers (NULL: none, every call stays on the host). */
static const fricl__backend_entry *auto_device(const fricl_context *ctx) {
  for (size_t i = 0; i < ctx->n_backends; ++i)
    if (ctx->backends[i]->crossover)
      return ctx->backends[i];
  return NULL;
}

/* Default crossovers of "auto", in work items (elements, contacts or
 * element-steps), per feature: the device entry's on a GPU (its backend
 * measured them, src/opencl/backend.c); never on other devices, where the
 * host backend runs the same math on the same cores without a runtime's
 * per-call costs. */
static size_t default_crossover(const fricl_context *ctx,
                                fricl__feature feature) {
  const fricl__backend_entry *e = ctx->dev_entry;
  return e && e->crossover && e->is_gpu && e->is_gpu(ctx->dev)
             ? e->crossover[feature]
             : SIZE_MAX;
}

/* The smallest default over device types: before the device is looked
 * up, calls below it stay on the host without looking. */
static size_t min_default_crossover(const fricl_context *ctx,
                                    fricl__feature feature) {
  const fricl__backend_entry *e = auto_device(ctx);
  return e ? e->crossover[feature] : SIZE_MAX;
}

void fricl__resolve_device(fricl_context *ctx) {
  if (ctx->mode != FRICL__MODE_AUTO || ctx->dev_resolved)
    return;
  ctx->dev_resolved = 1;
  /* The host backend's name (set at creation; short). */
  char host[64];
  snprintf(host, sizeof host, "%.63s", ctx->device_name);
  /* Failure to find or open a device is not an error for "auto": every
   * call then stays on the host backend. Its message is not kept. */
  const fricl__backend_entry *e = auto_device(ctx);
  if (e) {
    int found = 0;
    fricl__backend *dev = NULL;
    const fricl_status st = e->create(ctx, "auto", &found, &dev);
    fricl__clear_error(ctx);
    if (st == FRICL_STATUS_OK && found) {
      ctx->dev = dev;
      ctx->dev_entry = e;
    } else if (dev) {
      dev->ops->destroy(dev);
    }
    if (ctx->dev) {
      snprintf(ctx->device_name, sizeof ctx->device_name, "auto: %s + %.240s",
               host, e->device_name(ctx->dev));
      return;
    }
  }
  snprintf(ctx->device_name, sizeof ctx->device_name, "auto: %s", host);
}

fricl_status fricl__check_precision_supported(fricl_context *ctx,
                                              fricl_precision precision) {
  if (precision != FRICL_F64)
    return FRICL_STATUS_OK;
  int ok = !(ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64);
  const fricl__backend *be = ctx->host ? ctx->host : ctx->dev;
  ok = ok && be->has_fp64;
  if (ok)
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                     "device \"%s\" has no double precision: use FRICL_F32 "
                     "or another device",
                     ctx->device_name);
}

fricl_status fricl__dispatch(fricl_context *ctx, fricl__feature feature,
                             size_t work, fricl_precision precision,
                             fricl__backend **out) {
  FRICL__TRY(fricl__check_precision_supported(ctx, precision));
  if (ctx->mode != FRICL__MODE_AUTO) {
    *out = ctx->host ? ctx->host : ctx->dev;
    return FRICL_STATUS_OK;
  }
  *out = ctx->host;
  const size_t user = ctx->crossover;
  size_t cross = user;
  if (!cross)
    cross = !ctx->dev_resolved ? min_default_crossover(ctx, feature)
            : ctx->dev         ? default_crossover(ctx, feature)
                               : SIZE_MAX;
  if (cross == SIZE_MAX || work < cross)
    return FRICL_STATUS_OK;
  if (!ctx->dev_resolved) {
    fricl__resolve_device(ctx);
    cross = user ? user : ctx->dev ? default_crossover(ctx, feature) : SIZE_MAX;
    if (cross == SIZE_MAX || work < cross)
      return FRICL_STATUS_OK;
  }
  if (ctx->dev && (precision != FRICL_F64 || ctx->dev->has_fp64))
    *out = ctx->dev;
  return FRICL_STATUS_OK;
}
