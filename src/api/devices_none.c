/* devices_none.c - the device list of a build without OpenCL
 * (FRICL_WITH_OPENCL=OFF): no OpenCL devices, which is not an error. */
#include "core/internal.h"

fricl_status fricl_devices_list(fricl_device_info *infos, size_t capacity,
                                size_t *count) {
  if (!count || (capacity > 0 && !infos))
    return FRICL_STATUS_INVALID_ARGUMENT;
  *count = 0;
  return FRICL_STATUS_OK;
}

void fricl_context_transfers(const fricl_context *ctx, uint64_t *to_device,
                             uint64_t *from_device) {
  (void)ctx;
  if (to_device)
    *to_device = 0;
  if (from_device)
    *from_device = 0;
}

fricl_status fricl_context_devices(const fricl_context *ctx,
                                   fricl_context_device *infos, size_t capacity,
                                   size_t *count) {
  if (!ctx || !count || (capacity > 0 && !infos))
    return FRICL_STATUS_INVALID_ARGUMENT;
  *count = 0;
  return FRICL_STATUS_OK;
}
