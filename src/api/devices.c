/* devices.c - the device queries of a build with OpenCL: the machine's
 * OpenCL devices and a context's devices and transfers, answered by the
 * OpenCL backend (devices_none.c: the same without OpenCL). */
#include "opencl/opencl.h"

fricl_status fricl_devices_list(fricl_device_info *infos, size_t capacity,
                                size_t *count) {
  return fricl__ocl_devices_list(infos, capacity, count);
}

fricl_status fricl_context_devices(const fricl_context *ctx,
                                   fricl_context_device *infos, size_t capacity,
                                   size_t *count) {
  return fricl__ocl_context_devices(ctx, infos, capacity, count);
}

void fricl_context_transfers(const fricl_context *ctx, uint64_t *to_device,
                             uint64_t *from_device) {
  fricl__ocl_context_transfers(ctx, to_device, from_device);
}
