/*
 * barrier_eval1.h - one barrier contact through the public API (f64): its
 * value, local gradient and local Hessian, for the barrier tests; the
 * flags and the contact's distance type from be_params.
 */
#ifndef FRICL_TEST_BARRIER_EVAL1_H
#define FRICL_TEST_BARRIER_EVAL1_H

#include "fricl/fricl_barrier.h"

typedef struct {
  double dhat, kappa, dmin, w;
  int physical;
  int as_classified;   /* FRICL_BARRIER_FLAG_AS_CLASSIFIED */
  const int8_t *dtype; /* the contact's distance_type, or NULL */
} be_params;

static inline fricl_status be_eval1(fricl_context *ctx, int type, int dim,
                                    const double *x, const double *xr,
                                    const double *pn, double pc,
                                    const be_params *p, fricl_psd psd,
                                    double *B, double *g, double *H) {
  const int k = fricl_stencil_vertex_count((fricl_stencil)type);
  int32_t vx[4] = {0, 1, 2, 3};
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = (fricl_stencil)type;
  G.count = 1;
  G.vertices = vx;
  G.weight = &p->w;
  G.plane_normal = pn;
  G.plane_offset = &pc;
  G.distance_type = p->dtype;
  G.potential = B;
  G.local_gradient = g;
  G.local_hessian = H;
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.dim = dim;
  b.psd = psd;
  b.flags = (p->physical ? FRICL_BARRIER_FLAG_PHYSICAL : 0u) |
            (p->as_classified ? FRICL_BARRIER_FLAG_AS_CLASSIFIED : 0u);
  b.n_vertices = (size_t)k;
  b.positions = x;
  b.rest_positions = xr;
  b.dhat = p->dhat;
  b.kappa = p->kappa;
  b.dmin = p->dmin;
  b.n_groups = 1;
  b.groups = &G;
  return fricl_barrier_eval(ctx, &b);
}

#endif
