/*
 * fricl_barrier.cl - the normal-contact barrier, one work item per
 * contact: B, its gradient and its projected Hessian into a record per
 * contact (B, 12 gradient, 144 Hessian reals), which the host adds into
 * the global outputs in contact order (src/host/barrier_host_impl.h).
 *
 * The host prepends FRICL_EMBEDDED, the defines (FRICL_REAL, FRICL_FN,
 * FRICL_SQRT, FRICL_LOG; FRICL_STENCIL and FRICL_DIM, constants that fold
 * through the math), fricl_cl_compat.h, fricl_distance_math.h,
 * fricl_eigen_math.h, fricl_adhesion_math.h, fricl_barrier_math.h and
 * fricl_assembly.h.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_adhesion_math.h"
#include "fricl_assembly.h"
#include "fricl_barrier_math.h"
#include "fricl_cl_compat.h"
#include "fricl_distance_math.h"
#include "fricl_eigen_math.h"
#endif

#define FRICL_BAR_REC 157
/* Which optional arrays are given. */
#define FRICL_BAR_WEIGHT 0x1
#define FRICL_BAR_DMIN 0x2
#define FRICL_BAR_DTYPE 0x4
#define FRICL_BAR_REST 0x8
/* Not an array: FRICL_BARRIER_FLAG_AS_CLASSIFIED, carried in the same
 * argument so that the flag adds no kernel argument (bar_dtype). */
#define FRICL_BAR_AS_CLASSIFIED 0x10

/* ------------------------------------------- one contact, kernel form
 *
 * fricl_barrier_contact (fricl_barrier_math.h) computed the way a GPU can
 * run it: the same building blocks and the same arithmetic, in the same
 * order, but without the 144 + 288 reals of private scratch the host
 * form fills. Those arrays, indexed by run-time values, cannot live in
 * registers: clang gave the per-contact kernels a 3.7 KB per-work-item
 * stack for nvptx64, which a GPU keeps in off-chip memory. Here every
 * loop has a trip count the stencil fixes and is fully unrolled, so every
 * private array is indexed by constants and becomes registers; the local
 * Hessian is never held: each entry is evaluated where it is written
 * (FRICL_BK_STREAM), from the reduced-basis matrix (at most 5 x 5, 9 x 9
 * for mollified edges) or, unprojected, from the distance's closest
 * feature. tests/gpu/compile_variants.sh holds the stack to 512 bytes.
 */
#define FRICL_BK_INLINE static inline __attribute__((always_inline))

/* Round rd of a sweep of bk_project_psd (the pairs of the circle method,
 * each rotated where its entry is above thr). Written out per round by
 * the caller: the whole sweep of a 9 x 9 matrix is too large for the
 * compiler to unroll as one loop. */
FRICL_BK_INLINE void FRICL_FN(bk_round)(const int n, const int rd,
                                        FRICL_REAL *A, FRICL_REAL *V,
                                        FRICL_REAL thr, int *rotated) {
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  const int N = n + (n & 1);
  FRICL_UNROLL
  for (int i = 0; i < N / 2; ++i) {
    int a = N - 1, b = rd;
    if (i > 0) {
      a = (rd + i) % (N - 1);
      b = (rd + N - 1 - i) % (N - 1);
    }
    if (a >= n || b >= n)
      continue;
    const int p = a < b ? a : b, q = a < b ? b : a;
    const FRICL_REAL apq = A[p * n + q];
    if (!(apq * apq > thr))
      continue;
    const FRICL_REAL d = A[q * n + q] - A[p * n + p];
    const FRICL_REAL e = FRICL_R(2) * apq;
    const FRICL_REAL ad = d < zero ? -d : d;
    const FRICL_REAL h = FRICL_SQRT(d * d + e * e);
    const FRICL_REAL u = ad + h;
    const FRICL_REAL iw = one / FRICL_SQRT(FRICL_R(2) * h * u);
    const FRICL_REAL se = d < zero ? -e : e;
    const FRICL_REAL t = se / u, c = u * iw, s = se * iw;
    *rotated = 1;
    A[p * n + p] -= t * apq;
    A[q * n + q] += t * apq;
    A[p * n + q] = zero;
    A[q * n + p] = zero;
    FRICL_UNROLL
    for (int r = 0; r < n; ++r) {
      if (r != p && r != q) {
        const FRICL_REAL arp = A[r * n + p], arq = A[r * n + q];
        const FRICL_REAL np = c * arp - s * arq;
        const FRICL_REAL nq = s * arp + c * arq;
        A[r * n + p] = np;
        A[p * n + r] = np;
        A[r * n + q] = nq;
        A[q * n + r] = nq;
      }
      const FRICL_REAL vrp = V[r * n + p], vrq = V[r * n + q];
      V[r * n + p] = c * vrp - s * vrq;
      V[r * n + q] = s * vrp + c * vrq;
    }
  }
}

/* eig_project_psd (fricl_eigen_math.h) for a constant n <= 9 with every
 * index folded: the same cyclic Jacobi (round-robin pairs, the same
 * thresholds and rotations, the same sweep cap). Each pair's angle is
 * computed just before its rotation instead of all of a round's first:
 * the pairs of a round are disjoint, so no rotation of the round touches
 * another pair's (p, p), (q, q), (p, q) entries and the values are the
 * same. H: n x n, row stride n. */
FRICL_BK_INLINE void FRICL_FN(bk_project_psd)(const int n, FRICL_REAL *H,
                                              int mode) {
  if (mode == 0)
    return;
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  const FRICL_REAL eps = sizeof(FRICL_REAL) == 8
                             ? FRICL_R(1) / FRICL_R(4503599627370496)
                             : FRICL_R(1) / FRICL_R(8388608);
  FRICL_REAL A[81], V[81];
  /* (Loops over rows and columns, not n n entries: the compiler would
   * not unroll 81 iterations in full.) */
  FRICL_UNROLL
  for (int i = 0; i < n; ++i)
    FRICL_UNROLL
  for (int j = 0; j < n; ++j) {
    A[i * n + j] = H[i * n + j];
    V[i * n + j] = i == j ? one : zero;
  }
  /* The eigenvalues are A's diagonal times scale (eig_jacobi scales the
   * matrix to entries of at most 1; it leaves a matrix of one entry, of
   * zeros or with NaN entries as it is). */
  FRICL_REAL scale = one;
  FRICL_REAL amax = zero;
  FRICL_UNROLL
  for (int i = 0; i < n; ++i)
    FRICL_UNROLL
  for (int j = 0; j < n; ++j) {
    const FRICL_REAL a = A[i * n + j] < zero ? -A[i * n + j] : A[i * n + j];
    amax = a > amax ? a : amax;
  }
  if (n >= 2 && amax > zero) {
    scale = amax;
    const FRICL_REAL isc = one / amax;
    FRICL_REAL fro = zero;
    FRICL_UNROLL
    for (int i = 0; i < n; ++i)
      FRICL_UNROLL
    for (int j = 0; j < n; ++j) {
      A[i * n + j] *= isc;
      fro += A[i * n + j] * A[i * n + j];
    }
    const FRICL_REAL thr = (FRICL_R(1000) * eps) * (FRICL_R(1000) * eps) * fro /
                           FRICL_R(n * (n - 1) / 2);
    const int N = n + (n & 1);
    for (int sweep = 0; sweep < FRICL_EIG_MAX_SWEEPS; ++sweep) {
      int rotated = 0;
      /* N - 1 <= 9 rounds. */
#define FRICL_BK_ROUND(rd)                                                     \
  if ((rd) < N - 1)                                                            \
  FRICL_FN(bk_round)(n, rd, A, V, thr, &rotated)
      FRICL_BK_ROUND(0);
      FRICL_BK_ROUND(1);
      FRICL_BK_ROUND(2);
      FRICL_BK_ROUND(3);
      FRICL_BK_ROUND(4);
      FRICL_BK_ROUND(5);
      FRICL_BK_ROUND(6);
      FRICL_BK_ROUND(7);
      FRICL_BK_ROUND(8);
#undef FRICL_BK_ROUND
      if (!rotated)
        break;
    }
  }
  const FRICL_REAL f = mode == 2 ? FRICL_R(2) : FRICL_R(1);
  FRICL_UNROLL
  for (int i = 0; i < n; ++i) {
    const FRICL_REAL lam = A[i * n + i] * scale;
    if (!(lam < FRICL_R(0)))
      continue;
    const FRICL_REAL fl = f * lam;
    FRICL_UNROLL
    for (int r = 0; r < n; ++r) {
      const FRICL_REAL vr = fl * V[r * n + i];
      FRICL_UNROLL
      for (int s = 0; s < n; ++s) {
        /* from r on; a constant trip count, which the compiler unrolls
         * within the unrolled loop over r */
        if (s < r)
          continue;
        H[r * n + s] -= vr * V[s * n + i];
        H[s * n + r] = H[r * n + s];
      }
    }
  }
}

/* Where the local Hessian goes, entry by entry in row-major order: lh
 * (row stride ndof) and rh (row stride 12) where nonzero, and t = H p
 * (the host's order: each row's sum in column order) where dot. */
typedef struct FRICL_FN(bk_sink) {
  __global FRICL_REAL *lh, *rh;
  int dot;
  FRICL_REAL p[12], t[12];
} FRICL_FN(bk_sink);

FRICL_BK_INLINE void FRICL_FN(bk_put)(FRICL_FN(bk_sink) * k, int ndof, int u,
                                      int v, FRICL_REAL h) {
  if (k->lh)
    k->lh[u * ndof + v] = h;
  if (k->rh)
    k->rh[u * 12 + v] = h;
  if (k->dot)
    k->t[u] = (v == 0 ? FRICL_R(0) : k->t[u]) + h * k->p[v];
}

/* Every entry (u, v) of the symmetric ndof x ndof Hessian, EXPR its
 * value in terms of lo <= hi (the upper triangle, which is what the host
 * computes and mirrors). */
#define FRICL_BK_STREAM(sink, ndof, EXPR)                                      \
  FRICL_UNROLL                                                                 \
  for (int u_ = 0; u_ < (ndof); ++u_)                                          \
    FRICL_UNROLL                                                               \
  for (int v_ = 0; v_ < (ndof); ++v_) {                                        \
    const int lo = u_ < v_ ? u_ : v_, hi = u_ < v_ ? v_ : u_;                  \
    FRICL_FN(bk_put)(sink, ndof, u_, v_, (EXPR));                              \
  }

/* The distance's unprojected Hessian (dist_hessian_full; for PV 2 n n^T /
 * |n|^2), as its parts: d^2 and the gradient as dist_contact gives them,
 * the closest feature's c, F and F G^-1 (fm[u][a] = sum_b Gi_ab F_bu). */
typedef struct FRICL_FN(bk_full) {
  int nf;
  FRICL_REAL c[4], F[2][12], fm[12][2], pn[3], nn;
} FRICL_FN(bk_full);

FRICL_BK_INLINE FRICL_REAL FRICL_FN(bk_dist_full)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *pn, FRICL_REAL pc,
    int dtype, FRICL_REAL *grad, FRICL_FN(bk_full) * h) {
  const FRICL_REAL two = FRICL_R(2);
  if (type == FRICL_D_PV) {
    const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
    const FRICL_REAL s = FRICL_FN(g_dot)(pn, x, dim) + pc;
    const FRICL_REAL sn = s / nn;
    FRICL_UNROLL
    for (int i = 0; i < dim; ++i) {
      grad[i] = two * (sn * pn[i]);
      h->pn[i] = pn[i];
    }
    h->nn = nn;
    return s * s / nn;
  }
  FRICL_FN(dist_feature) f;
  FRICL_FN(dist_clear)(&f);
  const int k = type == FRICL_D_VV ? 2 : type == FRICL_D_EV ? 3 : 4;
  if (type == FRICL_D_VV)
    FRICL_FN(dist_pp)(&f, x, dim, 0, 1);
  else if (type == FRICL_D_EV)
    FRICL_FN(dist_pe)(&f, x, dim, 0, 1, 2, dtype);
  else if (type == FRICL_D_EE)
    FRICL_FN(dist_ee)(&f, x, dtype);
  else
    FRICL_FN(dist_pt)(&f, x, dtype);
  FRICL_UNROLL
  for (int i = 0; i < k; ++i) {
    h->c[i] = f.c[i];
    FRICL_UNROLL
    for (int s = 0; s < dim; ++s)
      grad[i * dim + s] = two * (f.c[i] * f.r[s]);
  }
  h->nf = f.nf;
  if (f.nf == 0)
    return f.d2;
  FRICL_REAL J[2][3];
  FRICL_FN(dist_jacobian)(&f, k, dim, x, J);
  FRICL_UNROLL
  for (int a = 0; a < 2; ++a)
    FRICL_UNROLL
  for (int i = 0; i < k; ++i)
    FRICL_UNROLL
  for (int s = 0; s < dim; ++s)
    h->F[a][i * dim + s] = f.dc[a][i] * f.r[s] + f.c[i] * J[a][s];
  FRICL_REAL Gi[2][2];
  FRICL_FN(dist_gram_inverse)(f.nf, dim, J, Gi);
  FRICL_UNROLL
  for (int u = 0; u < k * dim; ++u)
    FRICL_UNROLL
  for (int a = 0; a < 2; ++a) {
    FRICL_REAL v = FRICL_R(0);
    FRICL_UNROLL
    for (int b = 0; b < 2; ++b)
      if (b < f.nf)
        v += Gi[a][b] * h->F[b][u];
    h->fm[u][a] = v;
  }
  return f.d2;
}

/* Entry (lo, hi), lo <= hi, of that Hessian, as dist_hessian_full forms
 * it: 2 c_i c_j on the diagonal of the vertex block, less 2 F G^-1 F^T. */
FRICL_BK_INLINE FRICL_REAL FRICL_FN(bk_full_entry)(int type, int dim,
                                                   const FRICL_FN(bk_full) * h,
                                                   int lo, int hi) {
  const FRICL_REAL two = FRICL_R(2);
  if (type == FRICL_D_PV)
    return two * (h->pn[lo] * h->pn[hi] / h->nn);
  const int i = lo / dim, s = lo % dim, j = hi / dim, t = hi % dim;
  FRICL_REAL e = s == t ? two * (h->c[i] * h->c[j]) : FRICL_R(0);
  if (h->nf == 0)
    return e;
  FRICL_REAL v = FRICL_R(0);
  FRICL_UNROLL
  for (int a = 0; a < 2; ++a)
    if (a < h->nf)
      v += h->F[a][lo] * h->fm[hi][a];
  return e - two * v;
}

/* dist_expand's parts (Q^T M Q by vertex blocks: c, the c block in the
 * original axes Mc, w and z) and its entry (lo, hi), lo <= hi. */
typedef struct FRICL_FN(bk_exp) {
  FRICL_REAL c[4], rh[3], w[4][3], z[4][4], Mc[3][3];
} FRICL_FN(bk_exp);

FRICL_BK_INLINE void FRICL_FN(bk_expand_parts)(int k, int dim, int nf,
                                               const FRICL_REAL *bas,
                                               const FRICL_REAL *M, int ld,
                                               FRICL_FN(bk_exp) * x) {
  const FRICL_REAL *E = bas + 15;
  FRICL_REAL EM[3][3], y[4][2];
  FRICL_UNROLL
  for (int i = 0; i < k; ++i)
    x->c[i] = bas[i];
  FRICL_UNROLL
  for (int s = 0; s < dim; ++s)
    x->rh[s] = bas[12 + s];
  FRICL_UNROLL
  for (int s = 0; s < dim; ++s)
    FRICL_UNROLL
  for (int t = 0; t < dim; ++t) {
    FRICL_REAL v = FRICL_R(0);
    FRICL_UNROLL
    for (int q = 0; q < dim; ++q)
      v += E[s * 3 + q] * M[q * ld + t];
    EM[s][t] = v;
  }
  FRICL_UNROLL
  for (int s = 0; s < dim; ++s)
    FRICL_UNROLL
  for (int t = s; t < dim; ++t) {
    FRICL_REAL v = FRICL_R(0);
    FRICL_UNROLL
    for (int q = 0; q < dim; ++q)
      v += EM[s][q] * E[t * 3 + q];
    x->Mc[s][t] = v;
    x->Mc[t][s] = v;
  }
  FRICL_UNROLL
  for (int i = 0; i < k; ++i) {
    FRICL_REAL wf[3];
    FRICL_UNROLL
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = FRICL_R(0);
      FRICL_UNROLL
      for (int a = 0; a < nf; ++a)
        v += M[s * ld + dim + a] * bas[4 + 4 * a + i];
      wf[s] = v;
    }
    FRICL_UNROLL
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = FRICL_R(0);
      FRICL_UNROLL
      for (int q = 0; q < dim; ++q)
        v += E[s * 3 + q] * wf[q];
      x->w[i][s] = v;
    }
    FRICL_UNROLL
    for (int b = 0; b < nf; ++b) {
      FRICL_REAL v = FRICL_R(0);
      FRICL_UNROLL
      for (int a = 0; a < nf; ++a)
        v += bas[4 + 4 * a + i] * M[(dim + a) * ld + dim + b];
      y[i][b] = v;
    }
  }
  FRICL_UNROLL
  for (int i = 0; i < k; ++i)
    FRICL_UNROLL
  for (int j = i; j < k; ++j) {
    FRICL_REAL v = FRICL_R(0);
    FRICL_UNROLL
    for (int b = 0; b < nf; ++b)
      v += y[i][b] * bas[4 + 4 * b + j];
    x->z[i][j] = v;
  }
}

FRICL_BK_INLINE FRICL_REAL FRICL_FN(bk_expand_entry)(int dim,
                                                     const FRICL_FN(bk_exp) * x,
                                                     int lo, int hi) {
  const int i = lo / dim, s = lo % dim, j = hi / dim, t = hi % dim;
  const FRICL_REAL cij = x->c[i] * x->c[j];
  return cij * x->Mc[s][t] + x->c[i] * x->w[j][s] * x->rh[t] +
         x->c[j] * x->w[i][t] * x->rh[s] + x->z[i][j] * x->rh[s] * x->rh[t];
}

/* The mollified edge-edge Hessian's entry (lo, hi), lo <= hi, as
 * fricl_barrier_contact forms it. */
FRICL_BK_INLINE FRICL_REAL FRICL_FN(bk_moll_entry)(
    int type, int dim, const FRICL_FN(bk_full) * hf, const FRICL_REAL *gx,
    const FRICL_REAL *blk, const FRICL_REAL *gd, FRICL_REAL mp, FRICL_REAL mpp,
    FRICL_REAL s0, FRICL_REAL s1, FRICL_REAL wm, FRICL_REAL fp, FRICL_REAL fpp,
    int live, int lo, int hi) {
  const FRICL_REAL hm =
      mpp * gx[lo] * gx[hi] + mp * FRICL_FN(bar_ee_cross_hess)(blk, lo, hi);
  FRICL_REAL h = s0 * hm;
  if (live)
    h += s1 * (gd[lo] * (mp * gx[hi]) + (mp * gx[lo]) * gd[hi]) +
         wm * fpp * gd[lo] * gd[hi] +
         wm * fp * FRICL_FN(bk_full_entry)(type, dim, hf, lo, hi);
  return h;
}

/* The mollified edges' scratch in __local memory (which is not part of
 * the per-work-item stack: on an NVIDIA GPU it is on-chip shared memory).
 * An edge-edge kernel runs in work-groups of FRICL_BK_WG work items
 * (reqd_work_group_size; launch.c takes it from
 * CL_KERNEL_COMPILE_WORK_GROUP_SIZE), each with FRICL_BK_LN reals of a
 * __local array, interleaved (slot i of work item l at i * FRICL_BK_WG +
 * l): M9 in slots [0, 81), the Jacobi solve's A and V in [81, 162) and
 * [162, 243), and before them the mollified Hessian's upper triangle
 * (Hm, 12 x 12 indexing) in [81, 225), which is dead once M9 is formed.
 * 243 reals x 16: 31,104 bytes in f64, within OpenCL's 32 KiB minimum. */
#define FRICL_BK_WG 16
#define FRICL_BK_LN 243
#define FRICL_BK_L(i) ls[(i)*FRICL_BK_WG]
#define FRICL_BK_M9(i) FRICL_BK_L(i)
#define FRICL_BK_A(i) FRICL_BK_L(81 + (i))
#define FRICL_BK_V(i) FRICL_BK_L(162 + (i))
#define FRICL_BK_HM(i) FRICL_BK_L(81 + (i))
#if FRICL_STENCIL == 2
#define FRICL_BK_WG_ATTR                                                       \
  __attribute__((reqd_work_group_size(FRICL_BK_WG, 1, 1)))
#else
#define FRICL_BK_WG_ATTR
#endif

/* eig_project_psd (fricl_eigen_math.h) of the 9 x 9 M9 in the __local
 * scratch, with its eig_jacobi: the same arithmetic in the same order,
 * in loop form (see bk_project_psd for the angle of each pair computed
 * just before its rotation). */
FRICL_BK_INLINE void FRICL_FN(bk_lproject9)(__local FRICL_REAL *ls, int mode) {
  if (mode == 0)
    return;
  const int n = 9;
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  const FRICL_REAL eps = sizeof(FRICL_REAL) == 8
                             ? FRICL_R(1) / FRICL_R(4503599627370496)
                             : FRICL_R(1) / FRICL_R(8388608);
  for (int i = 0; i < n * n; ++i)
    FRICL_BK_A(i) = FRICL_BK_M9(i);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      FRICL_BK_V(i * n + j) = i == j ? one : zero;
  FRICL_REAL amax = zero;
  for (int i = 0; i < n * n; ++i) {
    const FRICL_REAL a = FRICL_BK_A(i) < zero ? -FRICL_BK_A(i) : FRICL_BK_A(i);
    amax = a > amax ? a : amax;
  }
  if (amax > zero) {
    const FRICL_REAL isc = one / amax;
    FRICL_REAL fro = zero;
    for (int i = 0; i < n * n; ++i) {
      FRICL_BK_A(i) *= isc;
      fro += FRICL_BK_A(i) * FRICL_BK_A(i);
    }
    const FRICL_REAL thr = (FRICL_R(1000) * eps) * (FRICL_R(1000) * eps) * fro /
                           FRICL_R(n * (n - 1) / 2);
    const int N = n + (n & 1);
    for (int sweep = 0; sweep < FRICL_EIG_MAX_SWEEPS; ++sweep) {
      int rotated = 0;
      for (int rd = 0; rd < N - 1; ++rd)
        for (int i = 0; i < N / 2; ++i) {
          int a = N - 1, b = rd;
          if (i > 0) {
            a = (rd + i) % (N - 1);
            b = (rd + N - 1 - i) % (N - 1);
          }
          if (a >= n || b >= n)
            continue;
          const int p = a < b ? a : b, q = a < b ? b : a;
          const FRICL_REAL apq = FRICL_BK_A(p * n + q);
          if (!(apq * apq > thr))
            continue;
          const FRICL_REAL d = FRICL_BK_A(q * n + q) - FRICL_BK_A(p * n + p);
          const FRICL_REAL e = FRICL_R(2) * apq;
          const FRICL_REAL ad = d < zero ? -d : d;
          const FRICL_REAL h = FRICL_SQRT(d * d + e * e);
          const FRICL_REAL u = ad + h;
          const FRICL_REAL iw = one / FRICL_SQRT(FRICL_R(2) * h * u);
          const FRICL_REAL se = d < zero ? -e : e;
          const FRICL_REAL t = se / u, c = u * iw, s = se * iw;
          rotated = 1;
          FRICL_BK_A(p * n + p) -= t * apq;
          FRICL_BK_A(q * n + q) += t * apq;
          FRICL_BK_A(p * n + q) = zero;
          FRICL_BK_A(q * n + p) = zero;
          for (int r = 0; r < n; ++r) {
            if (r != p && r != q) {
              const FRICL_REAL arp = FRICL_BK_A(r * n + p);
              const FRICL_REAL arq = FRICL_BK_A(r * n + q);
              const FRICL_REAL np = c * arp - s * arq;
              const FRICL_REAL nq = s * arp + c * arq;
              FRICL_BK_A(r * n + p) = np;
              FRICL_BK_A(p * n + r) = np;
              FRICL_BK_A(r * n + q) = nq;
              FRICL_BK_A(q * n + r) = nq;
            }
            const FRICL_REAL vrp = FRICL_BK_V(r * n + p);
            const FRICL_REAL vrq = FRICL_BK_V(r * n + q);
            FRICL_BK_V(r * n + p) = c * vrp - s * vrq;
            FRICL_BK_V(r * n + q) = s * vrp + c * vrq;
          }
        }
      if (!rotated)
        break;
    }
    for (int i = 0; i < n; ++i)
      FRICL_BK_A(i * n + i) *= amax;
  }
  const FRICL_REAL f = mode == 2 ? FRICL_R(2) : FRICL_R(1);
  for (int i = 0; i < n; ++i) {
    const FRICL_REAL lam = FRICL_BK_A(i * n + i);
    if (!(lam < FRICL_R(0)))
      continue;
    const FRICL_REAL fl = f * lam;
    for (int r = 0; r < n; ++r) {
      const FRICL_REAL vr = fl * FRICL_BK_V(r * n + i);
      for (int s = r; s < n; ++s) {
        FRICL_BK_M9(r * n + s) -= vr * FRICL_BK_V(s * n + i);
        FRICL_BK_M9(s * n + r) = FRICL_BK_M9(r * n + s);
      }
    }
  }
}

/* fricl_barrier_contact with the Hessian (want >= 2) streamed into sink
 * instead of held. */
FRICL_BK_INLINE FRICL_REAL FRICL_FN(bk_contact)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *xr,
    const FRICL_REAL *pn, FRICL_REAL pc, int dtype, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w, int physical, int fn,
    const FRICL_REAL *adh, int psd, int want, FRICL_REAL *g,
    FRICL_FN(bk_sink) * sink, __local FRICL_REAL *ls) {
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  const int nb = type == FRICL_D_PV   ? 1
                 : type == FRICL_D_VV ? dim
                 : type == FRICL_D_EV ? dim + 1
                                      : dim + 2;
  int moll = 0;
  FRICL_REAL m = FRICL_R(1), mp = FRICL_R(0), mpp = FRICL_R(0);
  FRICL_REAL gx[12], blk[27];
  if (type == FRICL_D_EE) {
    const FRICL_REAL eps_x = FRICL_FN(bar_ee_eps_x)(xr);
    const FRICL_REAL xm = FRICL_FN(bar_ee_cross)(x, gx, blk);
    moll = FRICL_FN(bar_ee_mollify)(xm, eps_x, &m, &mp, &mpp);
  }
  FRICL_REAL gd[12], bas[FRICL_DIST_BAS], gr[FRICL_DIST_NB] = {0, 0, 0, 0, 0},
                                          Hr[FRICL_DIST_NB * FRICL_DIST_NB];
  FRICL_FN(bk_full) hf;
  /* The unprojected distance Hessian where the reduced basis is not used
   * (PSD none, the mollified edges), as the host forms it in full. */
  const int full = want >= 2 && (psd == 0 || moll);
  const FRICL_REAL d2 =
      full ? FRICL_FN(bk_dist_full)(type, dim, x, pn, pc, dtype, gd, &hf)
           : FRICL_FN(dist_contact)(type, dim, x, pn, pc, dtype, gd, want >= 2,
                                    0, bas, gr, Hr);
  FRICL_REAL fv[3];
  FRICL_FN(bar_normal_fn)(fn, d2, dmin, dhat, kappa, physical, adh, fv);
  const FRICL_REAL f = fv[0], fp = fv[1], fpp = fv[2];
  const FRICL_REAL B = w * m * f;
  if (want < 1)
    return B;
  FRICL_FN(bar_gradient)(ndof, moll, w, m, mp, f, fp, gx, gd, g);
  if (want < 2)
    return B;
  if (!moll && full) {
    const FRICL_REAL s2 = w * fpp, s1 = w * fp;
    FRICL_BK_STREAM(sink, ndof,
                    s2 * gd[lo] * gd[hi] +
                        s1 * FRICL_FN(bk_full_entry)(type, dim, &hf, lo, hi));
    return B;
  }
  if (!moll) {
    const FRICL_REAL s2 = w * fpp, s1 = w * fp;
    FRICL_REAL M[FRICL_DIST_NB * FRICL_DIST_NB];
    FRICL_UNROLL
    for (int a = 0; a < nb; ++a)
      FRICL_UNROLL
    for (int c = a; c < nb; ++c) {
      const FRICL_REAL h = s2 * gr[a] * gr[c] + s1 * Hr[a * FRICL_DIST_NB + c];
      M[a * nb + c] = h;
      M[c * nb + a] = h;
    }
    /* The pre-rotation of fricl_barrier_contact (two free parameters). */
    FRICL_REAL gc[2] = {FRICL_R(1), FRICL_R(1)}, gs[2] = {0, 0};
    if (nb == 5) {
      const FRICL_REAL a = M[8], b9 = M[9], c = M[13], d = M[14];
      const FRICL_REAL sx[2] = {a * a + b9 * b9, a * a + c * c};
      const FRICL_REAL sy[2] = {a * c + b9 * d, a * b9 + c * d};
      const FRICL_REAL sz[2] = {c * c + d * d, b9 * b9 + d * d};
      FRICL_UNROLL
      for (int e = 0; e < 2; ++e)
        FRICL_FN(bar_rot2)(sx[e], sy[e], sz[e], gc + e, gs + e);
      FRICL_FN(bar_rotate)(M, 1, 2, gc[0], gs[0]);
      FRICL_FN(bar_rotate)(M, 3, 4, gc[1], gs[1]);
    }
    FRICL_FN(bk_project_psd)(nb, M, psd);
    if (nb == 5) {
      FRICL_FN(bar_rotate)(M, 1, 2, gc[0], -gs[0]);
      FRICL_FN(bar_rotate)(M, 3, 4, gc[1], -gs[1]);
    }
    if (type == FRICL_D_PV) {
      FRICL_BK_STREAM(sink, ndof, M[0] * bas[12 + lo] * bas[12 + hi]);
    } else {
      FRICL_FN(bk_exp) ex;
      FRICL_FN(bk_expand_parts)(k, dim, nb - dim, bas, M, nb, &ex);
      FRICL_BK_STREAM(sink, ndof, FRICL_FN(bk_expand_entry)(dim, &ex, lo, hi));
    }
    return B;
  }
  /* The mollified edges (EE: k dim = 12): the Hessian's upper triangle,
   * each entry evaluated once. */
  const FRICL_REAL s0 = w * f, s1 = w * fp, wm = w * m;
  const int live = m > FRICL_R(0);
  FRICL_UNROLL
  for (int u = 0; u < 12; ++u)
    FRICL_UNROLL
  for (int v = 0; v < 12; ++v)
    if (v >= u)
      FRICL_BK_HM(u * 12 + v) =
          FRICL_FN(bk_moll_entry)(type, dim, &hf, gx, blk, gd, mp, mpp, s0, s1,
                                  wm, fp, fpp, live, u, v);
  if (psd == 0 || (!live && w * f >= FRICL_R(0))) {
    FRICL_BK_STREAM(sink, ndof, FRICL_BK_HM(lo * 12 + hi));
    return B;
  }
  /* M9 = P H P^T in the 9 dimensions orthogonal to the translations (see
   * fricl_barrier_contact), one row of T = P H at a time. */
  const FRICL_REAL h2 = FRICL_R(1) / FRICL_SQRT(FRICL_R(2));
  const FRICL_REAL h1 = FRICL_R(1) / FRICL_R(2);
  FRICL_UNROLL
  for (int a = 0; a < 9; ++a) {
    const int sa = a % 3, part = a / 3;
    FRICL_REAL t[12];
    FRICL_UNROLL
    for (int v = 0; v < 12; ++v) {
#define FRICL_BK_H(r) FRICL_BK_HM((r) < v ? (r)*12 + v : v * 12 + (r))
      if (part == 0)
        t[v] = h2 * (FRICL_BK_H(3 + sa) - FRICL_BK_H(sa));
      else if (part == 1)
        t[v] = h2 * (FRICL_BK_H(9 + sa) - FRICL_BK_H(6 + sa));
      else
        t[v] = h1 * ((FRICL_BK_H(sa) + FRICL_BK_H(3 + sa)) -
                     (FRICL_BK_H(6 + sa) + FRICL_BK_H(9 + sa)));
#undef FRICL_BK_H
    }
    FRICL_UNROLL
    for (int s = 0; s < 3; ++s) {
      const FRICL_REAL m0 = h2 * (t[3 + s] - t[s]);
      const FRICL_REAL m1 = h2 * (t[9 + s] - t[6 + s]);
      const FRICL_REAL m2 = h1 * ((t[s] + t[3 + s]) - (t[6 + s] + t[9 + s]));
      if (s >= a)
        FRICL_BK_M9(a * 9 + s) = m0;
      if (3 + s >= a)
        FRICL_BK_M9(a * 9 + 3 + s) = m1;
      if (6 + s >= a)
        FRICL_BK_M9(a * 9 + 6 + s) = m2;
    }
  }
  FRICL_UNROLL
  for (int a = 0; a < 9; ++a)
    FRICL_UNROLL
  for (int c = 0; c < a; ++c)
    FRICL_BK_M9(a * 9 + c) = FRICL_BK_M9(c * 9 + a);
  /* Projected in __local memory, in loop form: unrolled, the 9 x 9 solve
   * took the compiler ten times as long. */
  FRICL_FN(bk_lproject9)(ls, psd);
  const int PA[4][2] = {{0, 6}, {0, 6}, {3, 6}, {3, 6}};
  const FRICL_REAL PC[4][2] = {{-h2, h1}, {h2, h1}, {-h2, -h1}, {h2, -h1}};
#define FRICL_BK_P(lo, hi)                                                     \
  ((PC[(lo) / 3][0] * PC[(hi) / 3][0]) *                                       \
       FRICL_BK_M9((PA[(lo) / 3][0] + (lo) % 3) * 9 + PA[(hi) / 3][0] +        \
                   (hi) % 3) +                                                 \
   (PC[(lo) / 3][0] * PC[(hi) / 3][1]) *                                       \
       FRICL_BK_M9((PA[(lo) / 3][0] + (lo) % 3) * 9 + PA[(hi) / 3][1] +        \
                   (hi) % 3) +                                                 \
   (PC[(lo) / 3][1] * PC[(hi) / 3][0]) *                                       \
       FRICL_BK_M9((PA[(lo) / 3][1] + (lo) % 3) * 9 + PA[(hi) / 3][0] +        \
                   (hi) % 3) +                                                 \
   (PC[(lo) / 3][1] * PC[(hi) / 3][1]) *                                       \
       FRICL_BK_M9((PA[(lo) / 3][1] + (lo) % 3) * 9 + PA[(hi) / 3][1] +        \
                   (hi) % 3))
  FRICL_BK_STREAM(sink, ndof, FRICL_R(0) + FRICL_BK_P(lo, hi));
#undef FRICL_BK_P
  return B;
}

__kernel FRICL_BK_WG_ATTR void fricl_barrier_records(
    ulong n, int psd, int physical, int want, int given, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin0, __global const FRICL_REAL *X,
    __global const FRICL_REAL *Xr, __global const int *vert,
    __global const FRICL_REAL *weight, __global const FRICL_REAL *dmin_a,
    __global const FRICL_REAL *pn_a, __global const FRICL_REAL *pc_a,
    __global const char *dtype_a, __global FRICL_REAL *rec, int fn,
    FRICL_REAL adh_p, FRICL_REAL adh_a, FRICL_REAL adh_y, FRICL_REAL adh_e) {
#if FRICL_STENCIL == 2
  __local FRICL_REAL scratch[FRICL_BK_WG * FRICL_BK_LN];
  __local FRICL_REAL *ls = scratch + get_local_id(0);
#else
  __local FRICL_REAL *ls = 0;
#endif
  const ulong c = get_global_id(0);
  if (c >= n)
    return;
  const int dim = FRICL_DIM, type = FRICL_STENCIL;
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  FRICL_REAL x[12], xr[12], pn[3] = {0, 0, 0}, pc = FRICL_R(0);
  for (int i = 0; i < k; ++i) {
    const ulong v = (ulong)vert[c * (ulong)k + (ulong)i];
    for (int s = 0; s < dim; ++s) {
      x[i * dim + s] = X[v * (ulong)dim + (ulong)s];
      xr[i * dim + s] = (given & FRICL_BAR_REST) ? Xr[v * (ulong)dim + (ulong)s]
                                                 : x[i * dim + s];
    }
  }
  if (type == FRICL_D_PV) {
    for (int s = 0; s < dim; ++s)
      pn[s] = pn_a[c * (ulong)dim + (ulong)s];
    pc = pc_a[c];
  }
  const FRICL_REAL w = (given & FRICL_BAR_WEIGHT) ? weight[c] : FRICL_R(1);
  const FRICL_REAL dmin = (given & FRICL_BAR_DMIN) ? dmin_a[c] : dmin0;
  const int dtype = FRICL_FN(bar_dtype)(
      type, (given & FRICL_BAR_DTYPE) ? (int)dtype_a[c] : -1,
      (given & FRICL_BAR_AS_CLASSIFIED) != 0);
  __global FRICL_REAL *R = rec + c * (ulong)FRICL_BAR_REC;
  FRICL_REAL g[12];
  FRICL_FN(bk_sink) sink;
  sink.lh = R + 13;
  sink.rh = 0;
  sink.dot = 0;
  const FRICL_REAL adh[4] = {adh_p, adh_a, adh_y, adh_e};
  const FRICL_REAL B =
      FRICL_FN(bk_contact)(type, dim, x, xr, pn, pc, dtype, dhat, kappa, dmin,
                           w, physical, fn, adh, psd, want, g, &sink, ls);
  R[0] = B;
  if (want >= 1)
    FRICL_UNROLL
  for (int i = 0; i < ndof; ++i)
    R[1 + i] = g[i];
}

/* ------------------------------------------------------ the cl_mem tier
 *
 * fricl_barrier_contacts: one work item per contact of one group slice,
 * reading the caller's buffers at their element offsets, writing the
 * group's per-contact outputs and, for the gathers, a record per contact
 * at rec[(rec_base + c) * rstride]: B at FRICL_BAR_R_B, the gradient at
 * FRICL_BAR_R_G (12), t = H p_local at FRICL_BAR_R_T (12), H at
 * FRICL_BAR_R_H with rows of 12 reals (whatever the stencil, so that a
 * gather reads any contact's block without knowing its group). rstride
 * holds the parts the call asks for (1, 13, 25 or 169 reals). A vertex
 * index outside [0, nv) - possible only with device-resident indices,
 * which the host cannot validate - reads NaN positions instead of memory
 * out of bounds.
 */
#define FRICL_BAR_R_B 0
#define FRICL_BAR_R_G 1
#define FRICL_BAR_R_T 13
#define FRICL_BAR_R_H 25
/* Which outputs are written. */
#define FRICL_BAR_O_POT 0x1 /* group potential */
#define FRICL_BAR_O_LG 0x2  /* group local gradient */
#define FRICL_BAR_O_LH 0x4  /* group local Hessian */
#define FRICL_BAR_O_REC 0x8 /* the record (B, and g / H as rstride holds) */
#define FRICL_BAR_O_T 0x10  /* t into the record */

__kernel FRICL_BK_WG_ATTR void fricl_barrier_contacts(
    ulong n, ulong nv, int psd, int physical, int want, int given, int outs,
    FRICL_REAL dhat, FRICL_REAL kappa, FRICL_REAL dmin0,
    __global const FRICL_REAL *X, ulong x_off, __global const FRICL_REAL *Xr,
    ulong xr_off, __global const int *vert, ulong v_off,
    __global const FRICL_REAL *weight, ulong w_off,
    __global const FRICL_REAL *dmin_a, ulong dm_off,
    __global const FRICL_REAL *pn_a, ulong pn_off,
    __global const FRICL_REAL *pc_a, ulong pc_off, __global const char *dtype_a,
    ulong dt_off, __global const FRICL_REAL *dir, ulong dir_off,
    __global FRICL_REAL *pot, ulong pot_off, __global FRICL_REAL *lg,
    ulong lg_off, __global FRICL_REAL *lh, ulong lh_off,
    __global FRICL_REAL *rec, ulong rec_base, int rstride) {
#if FRICL_STENCIL == 2
  __local FRICL_REAL scratch[FRICL_BK_WG * FRICL_BK_LN];
  __local FRICL_REAL *ls = scratch + get_local_id(0);
#else
  __local FRICL_REAL *ls = 0;
#endif
  const ulong c = get_global_id(0);
  if (c >= n)
    return;
  const int dim = FRICL_DIM, type = FRICL_STENCIL;
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  FRICL_REAL x[12], xr[12], pn[3] = {0, 0, 0}, pc = FRICL_R(0);
  ulong vx[4];
  for (int i = 0; i < k; ++i) {
    const int vi = vert[v_off + c * (ulong)k + (ulong)i];
    const int ok = vi >= 0 && (ulong)vi < nv;
    vx[i] = ok ? (ulong)vi : 0;
    for (int s = 0; s < dim; ++s) {
      const ulong at = vx[i] * (ulong)dim + (ulong)s;
      x[i * dim + s] = ok ? X[x_off + at] : (FRICL_REAL)NAN;
      xr[i * dim + s] = !ok                        ? (FRICL_REAL)NAN
                        : (given & FRICL_BAR_REST) ? Xr[xr_off + at]
                                                   : x[i * dim + s];
    }
  }
  if (type == FRICL_D_PV) {
    for (int s = 0; s < dim; ++s)
      pn[s] = pn_a[pn_off + c * (ulong)dim + (ulong)s];
    pc = pc_a[pc_off + c];
  }
  const FRICL_REAL w =
      (given & FRICL_BAR_WEIGHT) ? weight[w_off + c] : FRICL_R(1);
  const FRICL_REAL dmin = (given & FRICL_BAR_DMIN) ? dmin_a[dm_off + c] : dmin0;
  const int dtype = FRICL_FN(bar_dtype)(
      type, (given & FRICL_BAR_DTYPE) ? (int)dtype_a[dt_off + c] : -1,
      (given & FRICL_BAR_AS_CLASSIFIED) != 0);
  __global FRICL_REAL *R = rec + (rec_base + c) * (ulong)rstride;
  const int to_rec = (outs & FRICL_BAR_O_REC) != 0;
  FRICL_REAL g[12];
  FRICL_FN(bk_sink) sink;
  sink.lh =
      (outs & FRICL_BAR_O_LH) ? lh + lh_off + c * (ulong)(ndof * ndof) : 0;
  sink.rh = to_rec && rstride > FRICL_BAR_R_H ? R + FRICL_BAR_R_H : 0;
  sink.dot = to_rec && (outs & FRICL_BAR_O_T);
  if (sink.dot)
    FRICL_UNROLL
  for (int j = 0; j < k; ++j)
    FRICL_UNROLL
  for (int u = 0; u < dim; ++u)
    sink.p[j * dim + u] = dir[dir_off + vx[j] * (ulong)dim + (ulong)u];
  const FRICL_REAL adh[4] = {0, 0, 0, 0}; /* the cl_mem tier: barrier */
  const FRICL_REAL B =
      FRICL_FN(bk_contact)(type, dim, x, xr, pn, pc, dtype, dhat, kappa, dmin,
                           w, physical, 0, adh, psd, want, g, &sink, ls);
  if (outs & FRICL_BAR_O_POT)
    pot[pot_off + c] = B;
  if (outs & FRICL_BAR_O_LG)
    FRICL_UNROLL
  for (int i = 0; i < ndof; ++i)
    lg[lg_off + c * (ulong)ndof + (ulong)i] = g[i];
  if (!to_rec)
    return;
  R[FRICL_BAR_R_B] = B;
  if (rstride > FRICL_BAR_R_G)
    FRICL_UNROLL
  for (int i = 0; i < ndof; ++i)
    R[FRICL_BAR_R_G + i] = g[i];
  /* t = H p (streamed by the sink in the host's order). */
  if (sink.dot)
    FRICL_UNROLL
  for (int r = 0; r < ndof; ++r)
    R[FRICL_BAR_R_T + r] = sink.t[r];
}

/* The assembly kernels (fricl_assembly.h) on these records: the gradient
 * and product entries of the vertex's slot, the Hessian's dim x dim blocks,
 * and the block sums of B (records of a stride given at run time). */
#define FRICL_ASM_RECORDS __global const FRICL_REAL *rec, int rstride
#define FRICL_ASM_STRIDE (ulong) rstride
#define FRICL_ASM_VEC(acc, R, slot, field)                                     \
  do {                                                                         \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      acc[r] += R[(field) + (slot)*FRICL_DIM + r];                             \
  } while (0)
#define FRICL_ASM_BSR(acc, R, si, sj)                                          \
  do {                                                                         \
    __global const FRICL_REAL *H =                                             \
        R + FRICL_BAR_R_H + (si)*FRICL_DIM * 12 + (sj)*FRICL_DIM;              \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      for (int s = 0; s < FRICL_DIM; ++s)                                      \
        acc[r * FRICL_DIM + s] += H[r * 12 + s];                               \
  } while (0)
#define FRICL_ASM_POTENTIALS __global const FRICL_REAL *rec, int rstride
#define FRICL_ASM_POT(i) rec[(i) * (ulong)rstride + FRICL_BAR_R_B]
FRICL_ASSEMBLY_KERNELS(barrier)
