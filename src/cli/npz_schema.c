/* npz_schema.c - see npz_schema.h. */
#include "npz_schema.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npz_input.h"
#include "same_file.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* Which stencil types exist only in 3-D, from the library's stencil
 * table. */
#define ONLY_3D_(name, value, text, k, nb, only3d) only3d,
static const int only_3d[] = {FRICL_STENCIL_MAP(ONLY_3D_)};
#undef ONLY_3D_

/* --------------------------------------------------------- messages */

int npz_bad_input(const npz_reader *r, const char *fmt, ...) {
  FILE *f = r->err ? r->err : stderr;
  va_list ap;
  va_start(ap, fmt);
  fprintf(f, "%s: %s: ", r->cmd, r->path);
  vfprintf(f, fmt, ap);
  fputc('\n', f);
  va_end(ap);
  return EXIT_USAGE;
}

int npz_bad_dtype(const npz_reader *r, const char *name, const npy_array *a,
                  const char *what) {
  return npz_bad_input(r, "array '%s': dtype '%s' is not %s", name,
                       npy_dtype_descr(a->info.dtype), what);
}

int npz_bad_shape(const npz_reader *r, const char *name, const npy_array *a,
                  const char *fmt, ...) {
  char want[512], got[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(want, sizeof want, fmt, ap);
  va_end(ap);
  return npz_bad_input(
      r, "array '%s': expected %s, got %s", name, want,
      npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
}

int npz_out_of_memory(const npz_reader *r, const char *what) {
  fprintf(r->err ? r->err : stderr, "%s: out of memory (%s)\n", r->cmd, what);
  return EXIT_RUNTIME;
}

int npz_load(const char *cmd, const char *path, FILE *err, npz_archive *in) {
  npy_error e;
  const npy_status st = npz_read_file(path, in, &e);
  if (st == NPY_OK)
    return 0;
  fprintf(err ? err : stderr, "%s: %s: %s\n", cmd, path, e.msg);
  return st == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
}

int npz_load_input(const char *cmd, const char *in, const char *out,
                   npz_archive *archive) {
  if (cli_refuse_same_file(cmd, in, out))
    return EXIT_USAGE;
  return npz_load(cmd, in, NULL, archive);
}

static void *at(void *base, size_t offset) { return (char *)base + offset; }

/* ------------------------------------------------------------ names */

/* The per-type row that `name` ("T_field") names, and T, or NULL. */
static const npz_row *type_row(const npz_schema *s, const char *name,
                               int *type) {
  for (int t = 0; t < NPZ_N_TYPES; ++t) {
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    const size_t tl = strlen(tn);
    if (strncmp(name, tn, tl) != 0 || name[tl] != '_')
      continue;
    for (size_t f = 0; f < s->n_fields; ++f)
      if ((s->fields[f].types & NPZ_TYPE(t)) &&
          strcmp(name + tl + 1, s->fields[f].name) == 0) {
        *type = t;
        return &s->fields[f];
      }
  }
  return NULL;
}

static int known_name(const npz_schema *s, const char *name,
                      const char *const *extra) {
  int t;
  for (; extra && *extra; ++extra)
    if (strcmp(name, *extra) == 0)
      return 1;
  for (size_t g = 0; g < s->n_globals; ++g)
    if (strcmp(name, s->globals[g].name) == 0)
      return 1;
  for (t = 0; t < NPZ_N_TYPES; ++t)
    if (strcmp(name, fricl_stencil_name((fricl_stencil)t)) == 0)
      return 1;
  return type_row(s, name, &t) != NULL;
}

/* Appends to buf (of size bytes, used of them used) like snprintf. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
static void
append(char *buf, size_t size, size_t *used, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int w = vsnprintf(buf + *used, size - *used, fmt, ap);
  va_end(ap);
  if (w > 0)
    *used = *used + (size_t)w < size ? *used + (size_t)w : size - 1;
}

/* The stencil types of the rows of s->fields named like row f. */
static unsigned field_types(const npz_schema *s, size_t f) {
  unsigned types = 0;
  for (size_t i = 0; i < s->n_fields; ++i)
    if (strcmp(s->fields[i].name, s->fields[f].name) == 0)
      types |= s->fields[i].types;
  return types;
}

/* 1 when row f of s->fields is the first one of its name. */
static int first_of_name(const npz_schema *s, size_t f) {
  for (size_t i = 0; i < f; ++i)
    if (strcmp(s->fields[i].name, s->fields[f].name) == 0)
      return 0;
  return 1;
}

/* The arrays that schema s reads, from its tables: "a, b and per stencil
 * type T in vv ev ...: T, T_x, ..., pv_y". */
static void list_names(const npz_schema *s, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t g = 0; g < s->n_globals; ++g)
    if (s->globals[g].kind != NPZ_REFUSED && s->globals[g].kind != NPZ_IGNORED)
      append(buf, size, &used, "%s%s", used ? ", " : "", s->globals[g].name);
  append(buf, size, &used, " and per stencil type T in");
  for (int t = 0; t < NPZ_N_TYPES; ++t)
    append(buf, size, &used, " %s", fricl_stencil_name((fricl_stencil)t));
  append(buf, size, &used, ": T");
  /* The fields of every type, then those of some. */
  for (int every = 1; every >= 0; --every)
    for (size_t f = 0; f < s->n_fields; ++f) {
      const unsigned types = field_types(s, f);
      if (s->fields[f].kind == NPZ_IGNORED || !first_of_name(s, f) ||
          (types == NPZ_ALL_TYPES) != every)
        continue;
      for (int t = 0; t < NPZ_N_TYPES; ++t)
        if (every ? t == 0 : (types & NPZ_TYPE(t)) != 0)
          append(buf, size, &used, ", %s_%s",
                 every ? "T" : fricl_stencil_name((fricl_stencil)t),
                 s->fields[f].name);
    }
}

int npz_schema_check_names(npz_reader *r, const npz_schema *s,
                           const char *const *extra) {
  const npz_archive *in = r->in;
  for (size_t i = 0; i < in->count; ++i)
    if (!known_name(s, in->members[i].name, extra)) {
      char names[1024];
      list_names(s, names, sizeof names);
      return npz_bad_input(r,
                           "unknown array '%s' (the %s schema has %s; see "
                           "'fricl %s --help')",
                           in->members[i].name, s->command, names, s->command);
    }
  /* Data of a type whose vertex ids are missing. */
  for (size_t i = 0; i < in->count; ++i) {
    const char *name = in->members[i].name;
    int t;
    if (!type_row(s, name, &t))
      continue;
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    if (!npz_find(in, tn))
      return npz_bad_input(r,
                           "array '%s' is given but '%s' (the vertex ids of "
                           "the %s contacts) is missing",
                           name, tn, tn);
  }
  return 0;
}

/* ----------------------------------------------------------- arrays */

/* A stencil type's sizes, for shape rules. */
typedef struct type_dims {
  size_t m, k, nb;
} type_dims;

/* "(a, b)" of n parts; "(a,)" for one. */
static void spell(char *buf, size_t size, char parts[][16], int n) {
  size_t used = 0;
  for (int i = 0; i <= n; ++i) {
    const int w =
        i == n ? snprintf(buf + used, size - used, "%s)", n == 1 ? "," : "")
               : snprintf(buf + used, size - used, "%s%s", i ? ", " : "(",
                          parts[i]);
    if (w < 0 || (size_t)w >= size - used)
      return; /* truncated: the rules are short, this does not happen */
    used += (size_t)w;
  }
}

/* The shape of rule `rule` ("m, dim, dim-1") in *shape, spelt "(m, dim,
 * dim-1)" in sym, and without its last dimension in sym_short.
 * @return the number of dimensions. */
static int rule_shape(const npz_reader *r, const char *rule,
                      const type_dims *td, size_t *shape, char *sym,
                      char *sym_short, size_t sym_size) {
  static const char *const tokens[] = {"n", "m", "dim", "dim-1", "k", "nb"};
  const size_t values[] = {r->n,           td ? td->m : 0,
                           (size_t)r->dim, (size_t)r->dim - 1,
                           td ? td->k : 0, td ? td->nb : 0};
  char parts[NPY_MAX_NDIM][16];
  int nd = 0;
  for (const char *p = rule; *p && nd < NPY_MAX_NDIM; ++nd) {
    const size_t len = strcspn(p, ", ");
    size_t t = 0;
    while (t < 6 &&
           !(strlen(tokens[t]) == len && strncmp(tokens[t], p, len) == 0))
      ++t;
    shape[nd] = t < 6 ? values[t] : 0;
    /* k and nb are the type's constants: said as numbers ("(m, 2)"). */
    if (t >= 4 && t < 6)
      snprintf(parts[nd], sizeof parts[nd], "%zu", shape[nd]);
    else
      snprintf(parts[nd], sizeof parts[nd], "%.*s", (int)len, p);
    p += len;
    p += strspn(p, ", ");
  }
  spell(sym, sym_size, parts, nd);
  spell(sym_short, sym_size, parts, nd - 1);
  return nd;
}

static const char *values_text(npz_values v) {
  return v == NPZ_GT0 ? " and > 0" : v == NPZ_GE0 ? " and >= 0" : "";
}

static int value_ok(npz_values rule, double v) {
  if (rule == NPZ_ANY)
    return 1;
  if (!(v - v == 0)) /* NaN or infinite */
    return 0;
  return rule == NPZ_GT0 ? v > 0 : rule == NPZ_GE0 ? v >= 0 : 1;
}

/* Every element of the converted array `a` within rule `values`. */
static int check_values(const npz_reader *r, const char *name,
                        npz_values values, const void *a, size_t count) {
  for (size_t i = 0; values != NPZ_ANY && i < count; ++i) {
    const double v = r->precision == FRICL_F32 ? (double)((const float *)a)[i]
                                               : ((const double *)a)[i];
    if (!value_ok(values, v))
      return npz_bad_input(r,
                           "array '%s': element %zu = %g: it must be "
                           "finite%s",
                           name, i, v, values_text(values));
  }
  return 0;
}

/* A REAL row: the array of the row's shape, converted, checked. */
static int read_real(npz_reader *r, const npz_row *row, const char *name,
                     const npz_member *mb, const type_dims *td, void *dst) {
  size_t shape[NPY_MAX_NDIM];
  char sym[96], sym_short[96], want[256], conc[96];
  const int nd =
      rule_shape(r, row->shape, td, shape, sym, sym_short, sizeof sym);
  const int squeeze =
      (row->flags & NPZ_SQUEEZE) && nd > 0 && shape[nd - 1] == 1;
  snprintf(want, sizeof want, "%s = %s%s%s%s%s%s", sym,
           npy_format_shape(conc, sizeof conc, nd, shape),
           squeeze ? " or " : "", squeeze ? sym_short : "",
           row->what ? " (" : "", row->what ? row->what : "",
           row->what ? ")" : "");
  if (!mb) {
    if (row->flags & NPZ_REQUIRED)
      return npz_bad_input(r, "required array '%s' %s is missing", name, want);
    return 0;
  }
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype))
    return npz_bad_dtype(r, name, a, "float64 or float32");
  int ok = a->info.ndim == nd || (squeeze && a->info.ndim == nd - 1);
  for (int d = 0; ok && d < a->info.ndim; ++d)
    ok = a->info.shape[d] == shape[d];
  if (!ok)
    return npz_bad_shape(r, name, a, "shape %s", want);
  void *copy = npy_real_copy(a, r->precision);
  if (!copy)
    return npz_out_of_memory(r, name);
  /* Kept (and freed with the input) even when a check below fails. */
  if (row->offset != NPZ_DROP)
    *(void **)at(dst, row->offset) = copy;
  int rc = check_values(r, name, row->values, copy, a->info.count);
  if (rc == 0 && row->check)
    rc = row->check(r, name, copy, td ? td->m : 0);
  if (row->offset == NPZ_DROP)
    free(copy);
  return rc;
}

int npz_read_scalar(npz_reader *r, const npz_member *mb, int ints,
                    double *value) {
  const npy_array *a = &mb->array;
  const npy_dtype dt = a->info.dtype;
  const int is_int = dt == NPY_I4 || dt == NPY_I8;
  if (!npy_is_real(dt) && !(ints && is_int))
    return npz_bad_dtype(r, mb->name, a,
                         ints ? "a real or integer" : "float64 or float32");
  if (a->info.count != 1 || a->info.ndim > 1)
    return npz_bad_shape(r, mb->name, a, "a scalar (shape () or (1,))");
  *value = is_int ? (double)npy_int_at(a, 0) : npy_real_at(a, 0);
  return 0;
}

static int read_scalar_row(npz_reader *r, const npz_row *row,
                           const npz_member *mb, void *dst) {
  if (!mb) {
    if (!(row->flags & NPZ_REQUIRED))
      return 0;
    return npz_bad_input(r, "required array '%s' (a scalar%s%s) is missing",
                         row->name, row->what ? ": " : "",
                         row->what ? row->what : "");
  }
  double v;
  const int rc = npz_read_scalar(r, mb, row->kind == NPZ_SCALAR, &v);
  if (rc != 0)
    return rc;
  if (!value_ok(row->values, v))
    return npz_bad_input(r, "array '%s' = %g: it must be finite%s", row->name,
                         v, values_text(row->values));
  *(double *)at(dst, row->offset) = v;
  return 0;
}

/* The (n, dim) array that fixes n and dim, or that must match them when
 * another schema has fixed them already. */
static int read_positions(npz_reader *r, const npz_row *row,
                          const npz_member *mb, void *dst) {
  if (!mb)
    return npz_bad_input(r, "required array '%s' (n, dim) is missing",
                         row->name);
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype))
    return npz_bad_dtype(r, row->name, a, "float64 or float32");
  if (r->positions) {
    if (a->info.ndim != 2 || a->info.shape[0] != r->n ||
        a->info.shape[1] != (size_t)r->dim)
      return npz_bad_shape(r, row->name, a,
                           "shape (n, dim) = (%zu, %d) like %s", r->n, r->dim,
                           r->positions);
  } else {
    if (a->info.ndim != 2 || (a->info.shape[1] != 2 && a->info.shape[1] != 3))
      return npz_bad_shape(r, row->name, a, "shape (n, dim) with dim 2 or 3");
    if (a->info.shape[0] > (size_t)INT32_MAX)
      return npz_bad_input(r,
                           "array '%s': %zu vertices exceed the int32 vertex "
                           "ids",
                           row->name, a->info.shape[0]);
    r->positions = row->name;
    r->n = a->info.shape[0];
    r->dim = (int)a->info.shape[1];
  }
  void **out = at(dst, row->offset);
  if (!(*out = npy_real_copy(a, r->precision)))
    return npz_out_of_memory(r, row->name);
  return 0;
}

/* Row `row` of array `name` into dst (a per-type row: td set). */
static int read_row(npz_reader *r, const npz_row *row, const char *name,
                    const type_dims *td, void *dst) {
  const npz_member *mb = npz_find(r->in, name);
  switch (row->kind) {
  case NPZ_POSITIONS:
    return read_positions(r, row, mb, dst);
  case NPZ_REAL:
    return read_real(r, row, name, mb, td, dst);
  case NPZ_SCALAR:
  case NPZ_SCALAR_F:
    return read_scalar_row(r, row, mb, dst);
  case NPZ_REFUSED:
    return mb ? npz_bad_input(r, "array '%s': %s", name, row->what) : 0;
  case NPZ_CUSTOM:
    return mb ? row->read(r, row, mb, dst, td ? td->m : 0) : 0;
  case NPZ_IGNORED:
    break;
  }
  return 0;
}

int npz_schema_read_globals(npz_reader *r, const npz_schema *s, void *input) {
  int rc;
  for (size_t g = 0; g < s->n_globals; ++g)
    if ((rc = read_row(r, &s->globals[g], s->globals[g].name, NULL, input)) !=
        0)
      return rc;
  return 0;
}

/* Type t: its own fields, its vertex ids, then its rows. */
static int read_type(npz_reader *r, const npz_schema *s, int t, void *input) {
  const npz_types *L = &s->types;
  void *g = at(input, L->offset + (size_t)t * L->size);
  const fricl_stencil type = (fricl_stencil)t;
  const char *tn = fricl_stencil_name(type);
  type_dims td = {0, (size_t)fricl_stencil_vertex_count(type),
                  (size_t)fricl_stencil_coord_count(type)};
  *(fricl_stencil *)at(g, L->type) = type;
  *(const char **)at(g, L->tname) = tn;
  *(size_t *)at(g, L->k) = td.k;
  *(size_t *)at(g, L->nb) = td.nb;
  const npz_member *ids = npz_find(r->in, tn);
  if (!ids)
    return 0;
  *(int *)at(g, L->present) = 1;
  if (r->dim == 2 && only_3d[t])
    return npz_bad_input(r,
                         "array '%s': %s contacts exist only in 3-D, but %s "
                         "is 2-D",
                         tn, tn, r->positions);
  char msg[256], name[64];
  const int rc =
      npy_read_vertex_ids(&ids->array, tn, td.k, r->n, r->positions,
                          (int32_t **)at(g, L->ids), &td.m, msg, sizeof msg);
  if (rc != 0)
    return rc == 1 ? npz_out_of_memory(r, tn) : npz_bad_input(r, "%s", msg);
  *(size_t *)at(g, L->m) = td.m;
  for (size_t f = 0; f < s->n_fields; ++f) {
    const npz_row *row = &s->fields[f];
    if (!(row->types & NPZ_TYPE(t)))
      continue;
    snprintf(name, sizeof name, "%s_%s", tn, row->name);
    const int rrc = read_row(r, row, name, &td, g);
    if (rrc != 0)
      return rrc;
  }
  return s->type_done ? s->type_done(r, input, g) : 0;
}

int npz_schema_read(npz_reader *r, const npz_schema *s, void *input,
                    const char *const *extra) {
  int rc;
  if ((rc = npz_schema_check_names(r, s, extra)) != 0 ||
      (rc = npz_schema_read_globals(r, s, input)) != 0)
    return rc;
  for (int t = 0; t < NPZ_N_TYPES; ++t)
    if ((rc = read_type(r, s, t, input)) != 0)
      return rc;
  return 0;
}
