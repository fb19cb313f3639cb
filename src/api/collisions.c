/* collisions.c - the public entry points of fricl_collisions.h: checks,
 * always complete before any work, then core's mesh derivation, broad
 * phase and collision build (core/collisions.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/abi.h"
#include "core/backend.h"
#include "core/ccd.h"
#include "core/collisions.h"

#define FAIL(ctx, ...)                                                         \
  fricl__fail((ctx), FRICL_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

/* Largest id a collision mesh may use: ids travel as int32 and pair keys
 * pack two of them. */
#define MAX_IDS ((size_t)INT32_MAX)

/* The caller's input struct over a local set by its _init (core/abi.h):
 * larger, newer layouts with an all-zero tail are accepted; every struct
 * here is new in 0.4, so its whole 0.4 layout is the minimum. */
#define STRUCT_IN(ctx, what, type, local, arg)                                 \
  fricl__struct_in((ctx), (what), &(local), sizeof(type), (arg), sizeof(type), \
                   _Alignof(type), #type "_init")

void fricl_collision_mesh_desc_init(fricl_collision_mesh_desc *desc) {
  if (!desc)
    return;
  memset(desc, 0, sizeof *desc);
  desc->struct_size = (uint32_t)sizeof *desc;
  desc->dim = 3;
}

void fricl_collisions_options_init(fricl_collisions_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->struct_size = (uint32_t)sizeof *o;
}

/* n x dim reals, all finite; the first bad row is named. */
static fricl_status check_reals(fricl_context *ctx, const char *name,
                                const double *x, size_t rows, int dim) {
  if (rows && !x)
    return FAIL(ctx, "%s is NULL with %zu rows", name, rows);
  for (size_t i = 0; i < rows * (size_t)dim; ++i)
    if (!isfinite(x[i]))
      return FAIL(ctx, "%s[%zu] is not finite (row %zu)", name, i,
                  i / (size_t)dim);
  return FRICL_STATUS_OK;
}

/* Index lists: in range, no repeated vertex within an element. */
static fricl_status check_ids(fricl_context *ctx, const char *name,
                              const int32_t *ids, size_t n, int k, size_t nv) {
  if (n && !ids)
    return FAIL(ctx, "%s is NULL with %zu rows", name, n);
  for (size_t i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) {
      const int32_t v = ids[(size_t)k * i + j];
      if (v < 0 || (size_t)v >= nv)
        return FAIL(ctx, "%s[%zu][%d] = %d is not a vertex (n_vertices = %zu)",
                    name, i, j, (int)v, nv);
      for (int l = 0; l < j; ++l)
        if (ids[(size_t)k * i + l] == v)
          return FAIL(ctx, "%s[%zu] repeats vertex %d", name, i, (int)v);
    }
  return FRICL_STATUS_OK;
}

fricl_status fricl_collision_mesh_create(fricl_context *ctx,
                                         const fricl_collision_mesh_desc *desc,
                                         fricl_collision_mesh **out) {
  if (!ctx || !desc || !out)
    return FAIL(ctx, "ctx, desc and out must not be NULL");
  *out = NULL;
  fricl__clear_error(ctx);
  fricl_collision_mesh_desc dl;
  fricl_collision_mesh_desc_init(&dl);
  FRICL__TRY(STRUCT_IN(ctx, "desc", fricl_collision_mesh_desc, dl, desc));
  const fricl_collision_mesh_desc *d = &dl;
  if (d->dim != 2 && d->dim != 3)
    return FAIL(ctx, "dim = %d: must be 2 or 3", d->dim);
  if (d->n_vertices > MAX_IDS || d->n_edges > MAX_IDS || d->n_faces > MAX_IDS)
    return FAIL(ctx, "n_vertices, n_edges and n_faces must be at most %zu",
                MAX_IDS);
  if (d->dim == 2 && d->n_faces)
    return FAIL(ctx, "n_faces = %zu: a 2-D mesh has no faces", d->n_faces);
  FRICL__TRY(check_reals(ctx, "rest_positions", d->rest_positions,
                         d->n_vertices, d->dim));
  FRICL__TRY(check_ids(ctx, "edges", d->edges, d->n_edges, 2, d->n_vertices));
  FRICL__TRY(check_ids(ctx, "faces", d->faces, d->n_faces, 3, d->n_vertices));
  return fricl__collision_mesh_new(ctx, d, out);
}

void fricl_collision_mesh_destroy(fricl_collision_mesh *mesh) {
  fricl__collision_mesh_free(mesh);
}

void fricl_collision_mesh_areas(const fricl_collision_mesh *mesh,
                                const double **vertex_areas,
                                const double **edge_areas) {
  if (vertex_areas)
    *vertex_areas = mesh ? mesh->vertex_area : NULL;
  if (edge_areas)
    *edge_areas = mesh ? mesh->edge_area : NULL;
}

static fricl_status check_planes(fricl_context *ctx, int dim,
                                 const fricl_collisions_options *o) {
  if (!o || !o->n_planes)
    return FRICL_STATUS_OK;
  if (!o->plane_normals || !o->plane_offsets)
    return FAIL(ctx,
                "plane_normals and plane_offsets must be given with "
                "n_planes = %zu",
                o->n_planes);
  FRICL__TRY(
      check_reals(ctx, "plane_normals", o->plane_normals, o->n_planes, dim));
  FRICL__TRY(
      check_reals(ctx, "plane_offsets", o->plane_offsets, o->n_planes, 1));
  for (size_t p = 0; p < o->n_planes; ++p) {
    double nn = 0;
    for (int i = 0; i < dim; ++i)
      nn += o->plane_normals[p * (size_t)dim + i] *
            o->plane_normals[p * (size_t)dim + i];
    if (nn == 0)
      return FAIL(ctx, "plane_normals[%zu] is zero", p);
  }
  return FRICL_STATUS_OK;
}

static fricl_status check_common(fricl_context *ctx,
                                 const fricl_collision_mesh *mesh,
                                 const void *inout) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  if (!mesh || !inout)
    return FAIL(ctx, "mesh and inout must not be NULL");
  return FRICL_STATUS_OK;
}

/* ------------------------------------------- the narrow phase's tier */

/* The context's single OpenCL device, if it has the collision op and may
 * run f64 (NULL otherwise). */
static fricl__backend *narrow_device(const fricl_context *ctx) {
  fricl__backend *d = ctx->dev;
  return d && d->ops->collisions_narrow && d->has_fp64 &&
                 !(ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64)
             ? d
             : NULL;
}

/* Whether the build should collect its candidates for a narrow phase
 * that may go to the device (else it classifies them as it finds them on
 * the host threads, which is quicker there): an OpenCL context's device,
 * or an "auto" context's once opened, if a GPU or the caller set the
 * crossover (auto's rule: a CPU device is never used by default). */
static int device_possible(const fricl_context *ctx, size_t min) {
  if (min == SIZE_MAX)
    return 0;
  if (ctx->mode == FRICL__MODE_OPENCL)
    return narrow_device(ctx) != NULL;
  if (ctx->mode != FRICL__MODE_AUTO || !ctx->dev_resolved ||
      !narrow_device(ctx))
    return 0;
  const fricl__backend_entry *e = ctx->dev_entry;
  return (ctx->crossover && ctx->crossover != SIZE_MAX) ||
         (e && e->is_gpu && e->is_gpu(ctx->dev));
}

typedef struct narrow_choice {
  fricl_context *ctx;
  size_t min;
} narrow_choice;

/* A fricl__narrow_fn: the device at min candidates and more (and, on
 * "auto", where its crossover for the barrier sends this many work
 * items), else the host threads. */
static fricl_status narrow_run(void *user, const fricl__narrow_work *w) {
  const narrow_choice *c = (const narrow_choice *)user;
  fricl_context *ctx = c->ctx;
  fricl__backend *be = NULL;
  if (w->total >= c->min && w->total &&
      fricl__dispatch(ctx, FRICL__FEATURE_BARRIER, w->total, FRICL_F32, &be) ==
          FRICL_STATUS_OK &&
      be && be == narrow_device(ctx))
    return fricl__ran_on(ctx, be, be->ops->collisions_narrow(be, w));
  return fricl__collisions_narrow_host(ctx, w);
}

fricl_status fricl_collisions_build(fricl_context *ctx,
                                    const fricl_collision_mesh *mesh,
                                    const double *positions,
                                    const fricl_collisions_options *options,
                                    fricl_collision_set **inout) {
  FRICL__TRY(check_common(ctx, mesh, inout));
  if (!options)
    return FAIL(ctx, "options must not be NULL");
  fricl_collisions_options ol;
  fricl_collisions_options_init(&ol);
  FRICL__TRY(STRUCT_IN(ctx, "options", fricl_collisions_options, ol, options));
  const fricl_collisions_options *o = &ol;
  if (o->flags &
      ~(FRICL_COLLISIONS_AREA_WEIGHTING | FRICL_COLLISIONS_IMPROVED_MAX_APPROX))
    return FAIL(ctx, "options.flags = 0x%x has unknown bits",
                (unsigned)o->flags);
  if (!(o->dhat > 0) || !isfinite(o->dhat))
    return FAIL(ctx, "options.dhat = %g: must be finite and > 0", o->dhat);
  if (!(o->dmin >= 0) || !isfinite(o->dmin))
    return FAIL(ctx, "options.dmin = %g: must be finite and >= 0", o->dmin);
  FRICL__TRY(check_reals(ctx, "positions", positions, mesh->nv, mesh->dim));
  FRICL__TRY(check_planes(ctx, mesh->dim, o));
  narrow_choice nc = {ctx, o->device_min_candidates
                               ? o->device_min_candidates
                               : FRICL_COLLISIONS_DEVICE_MIN_CANDIDATES};
  const int dev = device_possible(ctx, nc.min);
  return fricl__collisions_build(ctx, mesh, positions, o,
                                 dev ? narrow_run : NULL, dev ? &nc : NULL,
                                 inout);
}

void fricl_collision_set_destroy(fricl_collision_set *set) {
  fricl__collision_set_free(set);
}

size_t fricl_collision_set_groups(const fricl_collision_set *set,
                                  const fricl_barrier_group **out) {
  if (!out)
    return 0;
  *out = NULL;
  return set ? fricl__collision_set_groups(set, out) : 0;
}

/* A motion's positions (positions1 may be NULL unless need_x1: a static
 * scene) and its planes, read into *pl (the _init value without them). */
static fricl_status check_motion(fricl_context *ctx,
                                 const fricl_collision_mesh *mesh,
                                 const double *x0, const double *x1,
                                 int need_x1,
                                 const fricl_collisions_options *planes,
                                 fricl_collisions_options *pl) {
  FRICL__TRY(check_reals(ctx, "positions0", x0, mesh->nv, mesh->dim));
  if (x1 || need_x1)
    FRICL__TRY(check_reals(ctx, "positions1", x1, mesh->nv, mesh->dim));
  fricl_collisions_options_init(pl);
  if (!planes)
    return FRICL_STATUS_OK;
  FRICL__TRY(STRUCT_IN(ctx, "planes", fricl_collisions_options, *pl, planes));
  return check_planes(ctx, mesh->dim, pl);
}

static int type_ok(fricl_stencil type) {
  return (int)type >= 0 && (int)type < FRICL__NTYPES;
}

size_t fricl_collision_set_count(const fricl_collision_set *set,
                                 fricl_stencil type) {
  return set && type_ok(type)
             ? fricl__collision_set_elements(set, (int)type, NULL, NULL)
             : 0;
}

size_t fricl_collision_set_elements(const fricl_collision_set *set,
                                    fricl_stencil type, const int32_t **ids,
                                    const double **eps_x) {
  if (ids)
    *ids = NULL;
  if (eps_x)
    *eps_x = NULL;
  if (!set || !type_ok(type))
    return 0;
  return fricl__collision_set_elements(set, (int)type, ids, eps_x);
}

fricl_status fricl_candidates_build(
    fricl_context *ctx, const fricl_collision_mesh *mesh,
    const double *positions0, const double *positions1, double inflation_radius,
    const fricl_collisions_options *planes_arg, fricl_candidate_set **inout) {
  FRICL__TRY(check_common(ctx, mesh, inout));
  if (!(inflation_radius >= 0) || !isfinite(inflation_radius))
    return FAIL(ctx, "inflation_radius = %g: must be finite and >= 0",
                inflation_radius);
  fricl_collisions_options pl;
  FRICL__TRY(
      check_motion(ctx, mesh, positions0, positions1, 0, planes_arg, &pl));
  const fricl_collisions_options *planes = planes_arg ? &pl : NULL;
  fricl_candidate_set *s = *inout;
  const int fresh = s == NULL;
  if (fresh) {
    s = (fricl_candidate_set *)calloc(1, sizeof *s);
    if (!s)
      return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                         "candidates: out of memory");
  }
  const size_t np = planes ? planes->n_planes : 0;
  const fricl_status st =
      fricl__broad_phase(ctx, mesh, positions0, positions1, inflation_radius,
                         np, np ? planes->plane_normals : NULL,
                         np ? planes->plane_offsets : NULL, NULL, NULL, s);
  if (st != FRICL_STATUS_OK) {
    if (fresh) {
      fricl__candidates_free(s);
      free(s);
    }
    return st;
  }
  *inout = s;
  return FRICL_STATUS_OK;
}

size_t fricl_candidate_set_pairs(const fricl_candidate_set *set,
                                 fricl_stencil type, const int32_t **ids) {
  if (ids)
    *ids = NULL;
  if (!set || !type_ok(type))
    return 0;
  if (ids)
    *ids = set->pairs[type].v;
  return set->pairs[type].n / 2;
}

void fricl_candidate_set_destroy(fricl_candidate_set *set) {
  if (!set)
    return;
  fricl__candidates_free(set);
  free(set);
}

/* ----------------------------------------------------------------- ccd */

void fricl_ccd_options_init(fricl_ccd_options *o) {
  /* ipctk's AdditiveCCD defaults (fricl_ccd.h) */
  static const fricl_ccd_options defaults = {
      .struct_size = (uint32_t)sizeof(fricl_ccd_options),
      .conservative_rescaling = 0.9,
      .max_iterations = 10000000};
  if (o)
    *o = defaults;
}

/* Every pair of the set names elements of this mesh (and planes given). */
static fricl_status check_pairs(fricl_context *ctx,
                                const fricl_collision_mesh *m,
                                const fricl_candidate_set *set,
                                size_t n_planes) {
  static const char *const names[FRICL__NTYPES] = {"vv", "ev", "ee", "fv",
                                                   "pv"};
  const size_t nv = m->nv, ne = m->ne, nf = m->nf;
  const size_t first[FRICL__NTYPES] = {nv, ne, ne, nf, n_planes};
  const size_t second[FRICL__NTYPES] = {nv, nv, ne, nv, nv};
  for (int t = 0; t < FRICL__NTYPES; ++t)
    for (size_t i = 0; i < set->pairs[t].n / 2; ++i) {
      const int32_t a = set->pairs[t].v[2 * i], b = set->pairs[t].v[2 * i + 1];
      if (a < 0 || (size_t)a >= first[t] || b < 0 || (size_t)b >= second[t])
        return FAIL(ctx,
                    "set: %s pair %zu = (%d, %d) is not in this mesh%s "
                    "(n_vertices %zu, n_edges %zu, n_faces %zu, n_planes %zu)",
                    names[t], i, (int)a, (int)b,
                    t == FRICL__NTYPES - 1 ? " and planes" : "", nv, ne, nf,
                    n_planes);
    }
  return FRICL_STATUS_OK;
}

fricl_status fricl_ccd_stepsize(
    fricl_context *ctx, const fricl_collision_mesh *mesh,
    const fricl_candidate_set *set, const double *positions0,
    const double *positions1, const fricl_collisions_options *planes_arg,
    const fricl_ccd_options *options, double *step, double *tois) {
  FRICL__TRY(check_common(ctx, mesh, set));
  if (!step)
    return FAIL(ctx, "step must not be NULL");
  fricl_ccd_options o;
  fricl_ccd_options_init(&o);
  if (options)
    FRICL__TRY(STRUCT_IN(ctx, "options", fricl_ccd_options, o, options));
  if (!(o.min_distance >= 0) || !isfinite(o.min_distance))
    return FAIL(ctx, "options.min_distance = %g: must be finite and >= 0",
                o.min_distance);
  if (!(o.conservative_rescaling > 0 && o.conservative_rescaling <= 1))
    return FAIL(ctx, "options.conservative_rescaling = %g: must be in (0, 1]",
                o.conservative_rescaling);
  fricl_collisions_options pl;
  FRICL__TRY(
      check_motion(ctx, mesh, positions0, positions1, 1, planes_arg, &pl));
  const fricl_collisions_options *planes = planes_arg ? &pl : NULL;
  FRICL__TRY(check_pairs(ctx, mesh, set, planes ? planes->n_planes : 0));
  return fricl__ccd_stepsize(ctx, mesh, set, positions0, positions1, planes, &o,
                             step, tois);
}
