/*
 * build_launch.h - one launch of the lagged build's kernel on device
 * buffers: what the OpenCL backend's host tier and the benchmark's device
 * tier use.
 */
#ifndef FRICL_OPENCL_BUILD_LAUNCH_H
#define FRICL_OPENCL_BUILD_LAUNCH_H

#include "core/lagged_build.h"
#include "opencl/opencl.h"

/*
 * One launch of the build kernel over contacts [c0, c0 + n) of one group,
 * on device buffers. Per-contact buffers are indexed from contact 0 at
 * their element offset (so a whole array with c0 > 0, or a slice with
 * c0 = 0); NULL buffers are absent inputs / outputs not written. Vertex
 * arrays are whole, at their offsets. nv > 0 makes the kernel check every
 * vertex index against it (device-resident indices); 0 trusts them
 * (validated on the host). The launch waits for `wait` (num_wait events)
 * and, when done is not NULL, signals it. Enqueued only.
 */
typedef struct fricl__build_launch {
  fricl_precision precision;
  int dim;
  fricl_stencil type;
  int physical, blend;
  int mus_mode, muk_mode; /* FRICL__MU_* */
  cl_mem X, Xrest, vmus, vmuk;
  cl_mem vert, pn, pc, dmin, w, mus, muk;
  cl_mem beta, P, N, gN, wout, musout, mukout, status;
  double kappa, dhat, dmin_s, mus_s, muk_s;
  size_t c0, n, nv;
  /* Element offsets, in the order of the buffers above. */
  size_t X_off, Xrest_off, vmus_off, vmuk_off;
  size_t vert_off, pn_off, pc_off, dmin_off, w_off, mus_off, muk_off;
  size_t beta_off, P_off, N_off, gN_off, wout_off, musout_off, mukout_off,
      status_off;
  cl_uint num_wait;
  const cl_event *wait;
  cl_event *done;
} fricl__build_launch;

fricl_status fricl__build_enqueue(fricl__ocl *o, const fricl__build_launch *l);

#endif
