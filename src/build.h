/*
 * build.h - what the lagged build's translation units share: the backends'
 * entry points and the device-level launch that the host tier (and the
 * benchmark) use.
 */
#ifndef FRICL_BUILD_INTERNAL_H
#define FRICL_BUILD_INTERNAL_H

#include "internal.h"

/* Where a group's mu comes from (FRICL_MUS_MODE / FRICL_MUK_MODE). */
#define FRICL__MU_SCALAR 0
#define FRICL__MU_CONTACT 1
#define FRICL__MU_VERTEX 2

/* Output bits of the build kernel (FRICL_OUT_MASK). */
#define FRICL__BO_BETA 0x01u
#define FRICL__BO_P 0x02u
#define FRICL__BO_N 0x04u
#define FRICL__BO_GRAD 0x08u
#define FRICL__BO_W 0x10u
#define FRICL__BO_MUS 0x20u
#define FRICL__BO_MUK 0x40u
#define FRICL__BO_STATUS 0x80u

/* The mu source of one coefficient for one group. */
static inline int fricl__mu_mode(const void *contact, const void *vertex) {
  return contact ? FRICL__MU_CONTACT
                 : (vertex ? FRICL__MU_VERTEX : FRICL__MU_SCALAR);
}

/* Backends. `status[g]` receives group g's per-contact codes (the user's
 * array or scratch); the caller counts them. The batch is validated. */
fricl_status fricl__build_ref(fricl_context *ctx, const fricl_build_batch *b,
                              uint8_t *const *status);
fricl_status fricl__build_cl(fricl_context *ctx, const fricl_build_batch *b,
                             uint8_t *const *status);

/*
 * One launch of the build kernel over contacts [c0, c0 + n) of one group,
 * on device buffers. Per-contact buffers are indexed from contact 0 (so a
 * whole array with c0 > 0, or a slice with c0 = 0); NULL buffers are absent
 * inputs / outputs not written. Vertex arrays are whole. Enqueued only.
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
  size_t c0, n;
} fricl__build_launch;

fricl_status fricl__build_enqueue(fricl_context *ctx,
                                  const fricl__build_launch *l);

#endif
