/* dispatch.c - which backend runs a call. Explicit device specs have one
 * backend. "auto" holds the host backend and, once a call is large enough
 * to need it, the OpenCL device: a solver's small calls never pay for
 * OpenCL's start-up, large ones get the device's throughput. */
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#if FRICL_WITH_OPENCL
#include "opencl/opencl.h"
#endif

/*
 * Default crossovers of "auto", in work items (elements, contacts or
 * element-steps), per feature and device type: below them the host backend
 * is faster per call. Measured with `fricl bench --suite sweep`
 * (docs/devices.md, "Devices and fallbacks"): on a CPU OpenCL device the host
 * backend runs the same math on the same cores without the runtime's per-call
 * costs, so it stays at least as fast at every size we measured and auto never
 * switches; a GPU pays a fixed launch and transfer cost of tens of microseconds
 * per call, which the estimates below amortise.
 */
#if FRICL_WITH_OPENCL
static const size_t gpu_crossover[FRICL__FEATURE_COUNT] = {
    [FRICL__FEATURE_SCALAR] = (size_t)1 << 18,
    [FRICL__FEATURE_TANGENTIAL] = (size_t)1 << 14,
    [FRICL__FEATURE_BUILD] = (size_t)1 << 14,
    [FRICL__FEATURE_LAWS] = (size_t)1 << 18,
    [FRICL__FEATURE_BARRIER] = (size_t)1 << 14};
#endif

static size_t default_crossover(const fricl__backend *dev,
                                fricl__feature feature) {
#if FRICL_WITH_OPENCL
  return ((const fricl__ocl *)dev)->is_gpu ? gpu_crossover[feature] : SIZE_MAX;
#else
  (void)dev;
  (void)feature;
  return SIZE_MAX;
#endif
}

/* The smallest default over device types: before the device is looked
 * up, calls below it stay on the host without looking. */
static size_t min_default_crossover(fricl__feature feature) {
#if FRICL_WITH_OPENCL
  return gpu_crossover[feature];
#else
  (void)feature;
  return SIZE_MAX;
#endif
}

void fricl__resolve_device(fricl_context *ctx) {
  if (ctx->mode != FRICL__MODE_AUTO || ctx->dev_resolved)
    return;
  ctx->dev_resolved = 1;
  /* The host backend's name (set at creation; short). */
  char host[64];
  snprintf(host, sizeof host, "%.63s", ctx->device_name);
#if FRICL_WITH_OPENCL
  /* Failure to find or open a device is not an error for "auto": every
   * call then stays on the host backend. Its message is not kept. */
  int found = 0;
  fricl__backend *dev = NULL;
  const fricl_status st = fricl__ocl_create(ctx, "auto", &found, &dev);
  fricl__clear_error(ctx);
  if (st == FRICL_STATUS_OK && found)
    ctx->dev = dev;
  else if (dev)
    dev->ops->destroy(dev);
  if (ctx->dev) {
    snprintf(ctx->device_name, sizeof ctx->device_name, "auto: %s + %.240s",
             host, ((fricl__ocl *)ctx->dev)->name);
    return;
  }
#endif
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
  fricl_status st = fricl__check_precision_supported(ctx, precision);
  if (st != FRICL_STATUS_OK)
    return st;
  if (ctx->mode != FRICL__MODE_AUTO) {
    *out = ctx->host ? ctx->host : ctx->dev;
    return FRICL_STATUS_OK;
  }
  *out = ctx->host;
  const size_t user = ctx->crossover;
  size_t cross = user;
  if (!cross)
    cross = !ctx->dev_resolved ? min_default_crossover(feature)
            : ctx->dev         ? default_crossover(ctx->dev, feature)
                               : SIZE_MAX;
  if (cross == SIZE_MAX || work < cross)
    return FRICL_STATUS_OK;
  if (!ctx->dev_resolved) {
    fricl__resolve_device(ctx);
    cross = user       ? user
            : ctx->dev ? default_crossover(ctx->dev, feature)
                       : SIZE_MAX;
    if (cross == SIZE_MAX || work < cross)
      return FRICL_STATUS_OK;
  }
  if (ctx->dev && (precision != FRICL_F64 || ctx->dev->has_fp64))
    *out = ctx->dev;
  return FRICL_STATUS_OK;
}
