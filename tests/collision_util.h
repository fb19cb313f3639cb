/*
 * collision_util.h - helpers shared by the collision-set and CCD tests
 * (test_collisions.c, test_ccd.c): a host context, optionally splitting
 * every loop over its threads, a collision mesh (and its description)
 * from arrays, and a planes struct over caller-owned normals and
 * offsets. Include after test_util.h.
 */
#ifndef FRICL_TEST_COLLISION_UTIL_H
#define FRICL_TEST_COLLISION_UTIL_H

#include "fricl/fricl_collisions.h"

/* A host context of `threads` threads; split: FRICL_HOST_GRAIN=1, every
 * loop split, so that small scenes reach the multi-threaded paths. */
static inline fricl_context *host_ctx(unsigned threads, int split) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "host";
  p.threads = threads;
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  CHECK(st == FRICL_STATUS_OK, "host context: %s", fricl_status_string(st));
  if (ctx && split)
    ctx->host_grain = 1;
  return ctx;
}

/* A collision mesh description over caller-owned arrays. */
static inline fricl_collision_mesh_desc
mesh_desc_of(int dim, size_t nv, const double *rest, size_t ne,
             const int32_t *e, size_t nf, const int32_t *f) {
  fricl_collision_mesh_desc d;
  fricl_collision_mesh_desc_init(&d);
  d.dim = dim;
  d.n_vertices = nv;
  d.rest_positions = rest;
  d.n_edges = ne;
  d.edges = e;
  d.n_faces = nf;
  d.faces = f;
  return d;
}

static inline fricl_collision_mesh *mesh_rest(fricl_context *ctx, int dim,
                                              size_t nv, const double *rest,
                                              size_t ne, const int32_t *e,
                                              size_t nf, const int32_t *f) {
  fricl_collision_mesh_desc d = mesh_desc_of(dim, nv, rest, ne, e, nf, f);
  fricl_collision_mesh *m = NULL;
  const fricl_status st = fricl_collision_mesh_create(ctx, &d, &m);
  CHECK(st == FRICL_STATUS_OK && m, "mesh: %s: %s", fricl_status_string(st),
        fricl_context_last_error(ctx));
  return m;
}

/* Options holding n planes (normals n x dim, offsets n), borrowed. */
static inline fricl_collisions_options
planes_of(size_t n, const double *normals, const double *offsets) {
  fricl_collisions_options o;
  fricl_collisions_options_init(&o);
  o.n_planes = n;
  o.plane_normals = normals;
  o.plane_offsets = offsets;
  return o;
}

#endif
