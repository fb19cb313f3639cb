/*
 * tangential_ref_impl.h - the reference backend of the tangential
 * potential for one precision; included by tangential_ref.c with
 * FRICL_REAL, FRICL_FN and FRICL_TREF_FN set. No include guard on purpose.
 *
 * Sums run in exactly the order of the OpenCL gathers (per vertex and per
 * Hessian block, contributions in contact order starting from 0; the total
 * potential in blocks of FRICL__POT_BLOCK contacts), so the two backends
 * agree bitwise.
 */
static fricl_status FRICL_TREF_FN(fricl_context *ctx,
                                  const fricl_tangential_batch *b,
                                  const fricl_tangential_plan *plan,
                                  int need_hess) {
  typedef FRICL_REAL real;
  const int dim = b->dim, m = dim - 1;
  const size_t nvd = b->n_vertices * (size_t)dim;
  const real e = (real)b->eps_v;
  const real *vel = (const real *)b->velocities;
  const real *dir = (const real *)b->direction;
  real *grad = (real *)b->gradient;
  real *prod = (real *)b->hessian_product;
  const int ipctk_abs = (b->flags & FRICL_TANGENTIAL_FLAG_IPCTK_ABS) != 0;
  const int npk = dim * (dim + 1) / 2;
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups; ++g)
    total += b->groups[g].count;
  real *rec = NULL;
  if (b->hessian_values && total) {
    rec = fricl__malloc(total * FRICL_REC_STRIDE * sizeof *rec);
    if (!rec)
      return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                         "allocating %zu contact records", total);
  }
  /* The sums start from +0, whose bytes are all zero. */
  if (grad)
    memset(grad, 0, nvd * sizeof *grad);
  if (prod)
    memset(prod, 0, nvd * sizeof *prod);
  real pot_total = (real)0, pot_block = (real)0;
  size_t cg = 0; /* global contact index */
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_contact_group *G = &b->groups[g];
    const int type = (int)G->type;
    const int k = fricl__stencil_vertex_count(G->type);
    const int nb = fricl__stencil_coord_count(G->type);
    const int ndof = k * dim;
    for (size_t c = 0; c < G->count; ++c, ++cg) {
      const int32_t *vx = G->vertices + c * (size_t)k;
      real beta[2] = {0, 0}, gamma[4] = {0, 0, 0, 0};
      for (int i = 0; i < nb; ++i)
        beta[i] = ((const real *)G->closest_point)[c * (size_t)nb + (size_t)i];
      FRICL_FN(stencil_gamma)(type, beta, gamma);
      real urel[3];
      for (int r = 0; r < dim; ++r) {
        real s = (real)0;
        for (int i = 0; i < k; ++i)
          s += gamma[i] * vel[(size_t)vx[i] * (size_t)dim + (size_t)r];
        urel[r] = s;
      }
      real a[2] = {1, 1};
      if (G->mu_aniso)
        for (int i = 0; i < m; ++i)
          a[i] = ((const real *)G->mu_aniso)[c * (size_t)m + (size_t)i];
      const real w = G->weight ? ((const real *)G->weight)[c] : (real)1;
      real D, q[3], S[6] = {0, 0, 0, 0, 0, 0};
      FRICL_FN(tangential_contact_family)
      (dim, urel, (const real *)G->tangent_basis + c * (size_t)(dim * m), a,
       ((const real *)G->normal_force)[c], w, ((const real *)G->mu_s)[c],
       ((const real *)G->mu_k)[c], e, (int)b->mu_profile, (int)b->mollifier,
       (int)b->psd, ipctk_abs, need_hess, &D, q, S);

      if (G->potential)
        ((real *)G->potential)[c] = D;
      if (G->factored_gamma)
        for (int i = 0; i < k; ++i)
          ((real *)G->factored_gamma)[c * (size_t)k + (size_t)i] = gamma[i];
      if (G->factored_grad)
        for (int r = 0; r < dim; ++r)
          ((real *)G->factored_grad)[c * (size_t)dim + (size_t)r] = q[r];
      if (G->factored_hessian)
        for (int i = 0; i < npk; ++i)
          ((real *)G->factored_hessian)[c * (size_t)npk + (size_t)i] = S[i];
      if (G->local_hessian) {
        real *H = (real *)G->local_hessian + c * (size_t)(ndof * ndof);
        for (int i = 0; i < k; ++i)
          for (int j = 0; j < k; ++j) {
            const real coef = gamma[i] * gamma[j];
            for (int r = 0; r < dim; ++r)
              for (int s = 0; s < dim; ++s)
                H[(i * dim + r) * ndof + j * dim + s] =
                    coef * FRICL_FN(packed_at)(S, dim, r, s);
          }
      }
      if (b->potential) {
        pot_block += D;
        if ((cg + 1) % FRICL__POT_BLOCK == 0) {
          pot_total += pot_block;
          pot_block = (real)0;
        }
      }
      if (grad)
        for (int i = 0; i < k; ++i)
          for (int r = 0; r < dim; ++r)
            grad[(size_t)vx[i] * (size_t)dim + (size_t)r] += gamma[i] * q[r];
      if (prod) {
        real pc[3], t[3];
        for (int r = 0; r < dim; ++r) {
          real s = (real)0;
          for (int j = 0; j < k; ++j)
            s += gamma[j] * dir[(size_t)vx[j] * (size_t)dim + (size_t)r];
          pc[r] = s;
        }
        for (int r = 0; r < dim; ++r) {
          real s = (real)0;
          for (int u = 0; u < dim; ++u)
            s += FRICL_FN(packed_at)(S, dim, r, u) * pc[u];
          t[r] = s;
        }
        for (int i = 0; i < k; ++i)
          for (int r = 0; r < dim; ++r)
            prod[(size_t)vx[i] * (size_t)dim + (size_t)r] += gamma[i] * t[r];
      }
      if (rec) {
        real *R = rec + cg * FRICL_REC_STRIDE;
        for (int i = 0; i < 4; ++i)
          R[FRICL_REC_GAMMA + i] = gamma[i];
        for (int i = 0; i < 6; ++i)
          R[FRICL_REC_S + i] = S[i];
      }
    }
  }
  if (b->potential) {
    if (total % FRICL__POT_BLOCK)
      pot_total += pot_block;
    *(real *)b->potential = pot_total;
  }
  if (b->hessian_values) {
    real *out = (real *)b->hessian_values;
    for (size_t bl = 0; bl < plan->nnz; ++bl) {
      real acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (int64_t x = plan->bptr[bl]; x < plan->bptr[bl + 1]; ++x) {
        const uint64_t en = plan->bentries[x];
        const real *R = rec + (size_t)(en >> 4) * FRICL_REC_STRIDE;
        const real coef = R[(en >> 2) & 3] * R[en & 3];
        for (int r = 0; r < dim; ++r)
          for (int s = 0; s < dim; ++s)
            acc[r * dim + s] +=
                coef * FRICL_FN(packed_at)(R + FRICL_REC_S, dim, r, s);
      }
      for (int i = 0; i < dim * dim; ++i)
        out[bl * (size_t)(dim * dim) + (size_t)i] = acc[i];
    }
  }
  free(rec);
  return FRICL_STATUS_OK;
}
