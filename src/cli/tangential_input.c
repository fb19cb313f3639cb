/* tangential_input.c - see tangential_input.h. Moved out of
 * cmd_tangential.c so that fricl-mpi (src/petsc/cli) reads the same schema
 * with the same messages. */
#include "tangential_input.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "npz_input.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* The per-type data arrays, after the type's own name and '_'. */
static const char *const field_names[] = {
    "closest_point", "tangent_basis", "normal_force", "mu_s",
    "mu_k",          "weight",        "mu_aniso"};
#define N_FIELDS (sizeof field_names / sizeof field_names[0])

/* --------------------------------------------------------- messages */

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static int
bad_input(const tangential_input *s, const char *fmt, ...) {
  FILE *f = s->err ? s->err : stderr;
  va_list ap;
  va_start(ap, fmt);
  fprintf(f, "%s: %s: ", s->cmd, s->path);
  vfprintf(f, fmt, ap);
  fputc('\n', f);
  va_end(ap);
  return EXIT_USAGE;
}

static int out_of_memory(const tangential_input *s, const char *what) {
  fprintf(s->err ? s->err : stderr, "%s: out of memory (%s)\n", s->cmd, what);
  return EXIT_RUNTIME;
}

static const char *shape_text(char *buf, size_t size, const npy_array *a) {
  return npy_format_shape(buf, size, a->info.ndim, a->info.shape);
}

/* ------------------------------------------------------ input schema */

/* Is `name` in the NULL-terminated list (which may be NULL)? */
static int in_list(const char *name, const char *const *list) {
  for (; list && *list; ++list)
    if (strcmp(name, *list) == 0)
      return 1;
  return 0;
}

/* Is `name` one of the arrays of the schema? */
static int known_name(const char *name) {
  if (strcmp(name, "velocities") == 0 || strcmp(name, "eps_v") == 0)
    return 1;
  for (int t = 0; t < TANGENTIAL_N_TYPES; ++t) {
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

static int check_names(const tangential_input *s, const char *const *extra) {
  for (size_t i = 0; i < s->in.count; ++i) {
    const char *name = s->in.members[i].name;
    if (!known_name(name) && !in_list(name, extra))
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
    if (!us || strcmp(name, "eps_v") == 0 || in_list(name, extra))
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
static int get_real(tangential_input *s, const char *name, int required,
                    int ndim, const size_t *shape, int alt_ndim,
                    const size_t *alt, const char *spelled, void **out) {
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
  if (!(*out = npy_real_copy(a, s->precision)))
    return out_of_memory(s, name);
  return 0;
}

static int read_globals(tangential_input *s) {
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
  if (!(s->velocities = npy_real_copy(a, s->precision)))
    return out_of_memory(s, "velocities");

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
static int read_ids(tangential_input *s, tangential_group *g) {
  char msg[256];
  const int rc =
      npy_read_vertex_ids(&npz_find(&s->in, g->tname)->array, g->tname, g->k,
                          s->n, "velocities", &g->ids, &g->m, msg, sizeof msg);
  if (rc == 1)
    return out_of_memory(s, g->tname);
  return rc ? bad_input(s, "%s", msg) : 0;
}

static int read_group(tangential_input *s, tangential_group *g) {
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
 * They are filled when the build runs, before the evaluation. The arrays
 * pass through host memory here; on an OpenCL device `fricl tangential
 * --build` keeps them on the device instead (tangential_device.c). */
static void groups_from_build(tangential_input *s) {
  for (int t = 0; t < TANGENTIAL_N_TYPES; ++t) {
    const build_type *b = &s->build.g[t];
    tangential_group *g = &s->g[t];
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
static int read_build_input(tangential_input *s, const char *const *extra) {
  const char *names[16] = {"velocities", "eps_v"};
  size_t n_names = 2;
  for (; extra && *extra && n_names + 1 < sizeof names / sizeof names[0];
       ++extra)
    names[n_names++] = *extra;
  char got[128];
  s->build.cmd = s->cmd;
  s->build.path = s->path;
  s->build.precision = s->precision;
  int rc;
  if ((rc = build_input_read(&s->build, &s->in, names)) != 0 ||
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

int tangential_input_read(tangential_input *s, const char *const *extra) {
  npy_error err;
  const npy_status st = npz_read_file(s->path, &s->in, &err);
  if (st != NPY_OK) {
    fprintf(s->err ? s->err : stderr, "%s: %s: %s\n", s->cmd, s->path, err.msg);
    return st == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
  }
  if (s->with_build)
    return read_build_input(s, extra);
  int rc;
  if ((rc = check_names(s, extra)) != 0 || (rc = read_globals(s)) != 0)
    return rc;
  for (int t = 0; t < TANGENTIAL_N_TYPES; ++t) {
    tangential_group *g = &s->g[t];
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

void tangential_input_free(tangential_input *s) {
  for (int t = 0; t < TANGENTIAL_N_TYPES; ++t) {
    tangential_group *g = &s->g[t];
    if (g->borrowed)
      continue;
    void *owned[] = {g->ids,  g->cp,   g->basis,  g->normal,
                     g->mu_s, g->mu_k, g->weight, g->aniso};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
      free(owned[i]);
  }
  build_input_free(&s->build);
  free(s->velocities);
  npz_archive_free(&s->in);
}
