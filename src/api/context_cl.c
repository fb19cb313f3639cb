/* context_cl.c - the context entry points of the OpenCL interop tier:
 * adopt a caller's context/device/queue, and lend the context's own. */
#include "core/fault.h"
#include "opencl/opencl.h"

fricl_status fricl_context_create_from_cl(fricl_context **out,
                                          cl_context cl_ctx,
                                          cl_device_id device,
                                          cl_command_queue queue,
                                          const fricl_context_params *params) {
  fricl_context_params in;
  FRICL__TRY(fricl__context_params_in(out, params, &in));
  params = &in;
  if (!cl_ctx || !device || !queue) {
    fricl__context_report(params,
                          "cl_ctx, device and queue must all be non-NULL");
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  fricl_context *ctx = NULL;
  FRICL__TRY(fricl__context_alloc(&ctx, params, 0));
  ctx->mode = FRICL__MODE_OPENCL;
  fricl_status st = fricl__ocl_adopt(ctx, cl_ctx, device, queue, &ctx->dev);
  if (st != FRICL_STATUS_OK) {
    fricl__context_report(params, ctx->last_error);
    fricl_context_destroy(ctx);
    return st;
  }
  fricl__clear_error(ctx);
  ctx->last_backend = FRICL_BACKEND_OPENCL;
  *out = ctx;
  return FRICL_STATUS_OK;
}

fricl_status fricl_context_get_cl(const fricl_context *ctx, cl_context *cl_ctx,
                                  cl_device_id *device,
                                  cl_command_queue *queue) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  /* "auto" resolves its device (a const query filling a cache). */
  fricl__resolve_device((fricl_context *)(uintptr_t)ctx);
  const fricl__ocl *o = fricl__ocl_cast(ctx->dev);
  if (!o)
    return FRICL_STATUS_UNSUPPORTED;
  if (cl_ctx)
    *cl_ctx = o->cl_ctx;
  if (device)
    *device = o->device;
  if (queue)
    *queue = o->queue;
  return FRICL_STATUS_OK;
}
