/* barrier_input.c - see barrier_input.h. */
#include "barrier_input.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npz_input.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int
bad_input(const barrier_input *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fricl barrier: %s: ", b->path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

static int out_of_memory(const char *what) {
  fprintf(stderr, "fricl barrier: out of memory (%s)\n", what);
  return EXIT_RUNTIME;
}

/* Accepted names: the globals, and per type T: T, T_<field>. */
static const char *const globals[] = {
    "positions", "rest_positions", "dhat", "kappa", "dmin", "mu_s", "mu_k"};
static const char *const fields[] = {
    "weight", "dmin", "mu_s", "mu_k", "dtype", "plane_normal", "plane_offset"};

static int known_name(const char *name) {
  for (size_t i = 0; i < sizeof globals / sizeof globals[0]; ++i)
    if (strcmp(name, globals[i]) == 0)
      return 1;
  for (int t = 0; t < BARRIER_N_TYPES; ++t) {
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    const size_t tl = strlen(tn);
    if (strncmp(name, tn, tl) != 0)
      continue;
    if (name[tl] == '\0')
      return 1;
    if (name[tl] != '_')
      continue;
    const size_t nf = t == FRICL_STENCIL_PV ? 7 : 5;
    for (size_t f = 0; f < nf; ++f)
      if (strcmp(name + tl + 1, fields[f]) == 0)
        return 1;
  }
  return 0;
}

static int check_names(const barrier_input *b, const npz_archive *in) {
  for (size_t i = 0; i < in->count; ++i) {
    const char *name = in->members[i].name;
    if (strcmp(name, "lagged_positions") == 0)
      return bad_input(b, "array 'lagged_positions': the barrier is evaluated "
                          "at 'positions' (n, dim); rename the array");
    if (!known_name(name))
      return bad_input(b,
                       "unknown array '%s' (the barrier schema has "
                       "positions, rest_positions, dhat, kappa, dmin and "
                       "per stencil type T in vv ev ee fv pv: T, T_weight, "
                       "T_dmin, T_dtype, pv_plane_normal, pv_plane_offset; see "
                       "'fricl barrier --help')",
                       name);
    for (int t = 0; t < BARRIER_N_TYPES; ++t) {
      const char *tn = fricl_stencil_name((fricl_stencil)t);
      const size_t tl = strlen(tn);
      if (strncmp(name, tn, tl) == 0 && name[tl] == '_' && !npz_find(in, tn))
        return bad_input(b,
                         "array '%s' is given but '%s' (the vertex ids of "
                         "the %s contacts) is missing",
                         name, tn, tn);
    }
  }
  return 0;
}

/* A real array of exactly this shape, converted (NULL when absent and
 * optional): npz_read_real, reported for this command. */
static int get_real(const barrier_input *b, const npz_archive *in,
                    const char *name, int required, int ndim,
                    const size_t *shape, const char *what, void **out) {
  char msg[512];
  const int rc = npz_read_real(in, name, required, ndim, shape, what,
                               b->precision, out, msg, sizeof msg);
  if (rc == 2)
    return bad_input(b, "%s", msg);
  return rc ? out_of_memory(name) : 0;
}

/* A scalar (shape () or (1,)), finite and within its rule. */
static int get_scalar(const barrier_input *b, const npz_archive *in,
                      const char *name, int required, int positive,
                      double *value) {
  char got[128];
  const npz_member *mb = npz_find(in, name);
  if (!mb)
    return required
               ? bad_input(b, "required array '%s' (a scalar) is missing", name)
               : 0;
  const npy_array *a = &mb->array;
  const npy_dtype dt = a->info.dtype;
  if (!npy_is_real(dt) && dt != NPY_I4 && dt != NPY_I8)
    return bad_input(b, "array '%s': dtype '%s' is not a real or integer", name,
                     npy_dtype_descr(dt));
  if (a->info.count != 1 || a->info.ndim > 1)
    return bad_input(
        b, "array '%s': expected a scalar (shape () or (1,)), got %s", name,
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  const double v =
      npy_is_real(dt) ? npy_real_at(a, 0) : (double)npy_int_at(a, 0);
  if (!(v - v == 0) || (positive ? !(v > 0) : !(v >= 0)))
    return bad_input(b, "array '%s' = %g: it must be finite and %s", name, v,
                     positive ? "> 0" : ">= 0");
  *value = v;
  return 0;
}

/* Every value of a converted per-contact array finite (and >= 0). */
static int check_values(const barrier_input *b, const char *name, const void *a,
                        size_t n, int nonneg) {
  for (size_t i = 0; a && i < n; ++i) {
    const double v = b->precision == FRICL_F32 ? (double)((const float *)a)[i]
                                               : ((const double *)a)[i];
    if (!(v - v == 0) || (nonneg && v < 0))
      return bad_input(b, "array '%s': element %zu = %g: it must be finite%s",
                       name, i, v, nonneg ? " and >= 0" : "");
  }
  return 0;
}

/* T_dtype (m,), integer: ipctk's distance type per contact, -1 .. AUTO. */
static int read_dtype(const barrier_input *b, const npz_archive *in,
                      const char *name, barrier_type *g) {
  char got[128];
  const npz_member *mb = npz_find(in, name);
  if (!mb)
    return 0;
  const npy_array *a = &mb->array;
  const npy_dtype dt = a->info.dtype;
  if (dt != NPY_I4 && dt != NPY_I8)
    return bad_input(b, "array '%s': dtype '%s' is not int32 or int64", name,
                     npy_dtype_descr(dt));
  if (a->info.ndim != 1 || a->info.shape[0] != g->m)
    return bad_input(
        b, "array '%s': expected shape (%zu,), got %s", name, g->m,
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  const int hi = g->type == FRICL_STENCIL_EV   ? 3
                 : g->type == FRICL_STENCIL_EE ? 9
                 : g->type == FRICL_STENCIL_FV ? 7
                                               : -1;
  if (!(g->dtype = cli_alloc_array(g->m, 1)))
    return out_of_memory(name);
  for (size_t c = 0; c < g->m; ++c) {
    const int64_t v = npy_int_at(a, c);
    if (v < -1 || v > hi)
      return bad_input(b,
                       "array '%s': element %zu = %lld is not a distance "
                       "type of %s (-1 .. %d)",
                       name, c, (long long)v, g->tname, hi);
    g->dtype[c] = (int8_t)v;
  }
  return 0;
}

static int read_positions(barrier_input *b, const npz_archive *in) {
  char got[128];
  const npz_member *mb = npz_find(in, "positions");
  if (!mb)
    return bad_input(b, "required array 'positions' (n, dim) is missing");
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype))
    return bad_input(b,
                     "array 'positions': dtype '%s' is not float64 or float32",
                     npy_dtype_descr(a->info.dtype));
  if (a->info.ndim != 2 || (a->info.shape[1] != 2 && a->info.shape[1] != 3))
    return bad_input(
        b, "array 'positions': expected shape (n, dim) with dim 2 or 3, got %s",
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  b->n = a->info.shape[0];
  b->dim = (int)a->info.shape[1];
  if (b->n > (size_t)INT32_MAX)
    return bad_input(b, "array 'positions': %zu vertices exceed int32 ids",
                     b->n);
  if (!(b->positions = npy_real_copy(a, b->precision)))
    return out_of_memory("positions");
  const size_t shape[2] = {b->n, (size_t)b->dim};
  return get_real(b, in, "rest_positions", 0, 2, shape,
                  "rest positions, like positions", &b->rest);
}

static int read_type(barrier_input *b, const npz_archive *in, barrier_type *g) {
  char msg[256], name[64];
  int rc =
      npy_read_vertex_ids(&npz_find(in, g->tname)->array, g->tname, g->k, b->n,
                          "positions", &g->ids, &g->m, msg, sizeof msg);
  if (rc == 1)
    return out_of_memory(g->tname);
  if (rc)
    return bad_input(b, "%s", msg);
  const size_t s1[1] = {g->m}, s2[2] = {g->m, (size_t)b->dim};
  if (g->type == FRICL_STENCIL_PV) {
    if ((rc = get_real(b, in, "pv_plane_normal", 1, 2, s2,
                       "the plane normal n of each pv contact",
                       &g->plane_normal)) != 0 ||
        (rc = get_real(b, in, "pv_plane_offset", 1, 1, s1,
                       "the plane offset c: the plane is n.x + c = 0",
                       &g->plane_offset)) != 0 ||
        (rc = check_values(b, "pv_plane_normal", g->plane_normal,
                           g->m * (size_t)b->dim, 0)) != 0 ||
        (rc = check_values(b, "pv_plane_offset", g->plane_offset, g->m, 0)) !=
            0)
      return rc;
    for (size_t c = 0; c < g->m; ++c) {
      double s = 0;
      for (int r = 0; r < b->dim; ++r) {
        const size_t i = c * (size_t)b->dim + (size_t)r;
        const double v = b->precision == FRICL_F32
                             ? (double)((const float *)g->plane_normal)[i]
                             : ((const double *)g->plane_normal)[i];
        s += v * v;
      }
      if (s == 0)
        return bad_input(b, "array 'pv_plane_normal': row %zu is zero", c);
    }
  }
  snprintf(name, sizeof name, "%s_weight", g->tname);
  if ((rc = get_real(b, in, name, 0, 1, s1, "per-contact weight",
                     &g->weight)) != 0 ||
      (rc = check_values(b, name, g->weight, g->m, 0)) != 0)
    return rc;
  snprintf(name, sizeof name, "%s_dtype", g->tname);
  if ((rc = read_dtype(b, in, name, g)) != 0)
    return rc;
  snprintf(name, sizeof name, "%s_dmin", g->tname);
  if ((rc = get_real(b, in, name, 0, 1, s1, "per-contact dmin", &g->dmin)) !=
          0 ||
      (rc = check_values(b, name, g->dmin, g->m, 1)) != 0)
    return rc;
  return 0;
}

int barrier_input_read(barrier_input *b, const npz_archive *in) {
  int rc;
  if ((rc = check_names(b, in)) != 0 || (rc = read_positions(b, in)) != 0 ||
      (rc = get_scalar(b, in, "dhat", 1, 1, &b->dhat)) != 0 ||
      (rc = get_scalar(b, in, "kappa", 1, 1, &b->kappa)) != 0 ||
      (rc = get_scalar(b, in, "dmin", 0, 0, &b->dmin)) != 0)
    return rc;
  for (int t = 0; t < BARRIER_N_TYPES; ++t) {
    barrier_type *g = &b->g[t];
    g->type = (fricl_stencil)t;
    g->tname = fricl_stencil_name(g->type);
    g->k = (size_t)fricl_stencil_vertex_count(g->type);
    if (!npz_find(in, g->tname))
      continue;
    g->present = 1;
    if (b->dim == 2 &&
        (g->type == FRICL_STENCIL_EE || g->type == FRICL_STENCIL_FV))
      return bad_input(b,
                       "array '%s': %s contacts exist only in 3-D, but "
                       "positions is 2-D",
                       g->tname, g->tname);
    if ((rc = read_type(b, in, g)) != 0)
      return rc;
  }
  return 0;
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
