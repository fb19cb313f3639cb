/*
 * fricl_collisions.cl - the collision build's narrow phase, one broad-phase
 * candidate per work item (kernels/fricl_collision_narrow_math.h, f64): its
 * distance type when its squared distance is below `active` ((dhat +
 * dmin)^2), else -1, as the host build classifies it, bit for bit. The
 * host turns the active ones into collisions in candidate order
 * (src/core/collision_build.c).
 *
 * The host prepends FRICL_EMBEDDED, the defines (the fp64 pragma,
 * FRICL_REAL double, FRICL_FN(name) fricl__cn_##name, FRICL_SQRT sqrt,
 * FRICL_DIM 2 or 3, FRICL_CN_TYPE 0 vv, 1 ev, 2 ee, 3 fv) and the headers
 * in order: fricl_cl_compat.h, fricl_distance_math.h,
 * fricl_collision_narrow_math.h.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#include "fricl_collision_narrow_math.h"
#endif

/* Candidate i of one type: pairs (2 ids each: vv vertex, vertex; ev edge,
 * vertex; ee edge, edge; fv face, vertex), topo the mesh's edges (ev, ee;
 * 2 per edge) or faces (fv; 3 per face), x the positions (FRICL_DIM per
 * vertex), active and apart the thresholds (core/collisions.h); out[i] the
 * type or -1. */
__kernel void fricl_collisions_narrow(__global const int *pairs,
                                      __global const int *topo,
                                      __global const double *x,
                                      const double active, const double apart,
                                      const int n, __global char *out) {
  const int i = (int)get_global_id(0);
  if (i >= n)
    return;
  const int type = FRICL_CN_TYPE, dim = FRICL_DIM;
  const int a = pairs[2 * i], c = pairs[2 * i + 1];
  const int k = type == 0 ? 2 : (type == 1 ? 3 : 4);
  int id[4] = {a, c, c, c};
  if (type == 1) {
    id[0] = topo[2 * a];
    id[1] = topo[2 * a + 1];
  } else if (type == 2) {
    id[0] = topo[2 * a];
    id[1] = topo[2 * a + 1];
    id[2] = topo[2 * c];
    id[3] = topo[2 * c + 1];
  } else if (type == 3) {
    id[0] = topo[3 * a];
    id[1] = topo[3 * a + 1];
    id[2] = topo[3 * a + 2];
  }
  double p[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  FRICL_UNROLL
  for (int j = 0; j < 4; ++j) {
    if (j >= k)
      break;
    FRICL_UNROLL
    for (int d = 0; d < dim; ++d)
      p[j][d] = x[(size_t)id[j] * (size_t)dim + (size_t)d];
  }
  int t;
  if (type == 0)
    t = cn_narrow_vv(p[0], p[1], dim, active);
  else if (type == 1)
    t = cn_narrow_ev(p[2], p[0], p[1], dim, active);
  else if (type == 2)
    t = cn_narrow_ee(p[0], p[1], p[2], p[3], active, apart);
  else
    t = cn_narrow_fv(p[3], p[0], p[1], p[2], active, apart);
  out[i] = (char)t;
}
