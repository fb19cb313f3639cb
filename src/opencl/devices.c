/* devices.c - OpenCL device enumeration and the FRICL_DEVICE spec rules. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "core/abi.h"
#include "opencl/devices.h"

static pthread_mutex_t cl_init_lock = PTHREAD_MUTEX_INITIALIZER;

void fricl__cl_lock(void) { pthread_mutex_lock(&cl_init_lock); }
void fricl__cl_unlock(void) { pthread_mutex_unlock(&cl_init_lock); }

static void get_str(cl_device_id d, cl_device_info what, char *buf,
                    size_t size) {
  buf[0] = '\0';
  if (clGetDeviceInfo(d, what, size, buf, NULL) != CL_SUCCESS)
    buf[0] = '\0';
  buf[size - 1] = '\0';
}

int fricl__device_has_fp64(cl_device_id d) {
  cl_device_fp_config cfg = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL) !=
      CL_SUCCESS)
    return 0;
  return cfg != 0;
}

/* Visit every device of every platform in index order; stop when visit
 * returns non-zero. Returns the number of devices seen. A missing runtime
 * (no ICD, no platform) is simply zero devices. */
static size_t for_each_device(int (*visit)(void *, int, int, cl_platform_id,
                                           cl_device_id),
                              void *arg) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
    return 0;
  cl_platform_id *plats = calloc(np, sizeof *plats);
  if (!plats || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
    free(plats);
    return 0;
  }
  size_t seen = 0;
  int stop = 0;
  for (cl_uint p = 0; p < np && !stop; ++p) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) !=
            CL_SUCCESS ||
        nd == 0)
      continue;
    cl_device_id *devs = calloc(nd, sizeof *devs);
    if (devs && clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL) ==
                    CL_SUCCESS) {
      for (cl_uint d = 0; d < nd && !stop; ++d) {
        ++seen;
        stop = visit(arg, (int)p, (int)d, plats[p], devs[d]);
      }
    }
    free(devs);
  }
  free(plats);
  return seen;
}

static cl_device_type dev_type(cl_device_id d) {
  cl_device_type t = 0;
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
  return t;
}

typedef struct {
  cl_device_type want; /* 0: match indices */
  int plat, dev;
  fricl__device_choice *out;
} find_arg;

static int find_visit(void *a, int p, int d, cl_platform_id plat,
                      cl_device_id dev) {
  find_arg *f = a;
  const int match =
      f->want ? (dev_type(dev) & f->want) != 0 : (p == f->plat && d == f->dev);
  if (match) {
    f->out->found = 1;
    f->out->platform = plat;
    f->out->device = dev;
    f->out->platform_index = p;
    f->out->device_index = d;
  }
  return match;
}

static void find(cl_device_type want, int plat, int dev,
                 fricl__device_choice *out) {
  find_arg f = {want, plat, dev, out};
  for_each_device(find_visit, &f);
}

/* auto: first GPU, else first CPU. */
static void find_auto(fricl__device_choice *out) {
  find(CL_DEVICE_TYPE_GPU, 0, 0, out);
  if (!out->found)
    find(CL_DEVICE_TYPE_CPU, 0, 0, out);
}

/* A platform or device index: decimal digits only, at most INT_MAX. Not
 * sscanf's %d, whose overflow is undefined (glibc wraps: "opencl:0:4294967297"
 * named device 1) and which also takes signs and blanks. Returns the text
 * after the digits, or NULL. */
static const char *parse_index(const char *s, int *out) {
  long long v = 0;
  const char *c = s;
  for (; *c >= '0' && *c <= '9'; ++c) {
    v = v * 10 + (*c - '0');
    if (v > INT_MAX)
      return NULL;
  }
  if (c == s)
    return NULL;
  *out = (int)v;
  return c;
}

/* Called with the lock held (fricl__ocl_create). */
fricl_status fricl__device_resolve(const char *spec, fricl__device_choice *out,
                                   char *msg, size_t msg_size) {
  memset(out, 0, sizeof *out);
  if (!spec || !*spec)
    spec = "auto";
  if (strcmp(spec, "auto") == 0) {
    find_auto(out);
    out->fell_back = !out->found;
    return FRICL_STATUS_OK;
  }
  if (strcmp(spec, "gpu") == 0 || strcmp(spec, "cpu") == 0) {
    find(spec[0] == 'g' ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU, 0, 0, out);
    if (!out->found) {
      snprintf(msg, msg_size, "device \"%s\": no OpenCL %s device found", spec,
               spec[0] == 'g' ? "GPU" : "CPU");
      return FRICL_STATUS_DEVICE_NOT_FOUND;
    }
    return FRICL_STATUS_OK;
  }
  int p = -1, d = -1;
  const char *rest = NULL;
  if (strncmp(spec, "opencl:", 7) == 0 && (rest = parse_index(spec + 7, &p)) &&
      *rest == ':' && (rest = parse_index(rest + 1, &d)) && *rest == '\0') {
    find(0, p, d, out);
    if (!out->found) {
      snprintf(msg, msg_size,
               "device \"%s\": no OpenCL device %d on platform %d (see "
               "`fricl devices`)",
               spec, d, p);
      return FRICL_STATUS_DEVICE_NOT_FOUND;
    }
    return FRICL_STATUS_OK;
  }
  if (strncmp(spec, "opencl:", 7) == 0) {
    snprintf(msg, msg_size,
             "device \"%s\" is not a device spec: opencl:<platform>:<device> "
             "takes two decimal indices from 0 to %d",
             spec, INT_MAX);
    return FRICL_STATUS_INVALID_ARGUMENT;
  }
  snprintf(msg, msg_size,
           "device \"%s\" is not a device spec: use auto, host, reference, "
           "gpu, cpu or opencl:<platform>:<device>",
           spec);
  return FRICL_STATUS_INVALID_ARGUMENT;
}

typedef struct {
  unsigned char *infos; /* the caller's array, info_size bytes apart */
  size_t info_size, capacity, count;
  fricl__device_choice def;
} list_arg;

static int list_visit(void *a, int p, int d, cl_platform_id plat,
                      cl_device_id dev) {
  list_arg *l = a;
  if (l->count < l->capacity) {
    fricl_device_info info, *i = &info;
    memset(i, 0, sizeof *i);
    i->platform_index = p;
    i->device_index = d;
    const cl_device_type t = dev_type(dev);
    i->is_gpu = (t & CL_DEVICE_TYPE_GPU) != 0;
    i->is_cpu = (t & CL_DEVICE_TYPE_CPU) != 0;
    i->has_fp64 = fricl__device_has_fp64(dev);
    i->is_default = l->def.found && l->def.device == dev;
    cl_uint cu = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    i->compute_units = cu;
    cl_ulong v = 0;
    clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof v, &v, NULL);
    i->global_mem_bytes = v;
    v = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v, NULL);
    i->max_alloc_bytes = v;
    if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof i->platform_name,
                          i->platform_name, NULL) != CL_SUCCESS)
      i->platform_name[0] = '\0';
    i->platform_name[sizeof i->platform_name - 1] = '\0';
    get_str(dev, CL_DEVICE_NAME, i->device_name, sizeof i->device_name);
    get_str(dev, CL_DEVICE_VERSION, i->device_version,
            sizeof i->device_version);
    get_str(dev, CL_DRIVER_VERSION, i->driver_version,
            sizeof i->driver_version);
    fricl__struct_out(l->infos + l->count * l->info_size, l->info_size, i,
                      sizeof *i);
  }
  l->count++;
  return 0;
}

fricl_status fricl__ocl_devices_list(fricl_device_info *infos, size_t info_size,
                                     size_t capacity, size_t *count) {
  if (!count || (capacity > 0 && !infos))
    return FRICL_STATUS_INVALID_ARGUMENT;
  list_arg l = {(unsigned char *)infos, info_size, capacity, 0, {0}};
  fricl__cl_lock();
  find_auto(&l.def);
  for_each_device(list_visit, &l);
  fricl__cl_unlock();
  *count = l.count;
  return FRICL_STATUS_OK;
}

size_t fricl__ocl_gpu_specs(char (*specs)[32], size_t cap) {
  fricl_device_info infos[64];
  size_t n = 0, count = 0;
  fricl__ocl_devices_list(infos, sizeof infos[0], 64, &n);
  for (size_t i = 0; i < n && i < 64 && count < cap; ++i)
    if (infos[i].is_gpu)
      snprintf(specs[count++], 32, "opencl:%d:%d", infos[i].platform_index,
               infos[i].device_index);
  return count;
}
