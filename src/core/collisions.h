/*
 * collisions.h - the collision mesh, the broad phase and the collision set
 * builder behind fricl_collisions.h (backend-neutral host code on the
 * context's pool). docs/collisions.md states what they compute.
 */
#ifndef FRICL_CORE_COLLISIONS_H
#define FRICL_CORE_COLLISIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "fricl/fricl_collisions.h"

/* A growable array of int32 (pairs, lists). */
typedef struct fricl__ivec {
  int32_t *v;
  size_t n, cap;
} fricl__ivec;

/* Reallocate v (capacity *cap elements of esz bytes) to a capacity of at
 * least need, doubling from *cap (or from first when 0): the new array,
 * *cap updated; NULL when out of memory (v and *cap untouched). */
void *fricl__grow(void *v, size_t *cap, size_t need, size_t esz, size_t first);
int fricl__ivec_reserve(fricl__ivec *a, size_t cap);
int fricl__ivec_push2(fricl__ivec *a, int32_t x, int32_t y);

/* Advance lo to the first index in [lo, hi) of the ascending array a
 * whose element is not below x (bisection). */
#define FRICL__LOWER_BOUND(a, lo, hi, x)                                       \
  do {                                                                         \
    size_t hi_ = (hi);                                                         \
    while ((lo) < hi_) {                                                       \
      const size_t mid_ = (lo) + (hi_ - (lo)) / 2;                             \
      if ((a)[mid_] < (x))                                                     \
        (lo) = mid_ + 1;                                                       \
      else                                                                     \
        hi_ = mid_;                                                            \
    }                                                                          \
  } while (0)

/* Compressed adjacency lists: list i is idx[off[i] .. off[i + 1]), sorted
 * and unique. */
typedef struct fricl__adj {
  size_t *off;
  int32_t *idx;
} fricl__adj;

struct fricl_collision_mesh {
  int dim;
  size_t nv, ne, nf;
  double *rest;        /* nv x dim */
  int32_t *edges;      /* ne x 2 */
  int32_t *faces;      /* nf x 3 */
  int32_t *face_edges; /* nf x 3: edge j joins faces[j], faces[j + 1] */
  double *vertex_area; /* nv */
  double *edge_area;   /* ne */
  int32_t *codim_v;    /* vertices in no edge */
  size_t n_codim_v;
  int32_t *codim_e; /* edges in no face */
  size_t n_codim_e;
  unsigned char *on_boundary; /* nv */
  fricl__adj vv;              /* vertex -> adjacent vertices */
  fricl__adj ve;              /* vertex -> incident edges */
  fricl__adj ev;              /* edge -> opposite vertices of incident faces */
};

/* Copy a validated mesh description and derive the rest; fails (with a
 * message) on a face edge missing from the edges, or out of memory. */
fricl_status fricl__collision_mesh_new(fricl_context *ctx,
                                       const fricl_collision_mesh_desc *d,
                                       fricl_collision_mesh **out);
void fricl__collision_mesh_free(fricl_collision_mesh *m);

/* The candidate pairs of one type: 2 ids each. */
enum { FRICL__NTYPES = 5 }; /* vv, ev, ee, fv, pv: fricl_stencil order */

struct fricl_candidate_set {
  fricl__ivec pairs[FRICL__NTYPES];
};

/* A pair of the broad phase, handed over on the pool thread that found it.
 * slot = phase * FRICL__BP_PIECES(threads) + piece (< FRICL__BP_SLOTS):
 * the probes of a phase are split into up to FRICL__POOL_PIECES_PER_THREAD
 * contiguous pieces per thread, claimed dynamically (a thread descheduled
 * holds a call up only by a small piece); within a type and a slot the
 * pairs come in a fixed order, and the slots in order give the same
 * sequence for any thread count. (core/pool.h defines the pieces.) */
#define FRICL__BP_PHASES 3
#define FRICL__BP_PIECES(threads)                                              \
  ((unsigned)(threads) * (unsigned)FRICL__POOL_PIECES_PER_THREAD)
#define FRICL__BP_SLOTS(threads) (FRICL__BP_PHASES * FRICL__BP_PIECES(threads))
/* va, vb: the vertices of a's and b's elements (vertex: 1, edge: 2, face:
 * 3, in the mesh's order, then -1), read from the boxes the broad phase
 * has just tested (the narrow phase need not load the mesh's lists). */
typedef void (*fricl__pair_fn)(void *user, unsigned slot, int type, int32_t a,
                               int32_t b, const int32_t *va, const int32_t *vb);

/* Broad phase: the pairs of boxes that overlap, with ipctk's filters, into
 * `out` (sorted by ids), or, with `visit`, handed to it (vv, ev, ee, fv;
 * pv pairs always go to `out`). v1 NULL: static. */
fricl_status fricl__broad_phase(fricl_context *ctx,
                                const fricl_collision_mesh *mesh,
                                const double *v0, const double *v1,
                                double radius, size_t n_planes,
                                const double *plane_n, const double *plane_c,
                                fricl__pair_fn visit, void *user,
                                fricl_candidate_set *out);

void fricl__candidates_clear(fricl_candidate_set *set);
void fricl__candidates_free(fricl_candidate_set *set);

/* The narrow phase of a collision build as a backend runs it: the
 * broad phase's candidates of each type (vv, ev, ee, fv: 2 ids each, in
 * the order the build takes them), the positions and the mesh's
 * topology; it writes each candidate's distance type when its squared
 * distance is below `active`, else -1 (cn_narrow_* of
 * kernels/fricl_collision_narrow_math.h: every backend gives the same
 * bits). */
typedef struct fricl__narrow_work {
  const fricl_collision_mesh *mesh;
  int dim;
  const double *x; /* mesh->nv x dim */
  double active;   /* (dhat + dmin)^2 */
  double apart;    /* the separating axes' threshold (ee, fv) */
  size_t n[4], total;
  const int32_t *pairs[4];
  int8_t *type[4]; /* out, n[t] each */
} fricl__narrow_work;

/* Runs a narrow phase (the API layer's choice of backend); its failure
 * ends the build with that status, the set untouched. */
typedef fricl_status (*fricl__narrow_fn)(void *user,
                                         const fricl__narrow_work *w);

/* The narrow phase on the context's host threads. */
fricl_status fricl__collisions_narrow_host(fricl_context *ctx,
                                           const fricl__narrow_work *w);

/* The normal collision set (collision_build.c); options validated.
 * narrow_run NULL: each candidate is classified on the host thread of the
 * broad phase that finds it; else the candidates are collected and
 * narrow_run(user, ...) classifies them, with the same result. */
fricl_status fricl__collisions_build(fricl_context *ctx,
                                     const fricl_collision_mesh *m,
                                     const double *x,
                                     const fricl_collisions_options *o,
                                     fricl__narrow_fn narrow_run, void *user,
                                     fricl_collision_set **inout);
void fricl__collision_set_free(fricl_collision_set *s);
size_t fricl__collision_set_groups(const fricl_collision_set *s,
                                   const fricl_barrier_group **out);
size_t fricl__collision_set_elements(const fricl_collision_set *s, int type,
                                     const int32_t **ids, const double **eps_x);

/* An in-place LSD radix sort of 64-bit keys carrying a 32-bit payload,
 * stable. tmp: n scratch keys and payloads. */
/* Sort the pairs of @p p by (first, second), repeats dropped when
 * @p unique. @return 0 when out of memory (p unchanged). */
int fricl__pairs_sort(fricl__ivec *p, int unique);
void fricl__radix_sort(uint64_t *key, uint32_t *val, size_t n, uint64_t *tk,
                       uint32_t *tv);

#endif
