/* program.c - OpenCL program assembly, build and the per-context cache. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fault.h"
#include "opencl/opencl.h"

const fricl__embedded_file *fricl__embedded_find(const char *name) {
  for (const fricl__embedded_file *f = fricl__embedded_files; f->name; ++f)
    if (strcmp(f->name, name) == 0)
      return f;
  return NULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void fricl__kernel_unbind(cl_kernel k, const cl_uint *idx, int n) {
  const cl_mem none = NULL;
  for (int i = 0; i < n; ++i)
    clSetKernelArg(k, idx[i], sizeof none, &none);
}

void fricl__ocl_program_cache_clear(fricl__ocl *o) {
  fricl__program_entry *e = o->programs;
  while (e) {
    fricl__program_entry *next = e->next;
    if (e->kernel)
      clReleaseKernel(e->kernel);
    if (e->program)
      clReleaseProgram(e->program);
    free(e->key);
    free(e);
    e = next;
  }
  o->programs = NULL;
}

/* Intel's OpenCL CPU runtime (2026.2) crashes inside clBuildProgram, in
 * its vectoriser ("vplan-vec" on fricl_barrier_records: SIGSEGV, every
 * time), when it optimises the barrier kernel; with optimisation off it
 * builds and runs correctly. That one program is built with
 * -cl-opt-disable on that runtime. 1 when it is. */
static int barrier_opt_disable(const fricl__ocl *o, const char *file) {
  if (strcmp(file, "fricl_barrier.cl") != 0 || o->is_gpu)
    return 0;
  cl_platform_id plat = NULL;
  char name[128] = "";
  if (clGetDeviceInfo(o->device, CL_DEVICE_PLATFORM, sizeof plat, &plat,
                      NULL) != CL_SUCCESS ||
      clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) !=
          CL_SUCCESS)
    return 0;
  name[sizeof name - 1] = '\0';
  return strstr(name, "Intel") != NULL;
}

/* The cache key names everything the binary depends on: the defines, the
 * content hash of every embedded part, the kernel and the build options.
 * The device is fixed per context, so it needs no place in the key. */
static char *make_key(const fricl__ocl *o, const char *defines,
                      const fricl__embedded_file *const *parts, int nparts,
                      const char *kernel_name) {
  size_t n = strlen(defines) + strlen(kernel_name) + strlen(o->build_options) +
             32 + 17 * (size_t)nparts;
  char *key = fricl__malloc(n);
  if (!key)
    return NULL;
  int off =
      snprintf(key, n, "%s|%s|%s|", kernel_name, o->build_options, defines);
  for (int i = 0; i < nparts; ++i)
    off += snprintf(key + off, n - (size_t)off, "%016llx",
                    (unsigned long long)parts[i]->hash);
  return key;
}

static fricl_status build_failed(fricl__ocl *o, cl_program prog, cl_int err,
                                 const char *file) {
  size_t len = 0;
  (void)FRICL__CL(clGetProgramBuildInfo)(prog, o->device, CL_PROGRAM_BUILD_LOG,
                                         0, NULL, &len);
  char *log = fricl__malloc(len + 1);
  if (log) {
    if (FRICL__CL(clGetProgramBuildInfo)(prog, o->device, CL_PROGRAM_BUILD_LOG,
                                         len, log, NULL) != CL_SUCCESS)
      len = 0;
    log[len] = '\0';
  }
  fricl_status st =
      fricl__fail(o->base.ctx, FRICL_STATUS_BUILD_FAILED,
                  "building %s failed: %s (%d), options \"%s\"; build log:\n%s",
                  file, fricl__cl_error_name(err), (int)err, o->build_options,
                  log ? log : "(no memory for the build log)");
  free(log);
  return st;
}

fricl_status fricl__ocl_kernel(fricl__ocl *o, const char *file,
                               const char *const *headers,
                               const char *kernel_name, const char *defines,
                               cl_kernel *kernel, double *build_ms) {
  fricl_context *ctx = o->base.ctx;
  enum { MAX_PARTS = 12 };
  const fricl__embedded_file *parts[MAX_PARTS];
  int nparts = 0;
  /* The tables (codes of every enumeration) come first, always. */
  parts[nparts++] = fricl__embedded_find("fricl_tables.h");
  if (!parts[0])
    return fricl__fail(ctx, FRICL_STATUS_INTERNAL,
                       "embedded kernel header fricl_tables.h missing");
  for (int i = 0; headers && headers[i]; ++i) {
    if (nparts >= MAX_PARTS - 1 ||
        !(parts[nparts] = fricl__embedded_find(headers[i])))
      return fricl__fail(ctx, FRICL_STATUS_INTERNAL,
                         "embedded kernel header %s missing", headers[i]);
    ++nparts;
  }
  if (!(parts[nparts] = fricl__embedded_find(file)))
    return fricl__fail(ctx, FRICL_STATUS_INTERNAL, "embedded kernel %s missing",
                       file);
  ++nparts;

  char *key = make_key(o, defines, parts, nparts, kernel_name);
  if (!key)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  for (fricl__program_entry *e = o->programs; e; e = e->next)
    if (strcmp(e->key, key) == 0) {
      free(key);
      *kernel = e->kernel;
      if (build_ms)
        *build_ms = 0.0;
      return FRICL_STATUS_OK;
    }

  /* Fixed order: embedding marker, specialisation defines, headers in the
   * order given, then the kernel file (which skips its own #includes). */
  const char *srcs[MAX_PARTS + 2];
  srcs[0] = "#define FRICL_EMBEDDED 1\n";
  srcs[1] = defines;
  for (int i = 0; i < nparts; ++i)
    srcs[2 + i] = parts[i]->data;
  cl_int err = CL_SUCCESS;
  fricl_status st = FRICL_STATUS_OK;
  cl_program prog = FRICL__CL(clCreateProgramWithSource)(
      o->cl_ctx, (cl_uint)(nparts + 2), srcs, NULL, &err);
  fricl__program_entry *entry = NULL;
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateProgramWithSource");
    goto cleanup;
  }
  char *opts = NULL;
  if (barrier_opt_disable(o, file)) {
    const size_t n = strlen(o->build_options) + sizeof " -cl-opt-disable";
    opts = fricl__malloc(n);
    if (!opts) {
      st = fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
      goto cleanup;
    }
    snprintf(opts, n, "%s -cl-opt-disable", o->build_options);
  }
  const double t0 = now_ms();
  err = FRICL__CL(clBuildProgram)(prog, 1, &o->device,
                                  opts ? opts : o->build_options, NULL, NULL);
  const double t1 = now_ms();
  free(opts);
  if (err != CL_SUCCESS) {
    st = build_failed(o, prog, err, file);
    goto cleanup;
  }
  cl_kernel k = FRICL__CL(clCreateKernel)(prog, kernel_name, &err);
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateKernel");
    goto cleanup;
  }
  size_t local = 1;
  err = fricl__ocl_pick_local_size(o, k, &local);
  if (err != CL_SUCCESS) {
    clReleaseKernel(k);
    st = fricl__fail_cl(ctx, err, "clGetKernelWorkGroupInfo");
    goto cleanup;
  }
  entry = fricl__calloc(1, sizeof *entry);
  if (!entry) {
    clReleaseKernel(k);
    st = fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
    goto cleanup;
  }
  entry->key = key;
  entry->program = prog;
  entry->kernel = k;
  entry->local_size = local;
  entry->build_ms = t1 - t0;
  entry->next = o->programs;
  o->programs = entry;
  *kernel = k;
  if (build_ms)
    *build_ms = entry->build_ms;
  return FRICL_STATUS_OK;

cleanup:
  if (prog)
    clReleaseProgram(prog);
  free(key);
  return st;
}
