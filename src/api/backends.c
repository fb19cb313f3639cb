/* backends.c - the registry core picks backends from. It lives here, above
 * the backends, because only a layer that may know every backend can list
 * them: core defines the entry and walks the list, each backend defines
 * its entry, and the order below is the order specs are tried in (device
 * lists before any one device; the OpenCL entry takes every spec the
 * others do not, and names a bad one in its error). */
#include <stdio.h>

#include "api/backends.h"
#include "host/host_backend.h"
#include "multi/multi.h"
#if FRICL_WITH_OPENCL
#include "opencl/opencl.h"
#else
#include "core/fault.h"

/* A build without OpenCL: the specs OpenCL would take fail by name. */
static int no_opencl_accepts(const char *spec) {
  (void)spec;
  return 1;
}

static fricl_status no_opencl_create(fricl_context *ctx, const char *spec,
                                     int *found, fricl__backend **out) {
  *found = 0;
  *out = NULL;
  return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                     "device \"%s\": this fricl was built without OpenCL "
                     "(FRICL_WITH_OPENCL=OFF); use auto, host or reference",
                     spec);
}

static const fricl__backend_entry no_opencl_backend = {
    .name = "opencl",
    .mode = FRICL__MODE_OPENCL,
    .accepts = no_opencl_accepts,
    .create = no_opencl_create};
#endif

const fricl__backend_entry *const fricl__backends[] = {
    &fricl__reference_backend,
    &fricl__host_backend,
    &fricl__multi_backend,
#if FRICL_WITH_OPENCL
    &fricl__opencl_backend,
#else
    &no_opencl_backend,
#endif
};

const size_t fricl__backend_count =
    sizeof fricl__backends / sizeof fricl__backends[0];
