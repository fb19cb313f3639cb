/* cmd_tangential.c - `fricl tangential`: read a contact set from an .npz
 * archive, evaluate the tangential potential with fricl_tangential_eval,
 * write D, the gradient and the requested Hessian as an .npz atomically. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "build_input.h"
#include "cli_args.h"
#include "commands.h"
#include "fricl/fricl.h"
#include "npz.h"
#include "npz_input.h"
#include "tangential_args.h"
#include "tangential_device.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

#define N_TYPES 5

/* The per-type data arrays, after the type's own name and '_'. */
static const char *const field_names[] = {
    "closest_point", "tangent_basis", "normal_force", "mu_s",
    "mu_k",          "weight",        "mu_aniso"};
#define N_FIELDS (sizeof field_names / sizeof field_names[0])

/* One stencil type's contacts: inputs converted to the working precision
 * (owned, or with --build borrowed from the build's outputs), outputs
 * allocated here. */
typedef struct group_data {
  int present;
  int borrowed; /* the inputs (ids ... aniso) belong to run_state.build */
  fricl_stencil type;
  const char *tname;
  size_t m, k, nb;
  int32_t *ids;
  void *cp, *basis, *normal, *mu_s, *mu_k, *weight, *aniso;
  void *potential, *hessian, *gamma, *grad, *hfac;
} group_data;

typedef struct run_state {
  const tangential_args *args;
  npz_archive in;
  int dim;
  size_t n;
  double eps_v;
  void *velocities;
  group_data g[N_TYPES];
  size_t esz;
  build_input build; /* --build only */
} run_state;

/* --------------------------------------------------------- messages */

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int
bad_input(const run_state *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fricl tangential: %s: ", s->args->in_path);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

static int out_of_memory(const char *what) {
  fprintf(stderr, "fricl tangential: out of memory (%s)\n", what);
  return EXIT_RUNTIME;
}

static const char *shape_text(char *buf, size_t size, const npy_array *a) {
  return npy_format_shape(buf, size, a->info.ndim, a->info.shape);
}

/* ------------------------------------------------------ input schema */

/* Is `name` one of the arrays of the schema? */
static int known_name(const char *name) {
  if (strcmp(name, "velocities") == 0 || strcmp(name, "eps_v") == 0)
    return 1;
  for (int t = 0; t < N_TYPES; ++t) {
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    const size_t tl = strlen(tn);
    if (strncmp(name, tn, tl) != 0)
      continue;
    if (name[tl] == '\0')
      return 1;
    if (name[tl] != '_')
      continue;
    for (size_t f = 0; f < N_FIELDS; ++f)
      if (strcmp(name + tl + 1, field_names[f]) == 0)
        return 1;
  }
  return 0;
}

static int check_names(const run_state *s) {
  for (size_t i = 0; i < s->in.count; ++i) {
    const char *name = s->in.members[i].name;
    if (!known_name(name))
      return bad_input(s,
                       "unknown array '%s' (the schema has velocities, eps_v "
                       "and per stencil type T in vv ev ee fv pv: T, "
                       "T_closest_point, T_tangent_basis, T_normal_force, "
                       "T_mu_s, T_mu_k, T_weight, T_mu_aniso; see 'fricl "
                       "tangential --help')",
                       name);
  }
  /* Data of a type whose id array is missing. */
  for (size_t i = 0; i < s->in.count; ++i) {
    const char *name = s->in.members[i].name;
    const char *us = strchr(name, '_');
    if (!us || strcmp(name, "eps_v") == 0)
      continue;
    char tn[8];
    const size_t tl = (size_t)(us - name);
    if (tl >= sizeof tn)
      continue;
    memcpy(tn, name, tl);
    tn[tl] = '\0';
    if (!npz_find(&s->in, tn))
      return bad_input(s,
                       "array '%s' is given but '%s' (the vertex ids of the "
                       "%s contacts) is missing",
                       name, tn, tn);
  }
  return 0;
}

/* The real array `name` with the expected shape (ndim dims; a dimension of
 * SIZE_MAX matches anything), converted. *out stays NULL when the array is
 * absent and optional. `alt_ndim`/`alt` give a second accepted shape
 * (alt_ndim < 0: none). `spelled` describes the shape for messages. */
static int get_real(run_state *s, const char *name, int required, int ndim,
                    const size_t *shape, int alt_ndim, const size_t *alt,
                    const char *spelled, void **out) {
  char got[128];
  *out = NULL;
  const npz_member *mb = npz_find(&s->in, name);
  if (!mb) {
    if (required)
      return bad_input(s, "required array '%s' %s is missing", name, spelled);
    return 0;
  }
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype))
    return bad_input(s, "array '%s': dtype '%s' is not float64 or float32",
                     name, npy_dtype_descr(a->info.dtype));
  int ok = 0;
  for (int v = 0; v < 2 && !ok; ++v) {
    const int nd = v == 0 ? ndim : alt_ndim;
    const size_t *sh = v == 0 ? shape : alt;
    if (nd < 0 || a->info.ndim != nd)
      continue;
    ok = 1;
    for (int d = 0; d < nd; ++d)
      if (sh[d] != SIZE_MAX && sh[d] != a->info.shape[d])
        ok = 0;
  }
  if (!ok)
    return bad_input(s, "array '%s': expected shape %s, got %s", name, spelled,
                     shape_text(got, sizeof got, a));
  if (!(*out = npy_real_copy(a, s->args->precision)))
    return out_of_memory(name);
  return 0;
}

static int read_globals(run_state *s) {
  char got[128];
  const npz_member *v = npz_find(&s->in, "velocities");
  if (!v)
    return bad_input(s, "required array 'velocities' (n, dim) is missing");
  const npy_array *a = &v->array;
  if (!npy_is_real(a->info.dtype))
    return bad_input(s,
                     "array 'velocities': dtype '%s' is not float64 or "
                     "float32",
                     npy_dtype_descr(a->info.dtype));
  if (a->info.ndim != 2 || (a->info.shape[1] != 2 && a->info.shape[1] != 3))
    return bad_input(s,
                     "array 'velocities': expected shape (n, dim) with dim 2 "
                     "or 3, got %s",
                     shape_text(got, sizeof got, a));
  s->n = a->info.shape[0];
  s->dim = (int)a->info.shape[1];
  if (s->n > (size_t)INT32_MAX)
    return bad_input(s,
                     "array 'velocities': %zu vertices exceed the int32 "
                     "vertex ids",
                     s->n);
  if (!(s->velocities = npy_real_copy(a, s->args->precision)))
    return out_of_memory("velocities");

  const npz_member *e = npz_find(&s->in, "eps_v");
  if (!e)
    return bad_input(s, "required array 'eps_v' (a scalar) is missing");
  a = &e->array;
  if (!npy_is_real(a->info.dtype))
    return bad_input(s, "array 'eps_v': dtype '%s' is not float64 or float32",
                     npy_dtype_descr(a->info.dtype));
  if (a->info.count != 1 || a->info.ndim > 1)
    return bad_input(s,
                     "array 'eps_v': expected a scalar (shape () or (1,)), "
                     "got %s",
                     shape_text(got, sizeof got, a));
  s->eps_v = npy_real_at(a, 0);
  if (!(isfinite(s->eps_v) && s->eps_v > 0))
    return bad_input(s, "eps_v = %g: it must be finite and > 0", s->eps_v);
  return 0;
}

/* The vertex ids of type t, converted to int32 with a range check. */
static int read_ids(run_state *s, group_data *g) {
  char msg[256];
  const int rc =
      npy_read_vertex_ids(&npz_find(&s->in, g->tname)->array, g->tname, g->k,
                          s->n, "velocities", &g->ids, &g->m, msg, sizeof msg);
  if (rc == 1)
    return out_of_memory(g->tname);
  return rc ? bad_input(s, "%s", msg) : 0;
}

static int read_group(run_state *s, group_data *g) {
  char name[64], spelled[96];
  const size_t m = g->m, dim = (size_t)s->dim, mt = dim - 1;
  int rc;
#define FIELD(f) (snprintf(name, sizeof name, "%s_%s", g->tname, f), name)
  /* closest_point */
  if (g->nb > 0) {
    const size_t sh[2] = {m, g->nb}, alt[1] = {m};
    snprintf(spelled, sizeof spelled, "(m, %zu) = (%zu, %zu)%s", g->nb, m,
             g->nb, g->nb == 1 ? " or (m,)" : "");
    if ((rc = get_real(s, FIELD("closest_point"), 1, 2, sh, g->nb == 1 ? 1 : -1,
                       alt, spelled, &g->cp)) != 0)
      return rc;
  } else {
    const size_t sh[2] = {m, 0};
    void *unused = NULL;
    snprintf(spelled, sizeof spelled,
             "(m, 0) = (%zu, 0) (%s contacts have no closest-point "
             "coordinates)",
             m, g->tname);
    rc = get_real(s, FIELD("closest_point"), 0, 2, sh, -1, NULL, spelled,
                  &unused);
    free(unused);
    if (rc != 0)
      return rc;
  }
  {
    const size_t sh[3] = {m, dim, mt};
    snprintf(spelled, sizeof spelled, "(m, dim, dim-1) = (%zu, %zu, %zu)", m,
             dim, mt);
    if ((rc = get_real(s, FIELD("tangent_basis"), 1, 3, sh, -1, NULL, spelled,
                       &g->basis)) != 0)
      return rc;
  }
  {
    const size_t sh[1] = {m};
    snprintf(spelled, sizeof spelled, "(m,) = (%zu,)", m);
    if ((rc = get_real(s, FIELD("normal_force"), 1, 1, sh, -1, NULL, spelled,
                       &g->normal)) != 0 ||
        (rc = get_real(s, FIELD("mu_s"), 1, 1, sh, -1, NULL, spelled,
                       &g->mu_s)) != 0 ||
        (rc = get_real(s, FIELD("mu_k"), 1, 1, sh, -1, NULL, spelled,
                       &g->mu_k)) != 0 ||
        (rc = get_real(s, FIELD("weight"), 0, 1, sh, -1, NULL, spelled,
                       &g->weight)) != 0)
      return rc;
  }
  {
    const size_t sh[2] = {m, mt};
    snprintf(spelled, sizeof spelled, "(m, dim-1) = (%zu, %zu)", m, mt);
    if ((rc = get_real(s, FIELD("mu_aniso"), 0, 2, sh, -1, NULL, spelled,
                       &g->aniso)) != 0)
      return rc;
  }
#undef FIELD
  return 0;
}

/* ----------------------------------------------------------- --build */

/* Point the contact groups at the build's outputs, which have exactly the
 * layout of fricl_contact_group's inputs (no copy, no file round trip).
 * They are filled when the build runs, before the evaluation. On an
 * OpenCL device the build's outputs stay on the device instead and only
 * come back for the output file (tangential_device.c). */
static void groups_from_build(run_state *s) {
  for (int t = 0; t < N_TYPES; ++t) {
    const build_type *b = &s->build.g[t];
    group_data *g = &s->g[t];
    g->type = b->type;
    g->tname = b->tname;
    g->k = b->k;
    g->nb = b->nb;
    if (!b->present)
      continue;
    g->present = 1;
    g->borrowed = 1;
    g->m = b->m;
    g->ids = b->ids;
    g->cp = b->nb ? b->cp : NULL;
    g->basis = b->basis;
    g->normal = b->normal;
    g->weight = b->weight_out;
    g->mu_s = b->mu_s_out;
    g->mu_k = b->mu_k_out;
  }
}

/* The build input plus velocities and eps_v, of the same vertex count. */
static int read_build_input(run_state *s) {
  static const char *const extra[] = {"velocities", "eps_v", NULL};
  char got[128];
  s->build.cmd = "fricl tangential";
  s->build.path = s->args->in_path;
  s->build.precision = s->args->precision;
  int rc;
  if ((rc = build_input_read(&s->build, &s->in, extra)) != 0 ||
      (rc = read_globals(s)) != 0)
    return rc;
  if (s->n != s->build.n || s->dim != s->build.dim)
    return bad_input(
        s,
        "array 'velocities': expected shape (%zu, %d) like "
        "lagged_positions, got %s",
        s->build.n, s->build.dim,
        shape_text(got, sizeof got, &npz_find(&s->in, "velocities")->array));
  groups_from_build(s);
  return 0;
}

static int read_input(run_state *s) {
  npy_error err;
  const npy_status st = npz_read_file(s->args->in_path, &s->in, &err);
  if (st != NPY_OK) {
    fprintf(stderr, "fricl tangential: %s: %s\n", s->args->in_path, err.msg);
    return st == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (s->args->build)
    return read_build_input(s);
  int rc;
  if ((rc = check_names(s)) != 0 || (rc = read_globals(s)) != 0)
    return rc;
  for (int t = 0; t < N_TYPES; ++t) {
    group_data *g = &s->g[t];
    g->type = (fricl_stencil)t;
    g->tname = fricl_stencil_name(g->type);
    g->k = (size_t)fricl_stencil_vertex_count(g->type);
    g->nb = (size_t)fricl_stencil_coord_count(g->type);
    if (!npz_find(&s->in, g->tname))
      continue;
    g->present = 1;
    if (s->dim == 2 &&
        (g->type == FRICL_STENCIL_EE || g->type == FRICL_STENCIL_FV))
      return bad_input(s,
                       "array '%s': %s contacts exist only in 3-D, but "
                       "velocities is 2-D",
                       g->tname, g->tname);
    if ((rc = read_ids(s, g)) != 0 || (rc = read_group(s, g)) != 0)
      return rc;
  }
  return 0;
}

/* ------------------------------------------------------------ output */

static int alloc_outputs(run_state *s) {
  const size_t dim = (size_t)s->dim, esz = s->esz;
  for (int t = 0; t < N_TYPES; ++t) {
    group_data *g = &s->g[t];
    if (!g->present)
      continue;
    const size_t ndof = g->k * dim;
    const size_t sizes[5] = {
        cli_mul3(g->m, 1, esz), cli_mul3(g->m, ndof * ndof, esz),
        cli_mul3(g->m, g->k, esz), cli_mul3(g->m, dim, esz),
        cli_mul3(g->m, dim * (dim + 1) / 2, esz)};
    void **slots[5] = {&g->potential, &g->hessian, &g->gamma, &g->grad,
                       &g->hfac};
    const int want[5] = {1, s->args->hessian == TANGENTIAL_HESSIAN_LOCAL,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED};
    for (int i = 0; i < 5; ++i) {
      if (!want[i])
        continue;
      if (sizes[i] == SIZE_MAX || !(*slots[i] = cli_alloc_array(sizes[i], 1)))
        return out_of_memory(g->tname);
    }
  }
  return 0;
}

static npy_status add_real(npz_writer *w, const run_state *s, const char *name,
                           int ndim, const size_t *shape, const void *data,
                           npy_error *err) {
  return npz_writer_add(w, name,
                        s->args->precision == FRICL_F32 ? NPY_F4 : NPY_F8, ndim,
                        shape, data, err);
}

typedef struct global_hessian {
  size_t nnz; /* scalar entries */
  int64_t *rows, *cols;
  void *values;
} global_hessian;

static npy_status write_outputs(FILE *f, const run_state *s,
                                const void *potential, const void *gradient,
                                const global_hessian *h, npy_error *err) {
  npz_writer *w = NULL;
  npy_status st =
      npz_writer_open(&w, f, s->args->compress ? NPZ_WRITE_DEFLATE : 0u, err);
  if (st != NPY_OK)
    return st;
  const size_t dim = (size_t)s->dim, ndofs = s->n * dim;
  st = add_real(w, s, "potential", 0, NULL, potential, err);
  if (st == NPY_OK)
    st = add_real(w, s, "gradient", 1, &ndofs, gradient, err);
  if (st == NPY_OK && h) {
    const size_t shape[1] = {h->nnz};
    const int64_t hs[2] = {(int64_t)ndofs, (int64_t)ndofs};
    const size_t two = 2;
    st = npz_writer_add(w, "hessian_rows", NPY_I8, 1, shape, h->rows, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_cols", NPY_I8, 1, shape, h->cols, err);
    if (st == NPY_OK)
      st = add_real(w, s, "hessian_values", 1, shape, h->values, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_shape", NPY_I8, 1, &two, hs, err);
  }
  for (int t = 0; t < N_TYPES && st == NPY_OK; ++t) {
    const group_data *g = &s->g[t];
    if (!g->present)
      continue;
    char name[64];
    const size_t ndof = g->k * dim;
    snprintf(name, sizeof name, "%s_potential", g->tname);
    st = add_real(w, s, name, 1, &g->m, g->potential, err);
    if (st == NPY_OK && g->hessian) {
      const size_t shape[3] = {g->m, ndof, ndof};
      snprintf(name, sizeof name, "%s_hessian", g->tname);
      st = add_real(w, s, name, 3, shape, g->hessian, err);
    }
    if (st == NPY_OK && g->gamma) {
      const size_t sg[2] = {g->m, g->k}, sq[2] = {g->m, dim},
                   ss[2] = {g->m, dim * (dim + 1) / 2};
      snprintf(name, sizeof name, "%s_gamma", g->tname);
      st = add_real(w, s, name, 2, sg, g->gamma, err);
      snprintf(name, sizeof name, "%s_grad", g->tname);
      if (st == NPY_OK)
        st = add_real(w, s, name, 2, sq, g->grad, err);
      snprintf(name, sizeof name, "%s_hessian_factored", g->tname);
      if (st == NPY_OK)
        st = add_real(w, s, name, 2, ss, g->hfac, err);
    }
  }
  if (st == NPY_OK && s->args->build)
    st = build_input_write(w, &s->build, err);
  if (st == NPY_OK)
    st = npz_writer_finish(w, err);
  npz_writer_free(w);
  return st;
}

/* -------------------------------------------------------------- run */

static fricl_status create_context(const tangential_args *a,
                                   fricl_context **ctx, char *msg,
                                   size_t msg_size) {
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = a->device;
  params.error_buffer = msg;
  params.error_buffer_size = msg_size;
  return fricl_context_create(ctx, &params);
}

static int library_error(fricl_context *ctx, fricl_status st,
                         const char *what) {
  fprintf(stderr, "fricl tangential: %s: %s: %s%s\n", what,
          fricl_status_string(st), fricl_context_last_error(ctx),
          st == FRICL_STATUS_NO_FP64 ? " (try --precision f32)" : "");
  return st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
}

/* BSR values -> scalar COO through the plan's CSR. */
static int expand_global(const run_state *s, const fricl_tangential_plan *plan,
                         const void *bsr, global_hessian *h) {
  const size_t dim = (size_t)s->dim, nrows = s->n * dim;
  size_t nnz_blocks = 0;
  if (fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL) !=
      FRICL_STATUS_OK)
    return out_of_memory("plan");
  h->nnz = cli_mul3(nnz_blocks, dim, dim);
  int64_t *row_ptr = cli_alloc_array(nrows + 1, sizeof *row_ptr);
  int32_t *cols32 = cli_alloc_array(h->nnz, sizeof *cols32);
  h->rows = cli_alloc_array(h->nnz, sizeof *h->rows);
  h->cols = cli_alloc_array(h->nnz, sizeof *h->cols);
  h->values = cli_alloc_array(h->nnz, s->esz);
  int rc = 0;
  if (h->nnz == SIZE_MAX || !row_ptr || !cols32 || !h->rows || !h->cols ||
      !h->values)
    rc = out_of_memory("global Hessian");
  else if (fricl_tangential_plan_csr(plan, s->args->precision, bsr, row_ptr,
                                     cols32, h->values) != FRICL_STATUS_OK)
    rc = out_of_memory("CSR conversion");
  for (size_t r = 0; rc == 0 && r < nrows; ++r)
    for (int64_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      h->rows[i] = (int64_t)r;
      h->cols[i] = cols32[i];
    }
  free(row_ptr);
  free(cols32);
  return rc;
}

static void report(const run_state *s) {
  fprintf(stderr, "fricl tangential: dim %d, %zu vertices, eps_v %g;", s->dim,
          s->n, s->eps_v);
  for (int t = 0; t < N_TYPES; ++t)
    if (s->g[t].present)
      fprintf(stderr, " %s %zu", s->g[t].tname, s->g[t].m);
  fputc('\n', stderr);
}

static void free_state(run_state *s) {
  for (int t = 0; t < N_TYPES; ++t) {
    group_data *g = &s->g[t];
    void *owned[] = {g->potential, g->hessian, g->gamma, g->grad,   g->hfac,
                     g->ids,       g->cp,      g->basis, g->normal, g->mu_s,
                     g->mu_k,      g->weight,  g->aniso};
    const size_t n_owned = g->borrowed ? 5 : sizeof owned / sizeof owned[0];
    for (size_t i = 0; i < n_owned; ++i)
      free(owned[i]);
  }
  build_input_free(&s->build);
  free(s->velocities);
  npz_archive_free(&s->in);
}

static int run_tangential(const tangential_args *a) {
  run_state s;
  atomic_file out;
  fricl_context *ctx = NULL;
  fricl_tangential_plan *plan = NULL;
  fricl_contact_group groups[N_TYPES];
  fricl_tangential_batch batch;
  global_hessian h;
  void *gradient = NULL, *bsr = NULL;
  double potential64 = 0;
  float potential32 = 0;
  char msg[512] = "";
  npy_error nerr;
  size_t ng = 0;
  int rc;
  memset(&s, 0, sizeof s);
  memset(&out, 0, sizeof out);
  memset(&h, 0, sizeof h);
  s.args = a;
  s.esz = a->precision == FRICL_F32 ? sizeof(float) : sizeof(double);

  /* 1. The input, checked completely before anything is created. */
  if ((rc = read_input(&s)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  const size_t ndofs = s.n * (size_t)s.dim;
  if (!(gradient = cli_alloc_array(ndofs, s.esz)) || alloc_outputs(&s) != 0) {
    out_of_memory("outputs");
    goto done;
  }

  /* 2. The output file, before OpenCL starts (as `fricl eval`). */
  if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, msg);
    goto done;
  }

  /* 3. Evaluate. */
  fricl_status st = create_context(a, &ctx, msg, sizeof msg);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl tangential: %s: %s\n", fricl_status_string(st), msg);
    rc = st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
    goto done;
  }
  if (a->verbose)
    report(&s);
  /* On an OpenCL device --build runs device-resident: fricl_build_cl,
   * then the evaluation on the build's device buffers. */
  const int on_device = a->build && tangential_device_wanted(ctx, a->device);
  if (a->build && !on_device) {
    st = build_input_run(ctx, &s.build, a->blend, a->physical_barrier);
    if (st != FRICL_STATUS_OK) {
      rc = library_error(ctx, st, a->in_path);
      goto done;
    }
    if (a->verbose)
      build_input_report(&s.build, stderr);
  }
  memset(groups, 0, sizeof groups);
  for (int t = 0; t < N_TYPES; ++t) {
    const group_data *g = &s.g[t];
    if (!g->present)
      continue;
    fricl_contact_group *G = &groups[ng++];
    G->type = g->type;
    G->count = g->m;
    G->vertices = g->ids;
    G->closest_point = g->cp;
    G->tangent_basis = g->basis;
    G->normal_force = g->normal;
    G->weight = g->weight;
    G->mu_s = g->mu_s;
    G->mu_k = g->mu_k;
    G->mu_aniso = g->aniso;
    G->potential = g->potential;
    G->local_hessian = g->hessian;
    G->factored_gamma = g->gamma;
    G->factored_grad = g->grad;
    G->factored_hessian = g->hfac;
  }
  fricl_tangential_batch_init(&batch);
  batch.precision = a->precision;
  batch.mu_profile = a->profile;
  batch.psd = a->psd;
  batch.flags = (a->ipctk_abs ? FRICL_TANGENTIAL_FLAG_IPCTK_ABS : 0u) |
                (a->check_basis ? FRICL_TANGENTIAL_FLAG_CHECK_BASIS : 0u);
  batch.dim = s.dim;
  batch.n_vertices = s.n;
  batch.velocities = s.velocities;
  batch.eps_v = s.eps_v;
  batch.n_groups = ng;
  batch.groups = groups;
  batch.potential =
      a->precision == FRICL_F32 ? (void *)&potential32 : (void *)&potential64;
  batch.gradient = gradient;
  if (a->hessian == TANGENTIAL_HESSIAN_GLOBAL) {
    st = fricl_tangential_plan_create(ctx, s.dim, s.n, ng, groups, &plan);
    if (st != FRICL_STATUS_OK) {
      rc = library_error(ctx, st, "plan");
      goto done;
    }
    size_t nnz_blocks = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL);
    const size_t bytes = cli_mul3(nnz_blocks, (size_t)(s.dim * s.dim), s.esz);
    if (bytes == SIZE_MAX || !(bsr = cli_alloc_array(bytes, 1))) {
      out_of_memory("global Hessian");
      goto done;
    }
    batch.plan = plan;
    batch.hessian_values = bsr;
  }
  st = on_device ? tangential_device_run(ctx, &s.build, a->blend,
                                         a->physical_barrier, &batch)
                 : fricl_tangential_eval(ctx, &batch);
  if (st != FRICL_STATUS_OK) {
    rc = library_error(ctx, st, a->in_path);
    goto done;
  }
  if (a->verbose && on_device) {
    build_input_report(&s.build, stderr);
    fprintf(stderr, "fricl tangential: --build device-resident: the build's "
                    "outputs stayed on the device for the evaluation\n");
  }
  if (a->verbose)
    cli_report_backend("fricl tangential", ctx);
  if (plan && (rc = expand_global(&s, plan, bsr, &h)) != 0)
    goto done;
  rc = EXIT_RUNTIME;

  /* 4. Write and publish. */
  if (write_outputs(out.fp, &s, batch.potential, gradient, plan ? &h : NULL,
                    &nerr) != NPY_OK) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, nerr.msg);
    goto done;
  }
  if (atomic_file_commit(&out, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, msg);
    goto done;
  }
  rc = 0;
done:
  atomic_file_abort(&out); /* removes the temporary file unless committed */
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(ctx);
  free(h.rows);
  free(h.cols);
  free(h.values);
  free(bsr);
  free(gradient);
  free_state(&s);
  return rc;
}

int cmd_tangential_main(int argc, char **argv) {
  tangential_args args;
  char err[512] = "";
  if (tangential_args_parse(argc, argv, &args, err, sizeof err) != 0) {
    fprintf(stderr, "fricl tangential: %s\n", err);
    return EXIT_USAGE;
  }
  if (args.help) {
    tangential_print_help(stdout);
    return 0;
  }
  return run_tangential(&args);
}
