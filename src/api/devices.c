/* devices.c - the device queries: the machine's OpenCL devices (from the
 * OpenCL backend; a build without OpenCL, FRICL_WITH_OPENCL=OFF, has none,
 * which is not an error), and a context's devices and transfers (from its
 * devices' child tables, src/multi). The caller's element size is checked
 * here and is the stride of the output. */
#include "core/abi.h"
#include "multi/multi.h"
#if FRICL_WITH_OPENCL
#include "opencl/opencl.h"
#endif

fricl_status fricl_devices_list_sized(fricl_device_info *infos,
                                      size_t info_size, size_t capacity,
                                      size_t *count) {
  if (!count || (capacity > 0 && !infos) ||
      fricl__struct_out_check(info_size, FRICL__MIN_DEVICE_INFO))
    return FRICL_STATUS_INVALID_ARGUMENT;
#if FRICL_WITH_OPENCL
  return fricl__ocl_devices_list(infos, info_size, capacity, count);
#else
  *count = 0;
  return FRICL_STATUS_OK;
#endif
}

fricl_status fricl_context_devices_sized(const fricl_context *ctx,
                                         fricl_context_device *infos,
                                         size_t info_size, size_t capacity,
                                         size_t *count) {
  if (!ctx || !count || (capacity && !infos) ||
      fricl__struct_out_check(info_size, FRICL__MIN_CONTEXT_DEVICE))
    return FRICL_STATUS_INVALID_ARGUMENT;
  return fricl__multi_context_devices(ctx, infos, info_size, capacity, count);
}

/* The exported names, for binaries built before the header's macros: they
 * were compiled with the first layouts. */
fricl_status(fricl_devices_list)(fricl_device_info *infos, size_t capacity,
                                 size_t *count) {
  return fricl_devices_list_sized(infos, FRICL__DEVICE_INFO_SIZE_0_1, capacity,
                                  count);
}

fricl_status(fricl_context_devices)(const fricl_context *ctx,
                                    fricl_context_device *infos,
                                    size_t capacity, size_t *count) {
  return fricl_context_devices_sized(ctx, infos, FRICL__CONTEXT_DEVICE_SIZE_0_4,
                                     capacity, count);
}

void fricl_context_transfers(const fricl_context *ctx, uint64_t *to_device,
                             uint64_t *from_device) {
  fricl__multi_context_transfers(ctx, to_device, from_device);
}
