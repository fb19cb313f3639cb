/*
 * fricl_kernel_resources.c - test-only tool: build each program that
 * fricl_programs wrote out (OUTDIR/NNN_family.cl with its .opts) on an
 * OpenCL device and print, per kernel, what the implementation reports
 * for it: CL_KERNEL_PRIVATE_MEM_SIZE (the per-work-item private memory,
 * which PoCL reports as the stack its compiled kernel needs) and
 * CL_KERNEL_LOCAL_MEM_SIZE, for docs/kernel-resources.md beside the
 * nvptx64 PTX stacks of tests/gpu/compile_variants.sh.
 *
 *   fricl_kernel_resources DIR [PLATFORM DEVICE]   (default 0 0)
 *
 * One line per kernel and program: KERNEL PROGRAM PRIVATE LOCAL (bytes).
 * Exit 0 when every program built.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  const long n = ftell(f);
  rewind(f);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s)
    s[n] = 0;
  fclose(f);
  return s;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Build DIR/NAME.cl with DIR/NAME.opts and print its kernels' resources;
 * 0 on success. */
static int one(cl_context ctx, cl_device_id dev, const char *dir,
               const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.cl", dir, name);
  char *src = slurp(path);
  snprintf(path, sizeof path, "%s/%s.opts", dir, name);
  char *opts = slurp(path);
  int rc = 1;
  cl_int err = CL_SUCCESS;
  cl_program prog = NULL;
  cl_kernel ks[64];
  cl_uint nk = 0;
  if (!src || !opts) {
    fprintf(stderr, "fricl_kernel_resources: cannot read %s\n", name);
    goto done;
  }
  const char *s = src;
  prog = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  if (err == CL_SUCCESS)
    err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clCreateKernelsInProgram(prog, 64, ks, &nk);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl_kernel_resources: %s: OpenCL error %d\n", name,
            (int)err);
    goto done;
  }
  for (cl_uint i = 0; i < nk; ++i) {
    char kname[256] = "";
    cl_ulong priv = 0, loc = 0;
    clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof kname, kname, NULL);
    clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_PRIVATE_MEM_SIZE,
                             sizeof priv, &priv, NULL);
    clGetKernelWorkGroupInfo(ks[i], dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof loc,
                             &loc, NULL);
    printf("%s %s %llu %llu\n", kname, name, (unsigned long long)priv,
           (unsigned long long)loc);
    clReleaseKernel(ks[i]);
  }
  rc = 0;
done:
  if (prog)
    clReleaseProgram(prog);
  free(src);
  free(opts);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: fricl_kernel_resources DIR [PLATFORM DEVICE]\n");
    return 2;
  }
  const cl_uint want_p = argc == 4 ? (cl_uint)atoi(argv[2]) : 0;
  const cl_uint want_d = argc == 4 ? (cl_uint)atoi(argv[3]) : 0;
  cl_platform_id plats[16];
  cl_uint np = 0, nd = 0;
  cl_device_id devs[16];
  if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || want_p >= np ||
      clGetDeviceIDs(plats[want_p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) !=
          CL_SUCCESS ||
      want_d >= nd) {
    fprintf(stderr, "fricl_kernel_resources: no OpenCL device %u:%u\n", want_p,
            want_d);
    return 1;
  }
  cl_device_id dev = devs[want_d];
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl_kernel_resources: clCreateContext: %d\n", (int)err);
    return 1;
  }
  /* The programs in their written order (NNN_family). */
  DIR *d = opendir(argv[1]);
  if (!d) {
    fprintf(stderr, "fricl_kernel_resources: cannot open %s\n", argv[1]);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".cl") != 0)
      continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown)
        return 1;
      names = grown;
    }
    names[n] = malloc(len - 2);
    if (!names[n])
      return 1;
    memcpy(names[n], e->d_name, len - 3);
    names[n][len - 3] = 0;
    ++n;
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  int failures = 0;
  for (size_t i = 0; i < n; ++i) {
    failures += one(ctx, dev, argv[1], names[i]);
    free(names[i]);
  }
  free(names);
  clReleaseContext(ctx);
  return failures ? 1 : 0;
}
