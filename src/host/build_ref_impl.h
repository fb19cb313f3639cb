/*
 * build_ref_impl.h - the lagged build of contacts [lo, hi) of one group for
 * one precision; included by build_ref.c with FRICL_REAL, FRICL_FN and
 * FRICL_BREF_FN set. No include guard on purpose. `type` and `dim` are
 * parameters so that callers passing constants get a loop specialised for
 * one stencil (the host backend); the reference passes the group's.
 *
 * The loop does per contact exactly what the kernel does per work item
 * (gather, FRICL_FN(build_contact), scatter), so the two backends agree up
 * to the rounding of the builtins they call (log; sqrt and the divisions
 * are correctly rounded on both).
 */
static inline FRICL_HOST_INLINE void
FRICL_BREF_FN(const fricl_build_batch *b, uint8_t *const *status, size_t g,
              size_t lo, size_t hi, const int type, const int dim) {
  typedef FRICL_REAL real;
  const int m = dim - 1;
  const real *X = (const real *)b->lagged_positions;
  const real *Xr = b->rest_positions ? (const real *)b->rest_positions : X;
  const real *vms = (const real *)b->vertex_mu_s;
  const real *vmk = (const real *)b->vertex_mu_k;
  const real kappa = (real)b->kappa, dhat = (real)b->dhat;
  const real dmin_s = (real)b->dmin;
  const int physical = (b->flags & FRICL_BUILD_FLAG_PHYSICAL_BARRIER) != 0;
  const int blend = (int)b->blend;
  {
    const fricl_build_group *G = &b->groups[g];
    const int k = type == FRICL_B_VV   ? 2
                  : type == FRICL_B_EV ? 3
                  : type == FRICL_B_PV ? 1
                                       : 4;
    const int nb = type == FRICL_B_EV   ? 1
                   : type == FRICL_B_EE ? 2
                   : type == FRICL_B_FV ? 2
                                        : 0;
    const int mus_mode = fricl__mu_mode(G->mu_s, vms);
    const int muk_mode = fricl__mu_mode(G->mu_k, vmk);
    const int want_grad = G->normal_force_gradient != NULL;
    const real *pn_a = (const real *)G->plane_normal;
    const real *pc_a = (const real *)G->plane_offset;
    for (size_t c = lo; c < hi; ++c) {
      const int32_t *vx = G->vertices + c * (size_t)k;
      real x[12], mvs[4] = {0, 0, 0, 0}, mvk[4] = {0, 0, 0, 0};
      for (int i = 0; i < k; ++i) {
        const size_t v = (size_t)vx[i];
        for (int r = 0; r < dim; ++r)
          x[i * dim + r] = X[v * (size_t)dim + (size_t)r];
        if (mus_mode == FRICL__MU_VERTEX)
          mvs[i] = vms[v];
        if (muk_mode == FRICL__MU_VERTEX)
          mvk[i] = vmk[v];
      }
      real eps_x = (real)0;
      if (type == FRICL_B_EE) {
        real ea[3], eb[3];
        for (int r = 0; r < 3; ++r) {
          ea[r] = Xr[(size_t)vx[1] * 3 + (size_t)r] -
                  Xr[(size_t)vx[0] * 3 + (size_t)r];
          eb[r] = Xr[(size_t)vx[3] * 3 + (size_t)r] -
                  Xr[(size_t)vx[2] * 3 + (size_t)r];
        }
        eps_x = FRICL_R(1) / FRICL_R(1000) * FRICL_FN(g_dot)(ea, ea, 3) *
                FRICL_FN(g_dot)(eb, eb, 3);
      }
      real pn[3] = {0, 0, 0}, pc = (real)0;
      if (type == FRICL_B_PV) {
        for (int r = 0; r < dim; ++r)
          pn[r] = pn_a[c * (size_t)dim + (size_t)r];
        pc = pc_a[c];
      }
      real mus = mus_mode == FRICL__MU_CONTACT ? ((const real *)G->mu_s)[c]
                                               : (real)b->mu_s;
      real muk = muk_mode == FRICL__MU_CONTACT ? ((const real *)G->mu_k)[c]
                                               : (real)b->mu_k;
      const real dmin = G->dmin ? ((const real *)G->dmin)[c] : dmin_s;
      real beta[2], P[6], N, gN[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
      const int s = FRICL_FN(build_contact)(
          type, dim, x, pn, pc, eps_x, kappa, dhat, dmin, physical,
          mus_mode == FRICL__MU_VERTEX, muk_mode == FRICL__MU_VERTEX, mvs, mvk,
          blend, want_grad, beta, P, &N, gN, &mus, &muk);
      if (G->closest_point)
        for (int i = 0; i < nb; ++i)
          ((real *)G->closest_point)[c * (size_t)nb + (size_t)i] = beta[i];
      if (G->tangent_basis)
        for (int i = 0; i < dim * m; ++i)
          ((real *)G->tangent_basis)[c * (size_t)(dim * m) + (size_t)i] = P[i];
      if (G->normal_force)
        ((real *)G->normal_force)[c] = N;
      if (want_grad)
        for (int i = 0; i < k * dim; ++i)
          ((real *)
               G->normal_force_gradient)[c * (size_t)(k * dim) + (size_t)i] =
              gN[i];
      if (G->weight_out)
        ((real *)G->weight_out)[c] =
            G->weight ? ((const real *)G->weight)[c] : (real)1;
      if (G->mu_s_out)
        ((real *)G->mu_s_out)[c] = mus;
      if (G->mu_k_out)
        ((real *)G->mu_k_out)[c] = muk;
      if (status[g])
        status[g][c] = (uint8_t)s;
    }
  }
}
