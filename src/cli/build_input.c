/* build_input.c - see build_input.h. */
#include "build_input.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npz_input.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* Per-type input arrays, after the type's name and '_' (pv_plane_* only
 * for pv). */
static const char *const type_fields[] = {
    "dmin", "weight", "mu_s", "mu_k", "plane_normal", "plane_offset"};
#define N_TYPE_FIELDS (sizeof type_fields / sizeof type_fields[0])
static const char *const global_names[] = {"lagged_positions",
                                           "rest_positions",
                                           "dhat",
                                           "kappa",
                                           "dmin",
                                           "mu_s",
                                           "mu_k"};
#define N_GLOBALS (sizeof global_names / sizeof global_names[0])

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int
bad_input(const build_input *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: %s: ", b->cmd, b->path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

static int out_of_memory(const build_input *b, const char *what) {
  fprintf(stderr, "%s: out of memory (%s)\n", b->cmd, what);
  return EXIT_RUNTIME;
}

/* ------------------------------------------------------------ names */

static int known_name(const char *name, const char *const *extra) {
  for (size_t i = 0; extra && extra[i]; ++i)
    if (strcmp(name, extra[i]) == 0)
      return 1;
  for (size_t i = 0; i < N_GLOBALS; ++i)
    if (strcmp(name, global_names[i]) == 0)
      return 1;
  for (int t = 0; t < BUILD_N_TYPES; ++t) {
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    const size_t tl = strlen(tn);
    if (strncmp(name, tn, tl) != 0)
      continue;
    if (name[tl] == '\0')
      return 1;
    if (name[tl] != '_')
      continue;
    const size_t nf = t == FRICL_STENCIL_PV ? N_TYPE_FIELDS : 4;
    for (size_t f = 0; f < nf; ++f)
      if (strcmp(name + tl + 1, type_fields[f]) == 0)
        return 1;
  }
  return 0;
}

static int check_names(const build_input *b, const npz_archive *in,
                       const char *const *extra) {
  for (size_t i = 0; i < in->count; ++i) {
    const char *name = in->members[i].name;
    if (!known_name(name, extra))
      return bad_input(b,
                       "unknown array '%s' (the build schema has "
                       "lagged_positions, rest_positions, dhat, kappa, dmin, "
                       "mu_s, mu_k and per stencil type T in vv ev ee fv pv: "
                       "T, T_dmin, T_weight, T_mu_s, T_mu_k, pv_plane_normal, "
                       "pv_plane_offset; see 'fricl build --help')",
                       name);
  }
  for (size_t i = 0; i < in->count; ++i) {
    const char *name = in->members[i].name;
    for (int t = 0; t < BUILD_N_TYPES; ++t) {
      const char *tn = fricl_stencil_name((fricl_stencil)t);
      const size_t tl = strlen(tn);
      if (strncmp(name, tn, tl) == 0 && name[tl] == '_' &&
          known_name(name, NULL) && !npz_find(in, tn))
        return bad_input(b,
                         "array '%s' is given but '%s' (the vertex ids of "
                         "the %s contacts) is missing",
                         name, tn, tn);
    }
  }
  return 0;
}

/* ----------------------------------------------------------- arrays */

/* The real array `name` of exactly this shape, converted. *out stays NULL
 * when it is absent and optional: npz_read_real, reported for this
 * command. */
static int get_real(const build_input *b, const npz_archive *in,
                    const char *name, int required, int ndim,
                    const size_t *shape, const char *what, void **out) {
  char msg[512];
  const int rc = npz_read_real(in, name, required, ndim, shape, what,
                               b->precision, out, msg, sizeof msg);
  if (rc == 2)
    return bad_input(b, "%s", msg);
  return rc ? out_of_memory(b, name) : 0;
}

/* A scalar (shape () or (1,), real or integer). *present = 0 when absent
 * and optional. */
static int get_scalar(const build_input *b, const npz_archive *in,
                      const char *name, int required, const char *what,
                      double *value, int *present) {
  char got[128];
  *present = 0;
  const npz_member *mb = npz_find(in, name);
  if (!mb) {
    if (required)
      return bad_input(b, "required array '%s' (a scalar: %s) is missing", name,
                       what);
    return 0;
  }
  const npy_array *a = &mb->array;
  const npy_dtype dt = a->info.dtype;
  if (!npy_is_real(dt) && dt != NPY_I4 && dt != NPY_I8)
    return bad_input(b, "array '%s': dtype '%s' is not a real or integer", name,
                     npy_dtype_descr(dt));
  if (a->info.count != 1 || a->info.ndim > 1)
    return bad_input(
        b, "array '%s': expected a scalar (shape () or (1,)), got %s", name,
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  *value = npy_is_real(dt) ? npy_real_at(a, 0) : (double)npy_int_at(a, 0);
  *present = 1;
  return 0;
}

/* mu_s / mu_k: a scalar, or (n,) per vertex. *present = 0 when absent. */
static int get_mu(build_input *b, const npz_archive *in, const char *name,
                  double *scalar, void **vertex, int *present) {
  char got[128];
  *present = 0;
  const npz_member *mb = npz_find(in, name);
  if (!mb)
    return 0;
  const npy_array *a = &mb->array;
  if (a->info.ndim == 1 && a->info.shape[0] == b->n && b->n != 1) {
    if (!npy_is_real(a->info.dtype))
      return bad_input(b, "array '%s': dtype '%s' is not float64 or float32",
                       name, npy_dtype_descr(a->info.dtype));
    if (!(*vertex = npy_real_copy(a, b->precision)))
      return out_of_memory(b, name);
    *present = 1;
    return 0;
  }
  if (a->info.count != 1 || a->info.ndim > 1)
    return bad_input(
        b,
        "array '%s': expected a scalar or shape (n,) = (%zu,) (one per "
        "vertex), got %s",
        name, b->n,
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  return get_scalar(b, in, name, 1, "", scalar, present);
}

static int read_positions(build_input *b, const npz_archive *in) {
  char got[128];
  const npz_member *mb = npz_find(in, "lagged_positions");
  if (!mb)
    return bad_input(b,
                     "required array 'lagged_positions' (n, dim) is missing");
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype))
    return bad_input(b,
                     "array 'lagged_positions': dtype '%s' is not float64 "
                     "or float32",
                     npy_dtype_descr(a->info.dtype));
  if (a->info.ndim != 2 || (a->info.shape[1] != 2 && a->info.shape[1] != 3))
    return bad_input(
        b,
        "array 'lagged_positions': expected shape (n, dim) with dim 2 or 3, "
        "got %s",
        npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
  b->n = a->info.shape[0];
  b->dim = (int)a->info.shape[1];
  if (b->n > (size_t)INT32_MAX)
    return bad_input(b,
                     "array 'lagged_positions': %zu vertices exceed the "
                     "int32 vertex ids",
                     b->n);
  if (!(b->lagged = npy_real_copy(a, b->precision)))
    return out_of_memory(b, "lagged_positions");
  const size_t shape[2] = {b->n, (size_t)b->dim};
  return get_real(b, in, "rest_positions", 0, 2, shape,
                  "rest positions, like lagged_positions", &b->rest);
}

static int read_ids(build_input *b, const npz_archive *in, build_type *g) {
  char msg[256];
  const int rc =
      npy_read_vertex_ids(&npz_find(in, g->tname)->array, g->tname, g->k, b->n,
                          "lagged_positions", &g->ids, &g->m, msg, sizeof msg);
  if (rc == 1)
    return out_of_memory(b, g->tname);
  return rc ? bad_input(b, "%s", msg) : 0;
}

static int read_type(build_input *b, const npz_archive *in, build_type *g) {
  char name[64];
  const size_t m = g->m, dim = (size_t)b->dim;
  const size_t s1[1] = {m}, s2[2] = {m, dim};
  int rc;
#define FIELD(f) (snprintf(name, sizeof name, "%s_%s", g->tname, f), name)
  if (g->type == FRICL_STENCIL_PV &&
      ((rc = get_real(b, in, "pv_plane_normal", 1, 2, s2,
                      "the plane normal n of each pv contact",
                      &g->plane_normal)) != 0 ||
       (rc = get_real(b, in, "pv_plane_offset", 1, 1, s1,
                      "the plane offset c: the plane is n.x + c = 0",
                      &g->plane_offset)) != 0))
    return rc;
  if ((rc = get_real(b, in, FIELD("dmin"), 0, 1, s1, "per-contact dmin",
                     &g->dmin)) != 0 ||
      (rc = get_real(b, in, FIELD("weight"), 0, 1, s1, "per-contact weight",
                     &g->weight)) != 0 ||
      (rc = get_real(b, in, FIELD("mu_s"), 0, 1, s1, "per-contact mu_s",
                     &g->mu_s)) != 0 ||
      (rc = get_real(b, in, FIELD("mu_k"), 0, 1, s1, "per-contact mu_k",
                     &g->mu_k)) != 0)
    return rc;
#undef FIELD
  const size_t esz = b->precision == FRICL_F32 ? sizeof(float) : sizeof(double);
  const size_t cp = cli_mul3(m, g->nb, esz);
  const size_t basis = cli_mul3(m, dim * (dim - 1), esz);
  if (cp == SIZE_MAX || basis == SIZE_MAX ||
      !(g->cp = cli_alloc_array(cp, 1)) ||
      !(g->basis = cli_alloc_array(basis, 1)) ||
      !(g->normal = cli_alloc_array(m, esz)) ||
      !(g->weight_out = cli_alloc_array(m, esz)) ||
      !(g->mu_s_out = cli_alloc_array(m, esz)) ||
      !(g->mu_k_out = cli_alloc_array(m, esz)) ||
      !(g->status = cli_alloc_array(m, 1)))
    return out_of_memory(b, g->tname);
  return 0;
}

int build_input_read(build_input *b, const npz_archive *in,
                     const char *const *extra) {
  int rc, have;
  if ((rc = check_names(b, in, extra)) != 0 ||
      (rc = read_positions(b, in)) != 0 ||
      (rc = get_scalar(b, in, "dhat", 1,
                       "the barrier activation distance, not squared", &b->dhat,
                       &have)) != 0 ||
      (rc = get_scalar(b, in, "kappa", 1, "the barrier stiffness", &b->kappa,
                       &have)) != 0 ||
      (rc = get_scalar(b, in, "dmin", 0, "minimum distance", &b->dmin,
                       &have)) != 0)
    return rc;
  int have_mu[2];
  if ((rc = get_mu(b, in, "mu_s", &b->mu_s, &b->vertex_mu_s, &have_mu[0])) !=
          0 ||
      (rc = get_mu(b, in, "mu_k", &b->mu_k, &b->vertex_mu_k, &have_mu[1])) != 0)
    return rc;
  for (int t = 0; t < BUILD_N_TYPES; ++t) {
    build_type *g = &b->g[t];
    g->type = (fricl_stencil)t;
    g->tname = fricl_stencil_name(g->type);
    g->k = (size_t)fricl_stencil_vertex_count(g->type);
    g->nb = (size_t)fricl_stencil_coord_count(g->type);
    if (!npz_find(in, g->tname))
      continue;
    g->present = 1;
    if (b->dim == 2 &&
        (g->type == FRICL_STENCIL_EE || g->type == FRICL_STENCIL_FV))
      return bad_input(b,
                       "array '%s': %s contacts exist only in 3-D, but "
                       "lagged_positions is 2-D",
                       g->tname, g->tname);
    if ((rc = read_ids(b, in, g)) != 0 || (rc = read_type(b, in, g)) != 0)
      return rc;
    for (int k = 0; k < 2; ++k)
      if (!have_mu[k] && !(k == 0 ? g->mu_s : g->mu_k))
        return bad_input(b,
                         "required array '%s' (a scalar, or (n,) per vertex) "
                         "is missing and '%s_%s' does not give it per "
                         "contact",
                         k == 0 ? "mu_s" : "mu_k", g->tname,
                         k == 0 ? "mu_s" : "mu_k");
  }
  return 0;
}

/* -------------------------------------------------------------- run */

fricl_status build_input_run(fricl_context *ctx, build_input *b,
                             fricl_mu_blend blend, int physical_barrier) {
  fricl_build_group groups[BUILD_N_TYPES];
  fricl_build_batch batch;
  build_input_batch(b, blend, physical_barrier, &batch, groups);
  return fricl_build(ctx, &batch);
}

void build_input_batch(build_input *b, fricl_mu_blend blend,
                       int physical_barrier, fricl_build_batch *out,
                       fricl_build_group *groups) {
  fricl_build_batch batch;
  size_t ng = 0;
  memset(groups, 0, BUILD_N_TYPES * sizeof *groups);
  for (int t = 0; t < BUILD_N_TYPES; ++t) {
    const build_type *g = &b->g[t];
    if (!g->present)
      continue;
    fricl_build_group *G = &groups[ng++];
    G->type = g->type;
    G->count = g->m;
    G->vertices = g->ids;
    G->plane_normal = g->plane_normal;
    G->plane_offset = g->plane_offset;
    G->dmin = g->dmin;
    G->weight = g->weight;
    G->mu_s = g->mu_s;
    G->mu_k = g->mu_k;
    G->closest_point = g->nb ? g->cp : NULL;
    G->tangent_basis = g->basis;
    G->normal_force = g->normal;
    G->weight_out = g->weight_out;
    G->mu_s_out = g->mu_s_out;
    G->mu_k_out = g->mu_k_out;
    G->status = g->status;
  }
  fricl_build_report_init(&b->report);
  fricl_build_batch_init(&batch);
  batch.precision = b->precision;
  batch.dim = b->dim;
  batch.flags = physical_barrier ? FRICL_BUILD_FLAG_PHYSICAL_BARRIER : 0u;
  batch.n_vertices = b->n;
  batch.lagged_positions = b->lagged;
  batch.rest_positions = b->rest;
  batch.kappa = b->kappa;
  batch.dhat = b->dhat;
  batch.dmin = b->dmin;
  batch.mu_s = b->mu_s;
  batch.mu_k = b->mu_k;
  batch.vertex_mu_s = b->vertex_mu_s;
  batch.vertex_mu_k = b->vertex_mu_k;
  batch.blend = blend;
  batch.n_groups = ng;
  batch.groups = groups;
  batch.report = &b->report;
  *out = batch;
}

/* ------------------------------------------------------------ output */

npy_status build_input_write(npz_writer *w, const build_input *b,
                             npy_error *err) {
  const npy_dtype real = b->precision == FRICL_F32 ? NPY_F4 : NPY_F8;
  const size_t dim = (size_t)b->dim;
  npy_status st = NPY_OK;
  char name[64];
#define ADD(field, dtype, ndim, shape, data)                                   \
  do {                                                                         \
    if (st == NPY_OK) {                                                        \
      snprintf(name, sizeof name, "%s%s", g->tname, field);                    \
      st = npz_writer_add(w, name, dtype, ndim, shape, data, err);             \
    }                                                                          \
  } while (0)
  for (int t = 0; t < BUILD_N_TYPES && st == NPY_OK; ++t) {
    const build_type *g = &b->g[t];
    if (!g->present)
      continue;
    const size_t ids[2] = {g->m, g->k}, cp[2] = {g->m, g->nb},
                 basis[3] = {g->m, dim, dim - 1}, one[1] = {g->m};
    ADD("", NPY_I4, 2, ids, g->ids);
    ADD("_closest_point", real, 2, cp, g->cp);
    ADD("_tangent_basis", real, 3, basis, g->basis);
    ADD("_normal_force", real, 1, one, g->normal);
    ADD("_mu_s", real, 1, one, g->mu_s_out);
    ADD("_mu_k", real, 1, one, g->mu_k_out);
    ADD("_weight", real, 1, one, g->weight_out);
    ADD("_status", NPY_U1, 1, one, g->status);
  }
#undef ADD
  if (st == NPY_OK) {
    int64_t counts[FRICL_BUILD_STATUS_COUNT];
    const size_t shape[1] = {FRICL_BUILD_STATUS_COUNT};
    for (int i = 0; i < FRICL_BUILD_STATUS_COUNT; ++i)
      counts[i] = (int64_t)b->report.count[i];
    st = npz_writer_add(w, "status_counts", NPY_I8, 1, shape, counts, err);
  }
  return st;
}

void build_input_report(const build_input *b, FILE *f) {
  fprintf(f, "%s: build: %zu contacts, %zu with N = 0 by status\n", b->cmd,
          b->report.total, b->report.no_force);
  for (int i = 1; i < FRICL_BUILD_STATUS_COUNT; ++i) {
    if (!b->report.count[i])
      continue;
    /* first_group indexes the groups passed, i.e. the present types. */
    size_t gi = b->report.first_group[i];
    const char *tn = "?";
    for (int t = 0; t < BUILD_N_TYPES; ++t)
      if (b->g[t].present && gi-- == 0) {
        tn = b->g[t].tname;
        break;
      }
    fprintf(f, "%s:   %-24s %zu (first %s[%zu]): %s\n", b->cmd,
            fricl_build_status_name((fricl_build_status)i), b->report.count[i],
            tn, b->report.first_contact[i],
            fricl_build_status_text((fricl_build_status)i));
  }
}

void build_input_free(build_input *b) {
  for (int t = 0; t < BUILD_N_TYPES; ++t) {
    build_type *g = &b->g[t];
    void *owned[] = {g->ids,      g->plane_normal, g->plane_offset, g->dmin,
                     g->weight,   g->mu_s,         g->mu_k,         g->cp,
                     g->basis,    g->normal,       g->weight_out,   g->mu_s_out,
                     g->mu_k_out, g->status};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
      free(owned[i]);
  }
  free(b->lagged);
  free(b->rest);
  free(b->vertex_mu_s);
  free(b->vertex_mu_k);
}
