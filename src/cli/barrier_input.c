/* barrier_input.c - see barrier_input.h. */
#include "barrier_input.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "npz_input.h"
#include "npz_schema.h"

#define F(field) offsetof(barrier_input, field)
#define G(field) offsetof(barrier_type, field)

/* pv_plane_normal: no zero row (the plane would have no normal). */
static int nonzero_rows(const npz_reader *r, const char *name, const void *a,
                        size_t m) {
  for (size_t c = 0; c < m; ++c) {
    double s = 0;
    for (int k = 0; k < r->dim; ++k) {
      const size_t i = c * (size_t)r->dim + (size_t)k;
      const double v = r->precision == FRICL_F32 ? (double)((const float *)a)[i]
                                                 : ((const double *)a)[i];
      s += v * v;
    }
    if (s == 0)
      return npz_bad_input(r, "array '%s': row %zu is zero", name, c);
  }
  return 0;
}

/* T_dtype (m,), integer: ipctk's distance type per contact, -1 .. AUTO. */
static int read_dtype(npz_reader *r, const npz_row *row, const npz_member *mb,
                      void *dst, size_t m) {
  barrier_type *g = dst;
  const char *name = mb->name;
  const npy_array *a = &mb->array;
  (void)row;
  if (a->info.dtype != NPY_I4 && a->info.dtype != NPY_I8)
    return npz_bad_dtype(r, name, a, "int32 or int64");
  if (a->info.ndim != 1 || a->info.shape[0] != m)
    return npz_bad_shape(r, name, a, "shape (%zu,)", m);
  const int hi = g->type == FRICL_STENCIL_EV   ? 3
                 : g->type == FRICL_STENCIL_EE ? 9
                 : g->type == FRICL_STENCIL_FV ? 7
                                               : -1;
  if (!(g->dtype = cli_alloc_array(m, 1)))
    return npz_out_of_memory(r, name);
  for (size_t c = 0; c < m; ++c) {
    const int64_t v = npy_int_at(a, c);
    if (v < -1 || v > hi)
      return npz_bad_input(r,
                           "array '%s': element %zu = %lld is not a distance "
                           "type of %s (-1 .. %d)",
                           name, c, (long long)v, g->tname, hi);
    g->dtype[c] = (int8_t)v;
  }
  return 0;
}

static const npz_row globals[] = {
    {.name = "lagged_positions",
     .kind = NPZ_REFUSED,
     .what = "the barrier is evaluated at 'positions' (n, dim); rename the "
             "array"},
    NPZ_ROW_POSITIONS("positions", F(positions)),
    NPZ_ROW_REAL("rest_positions", "n, dim", 0, 0, F(rest), NPZ_ANY,
                 "rest positions, like positions"),
    NPZ_ROW_SCALAR("dhat", NPZ_REQUIRED, F(dhat), NPZ_GT0, NULL),
    NPZ_ROW_SCALAR("kappa", NPZ_REQUIRED, F(kappa), NPZ_GT0, NULL),
    NPZ_ROW_SCALAR("dmin", 0, F(dmin), NPZ_GE0, NULL),
    NPZ_ROW_SCALAR("dhat_p", 0, F(dhat_p), NPZ_GT0, "--function adhesion"),
    NPZ_ROW_SCALAR("Y", 0, F(Y), NPZ_GT0, "--function adhesion"),
    NPZ_ROW_SCALAR("eps_c", 0, F(eps_c), NPZ_GT0, "--function adhesion"),
    NPZ_ROW_IGNORED("mu_s", 0),
    NPZ_ROW_IGNORED("mu_k", 0),
};

static const npz_row fields[] = {
    NPZ_ROWS_PV_PLANE(G(plane_normal), G(plane_offset), NPZ_FINITE,
                      nonzero_rows),
    NPZ_ROW_PER_CONTACT("weight", 0, G(weight), NPZ_FINITE,
                        "per-contact weight"),
    {.name = "dtype",
     .kind = NPZ_CUSTOM,
     .types = NPZ_ALL_TYPES,
     .read = read_dtype},
    NPZ_ROW_PER_CONTACT("dmin", 0, G(dmin), NPZ_GE0, "per-contact dmin"),
    NPZ_ROW_IGNORED("mu_s", NPZ_ALL_TYPES),
    NPZ_ROW_IGNORED("mu_k", NPZ_ALL_TYPES),
};

static const npz_schema schema = NPZ_SCHEMA(globals, fields, barrier_input, g,
                                            barrier_type, NULL, "barrier");

int barrier_input_read(barrier_input *b, const npz_archive *in) {
  npz_reader r = {"fricl barrier", b->path, NULL, b->precision, in, NULL, 0, 0};
  const int rc = npz_schema_read(&r, &schema, b, NULL);
  b->n = r.n;
  b->dim = r.dim;
  return rc;
}

void barrier_input_free(barrier_input *b) {
  for (int t = 0; t < BARRIER_N_TYPES; ++t) {
    barrier_type *g = &b->g[t];
    free(g->ids);
    free(g->weight);
    free(g->dmin);
    free(g->plane_normal);
    free(g->plane_offset);
    free(g->dtype);
  }
  free(b->positions);
  free(b->rest);
}
