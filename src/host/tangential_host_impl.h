/*
 * tangential_host_impl.h - the host backend's per-contact pass for one
 * (stencil, dim, precision), included by tangential_host_instances.h with
 *   FRICL_REAL, FRICL_FN      the precision (math header instance)
 *   TH_STENCIL, TH_K, TH_NB   the stencil code, vertices and coordinates
 *   TH_DIM                    2 or 3
 *   TH_NAME                   the function's name
 * and undefines all but TH_DIM at its end. No include guard on purpose.
 *
 * With the stencil and dimension constants, every loop below has a fixed
 * trip count, so the private arrays live in registers. The arithmetic is
 * the reference backend's operation for operation (tangential_ref_impl.h:
 * sums start from zero and run in the same order), which is what makes
 * the two backends bitwise equal. The gradient and H p are scattered
 * directly, in contact order, into the vertices this piece owns;
 * contributions to shared ones are queued in contact order for the
 * in-order fix-up (tangential_host.c). In the gather mode (always when the
 * global Hessian is assembled) the pass writes per-contact records
 * instead.
 */
/* dst = sum_i gamma_i src[vx[i]] (in that order): the contact's value of
 * the per-vertex field src. */
#define TH_GATHER(dst, src)                                                    \
  FRICL_UNROLL                                                                 \
  for (int r = 0; r < DIM; ++r) {                                              \
    real s = (real)0;                                                          \
    FRICL_UNROLL                                                               \
    for (int i = 0; i < K; ++i)                                                \
      s += gamma[i] * (src)[(size_t)vx[i] * DIM + (size_t)r];                  \
    (dst)[r] = s;                                                              \
  }

/* gamma_i vec added to the vertex vx[i] of the contact in `out` when this
 * piece owns it, else queued on `queue` for the in-order fix-up. */
#define TH_SCATTER(out, queue, vec)                                            \
  FRICL_UNROLL                                                                 \
  for (int i = 0; i < K; ++i) {                                                \
    real v3[3];                                                                \
    FRICL_UNROLL                                                               \
    for (int r = 0; r < DIM; ++r)                                              \
      v3[r] = gamma[i] * (vec)[r];                                             \
    const size_t v = (size_t)vx[i];                                            \
    if (!owner || owner[v] == me) {                                            \
      FRICL_UNROLL                                                             \
      for (int r = 0; r < DIM; ++r)                                            \
        (out)[v * DIM + (size_t)r] += v3[r];                                   \
    } else {                                                                   \
      th_queue(w, queue, v, v3, DIM * sizeof(real));                           \
    }                                                                          \
  }

static void TH_NAME(const th_job *j, th_worker *w, size_t g, size_t lo,
                    size_t hi) {
  typedef FRICL_REAL real;
  enum { K = TH_K, NB = TH_NB, DIM = TH_DIM, M = TH_DIM - 1 };
  enum { NDOF = K * DIM, NPK = DIM * (DIM + 1) / 2 };
  const fricl_contact_group *G = &j->b->groups[g];
  const size_t gbase = j->group_base[g];
  const real e = (real)j->b->eps_v;
  const real *vel = (const real *)j->b->velocities;
  const real *dir = (const real *)j->b->direction;
  const real *cp = (const real *)G->closest_point;
  const real *Pa = (const real *)G->tangent_basis;
  const real *Na = (const real *)G->normal_force;
  const real *wa = (const real *)G->weight;
  const real *msa = (const real *)G->mu_s;
  const real *mka = (const real *)G->mu_k;
  const real *ana = (const real *)G->mu_aniso;
  real *pot = (real *)G->potential;
  real *hloc = (real *)G->local_hessian;
  real *gam = (real *)G->factored_gamma;
  real *grd = (real *)G->factored_grad;
  real *Sout = (real *)G->factored_hessian;
  real *rec = (real *)j->rec;
  real *grad = (real *)j->grad;
  real *prod = (real *)j->prod;
  real *partial = (real *)j->partial;
  const unsigned char *owner = j->owner;
  const unsigned char me = (unsigned char)w->index;
  const int rstride = j->rstride;
  real pot_block = (real)w->pot_block;
  for (size_t c = lo; c < hi; ++c) {
    const int32_t *vx = G->vertices + c * K;
    real beta[2] = {0, 0}, gamma[4] = {0, 0, 0, 0};
    FRICL_UNROLL
    for (int i = 0; i < NB; ++i)
      beta[i] = cp[c * NB + (size_t)i];
    FRICL_FN(stencil_gamma)(TH_STENCIL, beta, gamma);
    real urel[3];
    TH_GATHER(urel, vel);
    real a[2] = {1, 1};
    if (ana)
      FRICL_UNROLL
    for (int i = 0; i < M; ++i)
      a[i] = ana[c * M + (size_t)i];
    const real wt = wa ? wa[c] : (real)1;
    real D, q[3], S[6] = {0, 0, 0, 0, 0, 0};
    FRICL_FN(tangential_contact_family)
    (DIM, urel, Pa + c * (DIM * M), a, Na[c], wt, msa[c], mka[c], e, j->profile,
     j->mollifier, j->psd, j->ipctk_abs, j->need_hess, &D, q, S);

    if (pot)
      pot[c] = D;
    if (gam)
      FRICL_UNROLL
    for (int i = 0; i < K; ++i)
      gam[c * K + (size_t)i] = gamma[i];
    if (grd)
      FRICL_UNROLL
    for (int r = 0; r < DIM; ++r)
      grd[c * DIM + (size_t)r] = q[r];
    if (Sout)
      FRICL_UNROLL
    for (int i = 0; i < NPK; ++i)
      Sout[c * NPK + (size_t)i] = S[i];
    if (hloc) {
      real *H = hloc + c * (size_t)(NDOF * NDOF);
      FRICL_UNROLL
      for (int i = 0; i < K; ++i)
        FRICL_UNROLL
      for (int jj = 0; jj < K; ++jj) {
        const real coef = gamma[i] * gamma[jj];
        FRICL_UNROLL
        for (int r = 0; r < DIM; ++r)
          FRICL_UNROLL
        for (int s = 0; s < DIM; ++s)
          H[(i * DIM + r) * NDOF + jj * DIM + s] =
              coef * FRICL_FN(packed_at)(S, DIM, r, s);
      }
    }
    /* The potential: sequential sums over fixed blocks of contacts, each
     * block's sum stored when the block ends (pieces start on block
     * boundaries, so a block never spans two pieces). */
    const size_t cg = gbase + c;
    if (partial) {
      pot_block += D;
      if ((cg + 1) % FRICL__POT_BLOCK == 0 || cg + 1 == j->total) {
        partial[cg / FRICL__POT_BLOCK] = pot_block;
        pot_block = (real)0;
      }
    }
    real t[3] = {0, 0, 0};
    if (j->want_prod) {
      real pc[3];
      TH_GATHER(pc, dir);
      FRICL_UNROLL
      for (int r = 0; r < DIM; ++r) {
        real s = (real)0;
        FRICL_UNROLL
        for (int u = 0; u < DIM; ++u)
          s += FRICL_FN(packed_at)(S, DIM, r, u) * pc[u];
        t[r] = s;
      }
    }
    if (rec) { /* gather mode: the assembly reads records afterwards */
      real *R = rec + cg * (size_t)rstride;
      FRICL_UNROLL
      for (int i = 0; i < 4; ++i)
        R[FRICL_REC_GAMMA + i] = gamma[i];
      FRICL_UNROLL
      for (int r = 0; r < 3; ++r)
        R[FRICL_REC_Q + r] = r < DIM ? q[r] : (real)0;
      if (rstride == FRICL_REC_STRIDE) {
        FRICL_UNROLL
        for (int i = 0; i < 6; ++i)
          R[FRICL_REC_S + i] = S[i];
        FRICL_UNROLL
        for (int r = 0; r < 3; ++r)
          R[FRICL_REC_T + r] = t[r];
      }
      continue;
    }
    if (grad)
      TH_SCATTER(grad, &w->grad, q);
    if (prod)
      TH_SCATTER(prod, &w->prod, t);
  }
  w->pot_block = (double)pot_block;
}

#undef TH_GATHER
#undef TH_SCATTER
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
