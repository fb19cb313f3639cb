/* launch.c - every kernel launch of the library, with an explicit
 * work-group size.
 *
 * Left to the runtime (local_work_size NULL), PoCL's CPU device takes one
 * work-group as large as the whole launch and runs it on one worker
 * thread, whose stack then holds every work item's private arrays: the
 * barrier kernel's overflow it from about 1,000 contacts (SIGSEGV), and a
 * launch that is one work-group uses one core.
 * So each kernel gets a local size of its own, chosen once when it is
 * built (program.c caches it with the kernel), and the global size is
 * rounded up to a multiple of it: every kernel returns early for work
 * items past its count. */
#include <stdint.h>

#include "core/fault.h"
#include "opencl/opencl.h"

/* Kernels here share no local memory (the barrier's edge-edge kernels
 * use it only as per-work-item scratch, with a fixed work-group size), so
 * larger work-groups buy nothing;
 * 256 is within every GPU's limit. On a CPU runtime (one work-group, one
 * thread) smaller ones spread a medium launch over more cores, and keep
 * the stack small where the private memory reported is not what a work
 * item takes (PoCL reports 1 KiB for the barrier kernel, yet about 1,000
 * of its work items overflow a worker's stack). */
#define LOCAL_MAX_GPU 256
#define LOCAL_MAX_CPU 64
/* Private memory of one work-group, as reported: what a CPU runtime puts
 * on one worker thread's stack, well below the usual few MiB. */
#define PRIVATE_BUDGET (512u * 1024u)

cl_int fricl__ocl_pick_local_size(const fricl__ocl *o, cl_kernel k,
                                  size_t *local) {
  size_t wgs = 0, mult = 0;
  cl_ulong priv = 0;
  cl_int err = clGetKernelWorkGroupInfo(k, o->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof wgs, &wgs, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelWorkGroupInfo(k, o->device, CL_KERNEL_PRIVATE_MEM_SIZE,
                                   sizeof priv, &priv, NULL);
  if (err == CL_SUCCESS)
    err = clGetKernelWorkGroupInfo(k, o->device,
                                   CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                   sizeof mult, &mult, NULL);
  /* A kernel compiled for one work-group size (reqd_work_group_size: the
   * barrier's edge-edge kernels, which slice __local scratch by work
   * item) runs with that size. */
  size_t cwg[3] = {0, 0, 0};
  if (err == CL_SUCCESS)
    err = clGetKernelWorkGroupInfo(
        k, o->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwg, cwg, NULL);
  if (err != CL_SUCCESS)
    return err;
  if (cwg[0]) {
    *local = cwg[0];
    return CL_SUCCESS;
  }
  size_t l = o->is_gpu ? LOCAL_MAX_GPU : LOCAL_MAX_CPU;
  if (wgs && l > wgs)
    l = wgs;
  if (priv && l > PRIVATE_BUDGET / priv)
    l = (size_t)(PRIVATE_BUDGET / priv);
  /* Whole multiples of the preferred size where that leaves any: the
   * device's SIMD width (or warp) then has no idle lanes per group. */
  if (mult && l >= mult)
    l -= l % mult;
  *local = l ? l : 1;
  return CL_SUCCESS;
}

/* The cached local size of k, or (a kernel the cache does not hold) one
 * chosen now. */
static cl_int local_size_of(const fricl__ocl *o, cl_kernel k, size_t *local) {
  for (const fricl__program_entry *e = o->programs; e; e = e->next)
    if (e->kernel == k) {
      *local = e->local_size;
      return CL_SUCCESS;
    }
  return fricl__ocl_pick_local_size(o, k, local);
}

cl_int fricl__ocl_launch(fricl__ocl *o, cl_kernel k, size_t n, cl_uint num_wait,
                         const cl_event *wait, cl_event *done) {
  size_t local = 1;
  const cl_int err = local_size_of(o, k, &local);
  if (err != CL_SUCCESS)
    return err;
  /* n = 0 stays 0: the runtime refuses it, as it did before. */
  if (n > SIZE_MAX - (local - 1))
    return CL_INVALID_GLOBAL_WORK_SIZE;
  const size_t global = (n + local - 1) / local * local;
  return FRICL__CL(clEnqueueNDRangeKernel)(o->queue, k, 1, NULL, &global,
                                           &local, num_wait,
                                           num_wait ? wait : NULL, done);
}
