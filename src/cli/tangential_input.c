/* tangential_input.c - see tangential_input.h. Moved out of
 * cmd_tangential.c so that fricl-mpi (src/petsc/cli) reads the same schema
 * with the same messages. */
#include "tangential_input.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "npz_schema.h"

/* ------------------------------------------------------ input schema */

#define F(field) offsetof(tangential_input, field)
#define G(field) offsetof(tangential_group, field)

static const npz_row globals[] = {
    NPZ_ROW_POSITIONS("velocities", F(velocities)),
    {.name = "eps_v",
     .kind = NPZ_SCALAR_F,
     .flags = NPZ_REQUIRED,
     .offset = F(eps_v),
     .values = NPZ_GT0},
};

/* The stencil types with closest-point coordinates, from the library's
 * stencil table. */
#define WITH_CP_(name, value, text, k, nb, only3d)                             \
  | ((nb) ? NPZ_TYPE(value) : 0u)
#define WITH_CP (0u FRICL_STENCIL_MAP(WITH_CP_))

static const npz_row fields[] = {
    {.name = "closest_point",
     .kind = NPZ_REAL,
     .shape = "m, nb",
     .flags = NPZ_REQUIRED | NPZ_SQUEEZE,
     .types = WITH_CP,
     .offset = G(cp)},
    NPZ_ROW_REAL("closest_point", "m, nb", 0, NPZ_ALL_TYPES & ~WITH_CP,
                 NPZ_DROP, NPZ_ANY,
                 "contacts of this type have no closest-point coordinates"),
    NPZ_ROW_REAL("tangent_basis", "m, dim, dim-1", NPZ_REQUIRED, NPZ_ALL_TYPES,
                 G(basis), NPZ_ANY, NULL),
    NPZ_ROW_PER_CONTACT("normal_force", NPZ_REQUIRED, G(normal), NPZ_ANY, NULL),
    NPZ_ROW_PER_CONTACT("mu_s", NPZ_REQUIRED, G(mu_s), NPZ_ANY, NULL),
    NPZ_ROW_PER_CONTACT("mu_k", NPZ_REQUIRED, G(mu_k), NPZ_ANY, NULL),
    NPZ_ROW_PER_CONTACT("weight", 0, G(weight), NPZ_ANY, NULL),
    NPZ_ROW_REAL("mu_aniso", "m, dim-1", 0, NPZ_ALL_TYPES, G(aniso), NPZ_ANY,
                 NULL),
};

static const npz_schema schema = NPZ_SCHEMA(
    globals, fields, tangential_input, g, tangential_group, NULL, "tangential");

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
static int read_build_input(tangential_input *s, npz_reader *r,
                            const char *const *extra) {
  const char *names[16];
  size_t n_names = 0;
  for (size_t g = 0; g < schema.n_globals; ++g)
    names[n_names++] = schema.globals[g].name;
  for (; extra && *extra && n_names + 1 < sizeof names / sizeof names[0];
       ++extra)
    names[n_names++] = *extra;
  names[n_names] = NULL;
  s->build.cmd = s->cmd;
  s->build.path = s->path;
  s->build.precision = s->precision;
  const int rc = build_input_read(&s->build, &s->in, names);
  if (rc != 0)
    return rc;
  r->positions = "lagged_positions";
  r->n = s->build.n;
  r->dim = s->build.dim;
  groups_from_build(s);
  return npz_schema_read_globals(r, &schema, s);
}

int tangential_input_read(tangential_input *s, const char *const *extra) {
  const int loaded = npz_load(s->cmd, s->path, s->err, &s->in);
  if (loaded != 0)
    return loaded;
  npz_reader r = {s->cmd, s->path, s->err, s->precision, &s->in, NULL, 0, 0};
  const int rc = s->with_build ? read_build_input(s, &r, extra)
                               : npz_schema_read(&r, &schema, s, extra);
  s->n = r.n;
  s->dim = r.dim;
  return rc;
}

fricl_contact_group tangential_group_inputs(const tangential_group *g) {
  fricl_contact_group G;
  memset(&G, 0, sizeof G);
  G.type = g->type;
  G.count = g->m;
  G.vertices = g->ids;
  G.closest_point = g->cp;
  G.tangent_basis = g->basis;
  G.normal_force = g->normal;
  G.weight = g->weight;
  G.mu_s = g->mu_s;
  G.mu_k = g->mu_k;
  G.mu_aniso = g->aniso;
  return G;
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
