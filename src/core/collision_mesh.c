/* collision_mesh.c - what the collision builds derive from a mesh once:
 * faces to edges, codimensional vertices and edges, vertex and edge areas,
 * adjacencies and boundary vertices, by ipctk 1.6.1's CollisionMesh rules
 * (docs/collisions.md, "The mesh"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/collisions.h"

void *fricl__grow(void *v, size_t *cap, size_t need, size_t esz, size_t first) {
  size_t c = *cap ? *cap : first;
  while (c < need)
    c *= 2;
  void *w = realloc(v, c * esz);
  if (w)
    *cap = c;
  return w;
}

int fricl__ivec_reserve(fricl__ivec *a, size_t cap) {
  if (cap <= a->cap)
    return 1;
  int32_t *v = (int32_t *)fricl__grow(a->v, &a->cap, cap, sizeof *v, 64);
  if (v)
    a->v = v;
  return v != NULL;
}

int fricl__ivec_push2(fricl__ivec *a, int32_t x, int32_t y) {
  if (a->n + 2 > a->cap && !fricl__ivec_reserve(a, a->n + 2))
    return 0;
  a->v[a->n++] = x;
  a->v[a->n++] = y;
  return 1;
}

static int cmp_i32(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Lists from (owner, item) pairs: sorted, duplicates removed. */
static int adj_build(fricl__adj *adj, size_t n, const int32_t *pairs,
                     size_t np) {
  adj->off = (size_t *)calloc(n + 1, sizeof *adj->off);
  adj->idx = (int32_t *)malloc((np ? np : 1) * sizeof *adj->idx);
  size_t *fill = (size_t *)calloc(n + 1, sizeof *fill);
  if (!adj->off || !adj->idx || !fill) {
    free(fill);
    return 0;
  }
  for (size_t i = 0; i < np; ++i)
    adj->off[pairs[2 * i] + 1]++;
  for (size_t i = 0; i < n; ++i)
    adj->off[i + 1] += adj->off[i];
  for (size_t i = 0; i < np; ++i) {
    const int32_t o = pairs[2 * i];
    adj->idx[adj->off[o] + fill[o]++] = pairs[2 * i + 1];
  }
  /* Sort and compact each list in place. */
  size_t w = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t lo = adj->off[i], hi = adj->off[i + 1];
    qsort(adj->idx + lo, hi - lo, sizeof(int32_t), cmp_i32);
    adj->off[i] = w;
    for (size_t k = lo; k < hi; ++k)
      if (k == lo || adj->idx[k] != adj->idx[k - 1])
        adj->idx[w++] = adj->idx[k];
  }
  adj->off[n] = w;
  free(fill);
  return 1;
}

static void adj_free(fricl__adj *adj) {
  free(adj->off);
  free(adj->idx);
}

void fricl__collision_mesh_free(fricl_collision_mesh *m) {
  if (!m)
    return;
  free(m->rest);
  free(m->edges);
  free(m->faces);
  free(m->face_edges);
  free(m->vertex_area);
  free(m->edge_area);
  free(m->codim_v);
  free(m->codim_e);
  free(m->on_boundary);
  adj_free(&m->vv);
  adj_free(&m->ve);
  adj_free(&m->ev);
  free(m);
}

static uint64_t edge_key(int32_t a, int32_t b) {
  const uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
  return (uint64_t)lo << 32 | hi;
}

static double dist3(const double *a, const double *b, int dim) {
  double s = 0;
  for (int i = 0; i < dim; ++i)
    s += (b[i] - a[i]) * (b[i] - a[i]);
  return sqrt(s);
}

/* 0.5 |(t1 - t0) x (t2 - t0)|. */
static double tri_area(const double *t0, const double *t1, const double *t2) {
  const double u[3] = {t1[0] - t0[0], t1[1] - t0[1], t1[2] - t0[2]};
  const double v[3] = {t2[0] - t0[0], t2[1] - t0[1], t2[2] - t0[2]};
  const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
  return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/* faces -> edges through a sorted table of edge keys. */
static fricl_status map_face_edges(fricl_context *ctx,
                                   fricl_collision_mesh *m) {
  const size_t ne = m->ne;
  uint64_t *k = (uint64_t *)malloc((ne ? ne : 1) * sizeof *k);
  uint32_t *id = (uint32_t *)malloc((ne ? ne : 1) * sizeof *id);
  uint64_t *tk = (uint64_t *)malloc((ne ? ne : 1) * sizeof *tk);
  uint32_t *tv = (uint32_t *)malloc((ne ? ne : 1) * sizeof *tv);
  if (!k || !id || !tk || !tv) {
    free(k);
    free(id);
    free(tk);
    free(tv);
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "collision mesh: out of memory");
  }
  for (size_t e = 0; e < ne; ++e) {
    k[e] = edge_key(m->edges[2 * e], m->edges[2 * e + 1]);
    id[e] = (uint32_t)e;
  }
  fricl__radix_sort(k, id, ne, tk, tv);
  free(tk);
  free(tv);
  fricl_status st = FRICL_STATUS_OK;
  for (size_t f = 0; f < m->nf && st == FRICL_STATUS_OK; ++f)
    for (int j = 0; j < 3; ++j) {
      const uint64_t key =
          edge_key(m->faces[3 * f + j], m->faces[3 * f + (j + 1) % 3]);
      size_t lo = 0, hi = ne;
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (k[mid] < key)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == ne || k[lo] != key) {
        st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "faces[%zu]: edge (%d, %d) is not in edges", f,
                         (int)m->faces[3 * f + j],
                         (int)m->faces[3 * f + (j + 1) % 3]);
        break;
      }
      m->face_edges[3 * f + j] = (int32_t)id[lo];
    }
  free(k);
  free(id);
  return st;
}

static int derive_areas(fricl_collision_mesh *m) {
  const int dim = m->dim;
  const size_t nv = m->nv, ne = m->ne;
  double *ve = (double *)malloc((nv ? nv : 1) * sizeof *ve);
  double *vf = (double *)malloc((nv ? nv : 1) * sizeof *vf);
  if (!ve || !vf) {
    free(ve);
    free(vf);
    return 0;
  }
  for (size_t i = 0; i < nv; ++i)
    ve[i] = vf[i] = -1;
  for (size_t e = 0; e < ne; ++e) {
    m->edge_area[e] = -1;
    const double len = dist3(m->rest + (size_t)m->edges[2 * e] * dim,
                             m->rest + (size_t)m->edges[2 * e + 1] * dim, dim);
    for (int j = 0; j < 2; ++j) {
      double *a = &ve[m->edges[2 * e + j]];
      *a = (*a > 0 ? *a : 0) + 0.5 * len;
    }
  }
  if (dim == 3)
    for (size_t f = 0; f < m->nf; ++f) {
      const int32_t *t = m->faces + 3 * f;
      const double A =
          tri_area(m->rest + (size_t)t[0] * 3, m->rest + (size_t)t[1] * 3,
                   m->rest + (size_t)t[2] * 3);
      for (int j = 0; j < 3; ++j) {
        double *a = &vf[t[j]];
        *a = (*a > 0 ? *a : 0) + A / 3.0;
        double *b = &m->edge_area[m->face_edges[3 * f + j]];
        *b = (*b > 0 ? *b : 0) + A / 3.0;
      }
    }
  for (size_t i = 0; i < nv; ++i)
    m->vertex_area[i] = vf[i] < 0 ? (ve[i] < 0 ? 1 : ve[i]) : vf[i];
  for (size_t e = 0; e < ne; ++e)
    if (m->edge_area[e] < 0)
      m->edge_area[e] = dist3(m->rest + (size_t)m->edges[2 * e] * dim,
                              m->rest + (size_t)m->edges[2 * e + 1] * dim, dim);
  free(ve);
  free(vf);
  return 1;
}

static int derive_adjacency(fricl_collision_mesh *m) {
  const size_t ne = m->ne, nf = m->nf, nv = m->nv;
  const size_t np = 2 * ne > 3 * nf ? 2 * ne : 3 * nf;
  int32_t *p = (int32_t *)calloc(np ? 2 * np : 2, sizeof *p);
  if (!p)
    return 0;
  for (size_t e = 0; e < ne; ++e) {
    p[4 * e] = m->edges[2 * e];
    p[4 * e + 1] = m->edges[2 * e + 1];
    p[4 * e + 2] = m->edges[2 * e + 1];
    p[4 * e + 3] = m->edges[2 * e];
  }
  int ok = adj_build(&m->vv, nv, p, 2 * ne);
  for (size_t e = 0; ok && e < ne; ++e) {
    p[4 * e] = m->edges[2 * e];
    p[4 * e + 1] = (int32_t)e;
    p[4 * e + 2] = m->edges[2 * e + 1];
    p[4 * e + 3] = (int32_t)e;
  }
  ok = ok && adj_build(&m->ve, nv, p, 2 * ne);
  for (size_t f = 0; ok && f < nf; ++f)
    for (int j = 0; j < 3; ++j) {
      p[6 * f + 2 * j] = m->face_edges[3 * f + j];
      p[6 * f + 2 * j + 1] = m->faces[3 * f + (j + 2) % 3];
    }
  ok = ok && adj_build(&m->ev, ne, p, 3 * nf);
  free(p);
  if (!ok)
    return 0;
  for (size_t i = 0; i < nv; ++i)
    m->on_boundary[i] =
        m->dim == 2 ? (m->vv.off[i + 1] - m->vv.off[i] <= 1) : 1;
  if (m->dim == 3)
    for (size_t e = 0; e < ne; ++e)
      if (m->ev.off[e + 1] - m->ev.off[e] >= 2)
        m->on_boundary[m->edges[2 * e]] = m->on_boundary[m->edges[2 * e + 1]] =
            0;
  return 1;
}

/* The indices i < n with !used[i], into a new array *out of *count. */
static int list_unused(const unsigned char *used, size_t n, int32_t **out,
                       size_t *count) {
  *count = 0;
  for (size_t i = 0; i < n; ++i)
    *count += !used[i];
  if (!(*out = (int32_t *)malloc((*count + 1) * sizeof(int32_t))))
    return 0;
  for (size_t i = 0, j = 0; i < n; ++i)
    if (!used[i])
      (*out)[j++] = (int32_t)i;
  return 1;
}

static int derive_codim(fricl_collision_mesh *m) {
  unsigned char *used =
      (unsigned char *)calloc((m->nv > m->ne ? m->nv : m->ne) + 1, 1);
  if (!used)
    return 0;
  for (size_t i = 0; i < 2 * m->ne; ++i)
    used[m->edges[i]] = 1;
  int ok = list_unused(used, m->nv, &m->codim_v, &m->n_codim_v);
  memset(used, 0, m->ne + 1);
  for (size_t i = 0; i < 3 * m->nf; ++i)
    used[m->face_edges[i]] = 1;
  ok = ok && list_unused(used, m->ne, &m->codim_e, &m->n_codim_e);
  free(used);
  return ok;
}

fricl_status fricl__collision_mesh_new(fricl_context *ctx,
                                       const fricl_collision_mesh_desc *d,
                                       fricl_collision_mesh **out) {
  fricl_collision_mesh *m = (fricl_collision_mesh *)calloc(1, sizeof *m);
  if (!m)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "collision mesh: out of memory");
  m->dim = d->dim;
  m->nv = d->n_vertices;
  m->ne = d->n_edges;
  m->nf = d->dim == 3 ? d->n_faces : 0;
  const size_t dim = (size_t)d->dim;
  m->rest = (double *)malloc((m->nv * dim + 1) * sizeof(double));
  m->edges = (int32_t *)malloc((2 * m->ne + 1) * sizeof(int32_t));
  m->faces = (int32_t *)malloc((3 * m->nf + 1) * sizeof(int32_t));
  m->face_edges = (int32_t *)malloc((3 * m->nf + 1) * sizeof(int32_t));
  m->vertex_area = (double *)malloc((m->nv + 1) * sizeof(double));
  m->edge_area = (double *)malloc((m->ne + 1) * sizeof(double));
  m->on_boundary = (unsigned char *)malloc(m->nv + 1);
  if (!m->rest || !m->edges || !m->faces || !m->face_edges || !m->vertex_area ||
      !m->edge_area || !m->on_boundary) {
    fricl__collision_mesh_free(m);
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "collision mesh: out of memory");
  }
  if (m->nv)
    memcpy(m->rest, d->rest_positions, m->nv * dim * sizeof(double));
  if (m->ne)
    memcpy(m->edges, d->edges, 2 * m->ne * sizeof(int32_t));
  if (m->nf)
    memcpy(m->faces, d->faces, 3 * m->nf * sizeof(int32_t));
  fricl_status st = map_face_edges(ctx, m);
  if (st == FRICL_STATUS_OK &&
      !(derive_areas(m) && derive_adjacency(m) && derive_codim(m)))
    st = fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                     "collision mesh: out of memory");
  if (st != FRICL_STATUS_OK) {
    fricl__collision_mesh_free(m);
    return st;
  }
  *out = m;
  return FRICL_STATUS_OK;
}
