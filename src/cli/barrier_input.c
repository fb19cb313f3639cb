/* barrier_input.c - see barrier_input.h. */
#include "barrier_input.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "npz_input.h"
#include "npz_schema.h"

#define F(field) offsetof(barrier_input, field)
#define G(field) offsetof(barrier_type, field)
#define PV NPZ_TYPE(FRICL_STENCIL_PV)

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
  char got[128];
  (void)row;
  if (!mb)
    return 0;
  const char *name = mb->name;
  const npy_array *a = &mb->array;
  const npy_dtype dt = a->info.dtype;
  if (dt != NPY_I4 && dt != NPY_I8)
    return npz_bad_input(r, "array '%s': dtype '%s' is not int32 or int64",
                         name, npy_dtype_descr(dt));
  if (a->info.ndim != 1 || a->info.shape[0] != m)
    return npz_bad_input(
        r, "array '%s': expected shape (%zu,), got %s", name, m,
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
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
    {.name = "positions",
     .kind = NPZ_POSITIONS,
     .flags = NPZ_REQUIRED,
     .offset = F(positions)},
    {.name = "rest_positions",
     .kind = NPZ_REAL,
     .shape = "n, dim",
     .offset = F(rest),
     .what = "rest positions, like positions"},
    {.name = "dhat",
     .kind = NPZ_SCALAR,
     .flags = NPZ_REQUIRED,
     .offset = F(dhat),
     .values = NPZ_GT0},
    {.name = "kappa",
     .kind = NPZ_SCALAR,
     .flags = NPZ_REQUIRED,
     .offset = F(kappa),
     .values = NPZ_GT0},
    {.name = "dmin", .kind = NPZ_SCALAR, .offset = F(dmin), .values = NPZ_GE0},
    {.name = "mu_s", .kind = NPZ_IGNORED},
    {.name = "mu_k", .kind = NPZ_IGNORED},
};

static const npz_row fields[] = {
    {.name = "plane_normal",
     .kind = NPZ_REAL,
     .shape = "m, dim",
     .flags = NPZ_REQUIRED,
     .types = PV,
     .offset = G(plane_normal),
     .values = NPZ_FINITE,
     .what = "the plane normal n of each pv contact",
     .check = nonzero_rows},
    {.name = "plane_offset",
     .kind = NPZ_REAL,
     .shape = "m",
     .flags = NPZ_REQUIRED,
     .types = PV,
     .offset = G(plane_offset),
     .values = NPZ_FINITE,
     .what = "the plane offset c: the plane is n.x + c = 0"},
    {.name = "weight",
     .kind = NPZ_REAL,
     .shape = "m",
     .types = NPZ_ALL_TYPES,
     .offset = G(weight),
     .values = NPZ_FINITE,
     .what = "per-contact weight"},
    {.name = "dtype",
     .kind = NPZ_CUSTOM,
     .types = NPZ_ALL_TYPES,
     .read = read_dtype},
    {.name = "dmin",
     .kind = NPZ_REAL,
     .shape = "m",
     .types = NPZ_ALL_TYPES,
     .offset = G(dmin),
     .values = NPZ_GE0,
     .what = "per-contact dmin"},
    {.name = "mu_s", .kind = NPZ_IGNORED, .types = NPZ_ALL_TYPES},
    {.name = "mu_k", .kind = NPZ_IGNORED, .types = NPZ_ALL_TYPES},
};

static const npz_schema schema = {
    globals,
    sizeof globals / sizeof globals[0],
    fields,
    sizeof fields / sizeof fields[0],
    NPZ_TYPES(barrier_input, g, barrier_type),
    NULL,
    "the barrier schema has positions, rest_positions, dhat, kappa, dmin "
    "and per stencil type T in vv ev ee fv pv: T, T_weight, T_dmin, T_dtype, "
    "pv_plane_normal, pv_plane_offset; see 'fricl barrier --help'"};

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
