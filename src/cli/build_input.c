/* build_input.c - see build_input.h. */
#include "build_input.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "npz_input.h"
#include "npz_schema.h"

/* ------------------------------------------------------------ schema */

#define F(field) offsetof(build_input, field)
#define G(field) offsetof(build_type, field)

/* mu_s / mu_k: a scalar, or (n,) per vertex. */
static int read_mu(npz_reader *r, const npz_row *row, const npz_member *mb,
                   void *dst, size_t m) {
  build_input *b = dst;
  const npy_array *a = &mb->array;
  (void)m;
  if (a->info.ndim == 1 && a->info.shape[0] == r->n && r->n != 1) {
    void **vertex = row->offset == F(mu_s) ? &b->vertex_mu_s : &b->vertex_mu_k;
    if (!npy_is_real(a->info.dtype))
      return npz_bad_dtype(r, row->name, a, "float64 or float32");
    if (!(*vertex = npy_real_copy(a, r->precision)))
      return npz_out_of_memory(r, row->name);
    return 0;
  }
  if (a->info.count != 1 || a->info.ndim > 1)
    return npz_bad_shape(r, row->name, a,
                         "a scalar or shape (n,) = (%zu,) (one per vertex)",
                         r->n);
  return npz_read_scalar(r, mb, 1, (double *)(void *)((char *)b + row->offset));
}

static const npz_row globals[] = {
    NPZ_ROW_POSITIONS("lagged_positions", F(lagged)),
    NPZ_ROW_REAL("rest_positions", "n, dim", 0, 0, F(rest), NPZ_ANY,
                 "rest positions, like lagged_positions"),
    NPZ_ROW_SCALAR("dhat", NPZ_REQUIRED, F(dhat), NPZ_ANY,
                   "the barrier activation distance, not squared"),
    NPZ_ROW_SCALAR("kappa", NPZ_REQUIRED, F(kappa), NPZ_ANY,
                   "the barrier stiffness"),
    NPZ_ROW_SCALAR("dmin", 0, F(dmin), NPZ_ANY, "minimum distance"),
    {.name = "mu_s", .kind = NPZ_CUSTOM, .offset = F(mu_s), .read = read_mu},
    {.name = "mu_k", .kind = NPZ_CUSTOM, .offset = F(mu_k), .read = read_mu},
};

static const npz_row fields[] = {
    NPZ_ROWS_PV_PLANE(G(plane_normal), G(plane_offset), NPZ_ANY, NULL),
    NPZ_ROW_PER_CONTACT("dmin", 0, G(dmin), NPZ_ANY, "per-contact dmin"),
    NPZ_ROW_PER_CONTACT("weight", 0, G(weight), NPZ_ANY, "per-contact weight"),
    NPZ_ROW_PER_CONTACT("mu_s", 0, G(mu_s), NPZ_ANY, "per-contact mu_s"),
    NPZ_ROW_PER_CONTACT("mu_k", 0, G(mu_k), NPZ_ANY, "per-contact mu_k"),
};

/* After a type's inputs: its outputs, and its mu, per vertex or per
 * contact. */
static int type_done(npz_reader *r, void *input, void *type) {
  build_type *g = type;
  (void)input;
  const size_t m = g->m, dim = (size_t)r->dim;
  const size_t esz = r->precision == FRICL_F32 ? sizeof(float) : sizeof(double);
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
    return npz_out_of_memory(r, g->tname);
  for (int k = 0; k < 2; ++k) {
    const char *mu = k == 0 ? "mu_s" : "mu_k";
    if (!npz_find(r->in, mu) && !(k == 0 ? g->mu_s : g->mu_k))
      return npz_bad_input(r,
                           "required array '%s' (a scalar, or (n,) per "
                           "vertex) is missing and '%s_%s' does not give it "
                           "per contact",
                           mu, g->tname, mu);
  }
  return 0;
}

static const npz_schema schema =
    NPZ_SCHEMA(globals, fields, build_input, g, build_type, type_done, "build");

int build_input_read(build_input *b, const npz_archive *in,
                     const char *const *extra) {
  npz_reader r = {b->cmd, b->path, NULL, b->precision, in, NULL, 0, 0};
  const int rc = npz_schema_read(&r, &schema, b, extra);
  b->n = r.n;
  b->dim = r.dim;
  return rc;
}

/* -------------------------------------------------------------- run */

fricl_status build_input_run(fricl_context *ctx, build_input *b,
                             fricl_mu_blend blend, int physical_barrier) {
  fricl_build_group groups[BUILD_N_TYPES];
  fricl_build_batch batch;
  build_input_batch(b, blend, physical_barrier, &batch, groups);
  return fricl_build(ctx, &batch);
}

/* The library's group of type g: its inputs and where its outputs go. */
static fricl_build_group group_of(const build_type *g) {
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = g->type;
  G.count = g->m;
  G.vertices = g->ids;
  G.plane_normal = g->plane_normal;
  G.plane_offset = g->plane_offset;
  G.dmin = g->dmin;
  G.weight = g->weight;
  G.mu_s = g->mu_s;
  G.mu_k = g->mu_k;
  G.closest_point = g->nb ? g->cp : NULL;
  G.tangent_basis = g->basis;
  G.normal_force = g->normal;
  G.weight_out = g->weight_out;
  G.mu_s_out = g->mu_s_out;
  G.mu_k_out = g->mu_k_out;
  G.status = g->status;
  return G;
}

void build_input_batch(build_input *b, fricl_mu_blend blend,
                       int physical_barrier, fricl_build_batch *out,
                       fricl_build_group *groups) {
  fricl_build_batch batch;
  size_t ng = 0;
  memset(groups, 0, BUILD_N_TYPES * sizeof *groups);
  for (int t = 0; t < BUILD_N_TYPES; ++t)
    if (b->g[t].present)
      groups[ng++] = group_of(&b->g[t]);
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
