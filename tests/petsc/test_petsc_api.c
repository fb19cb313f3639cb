/*
 * test_petsc_api.c - fricl_petsc under mpirun (any number of ranks).
 *
 * The oracle: every rank also evaluates the WHOLE scene in one process
 * with plain fricl_tangential_eval (reference backend) and checks the rows
 * it owns of the distributed results against it: the same block pattern
 * exactly, values within 1e-13 of the scale. The preallocation is checked
 * against the serial plan's pattern (block counts per row) and against
 * PETSc's own MATPREALLOCATOR; MatGetInfo must report no malloc.
 *
 * Scenarios (argv[1]):
 *   assemble  3-D scene with every stencil, contacts crossing ranks and
 *             (with 3+ ranks) ranks without contacts: BAIJ, AIJ, SBAIJ,
 *             global ids and ISLocalToGlobalMapping ids, NO_ASSEMBLY,
 *             DIAGONAL, MATPREALLOCATOR, repeated evaluation.
 *   dim2      the same in 2-D (vv, ev, pv).
 *   errors    bad input on one rank: every rank gets the same error, no
 *             rank hangs; the plan stays usable.
 *   nulls     a NULL plan, layout or out-pointer on one rank only: every
 *             rank gets the same error (before: the others hung).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl_petsc.h"

static int failures = 0;
static int rank = 0, size = 1;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "[rank %d] FAIL %s:%d: ", rank, __FILE__, __LINE__);     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* ------------------------------------------------------------- scene */

static uint64_t rng_state = 1;
static double urand(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng_state >> 11) * 0x1p-53;
}

typedef struct scene {
  int dim;
  int n; /* vertices */
  double eps_v;
  double *vel;
  int ng;
  fricl_contact_group g[5];
  int32_t *ids[5];
  double *cp[5], *basis[5], *normal[5], *mu_s[5], *mu_k[5], *weight[5],
      *aniso[5];
} scene;

/* A random orthonormal dim x (dim-1) basis (Gram-Schmidt). */
static void random_basis(int dim, double *P) {
  double v[2][3];
  for (int c = 0; c < dim - 1; ++c) {
    for (int i = 0; i < dim; ++i)
      v[c][i] = urand() - 0.5;
    for (int p = 0; p < c; ++p) {
      double d = 0;
      for (int i = 0; i < dim; ++i)
        d += v[c][i] * v[p][i];
      for (int i = 0; i < dim; ++i)
        v[c][i] -= d * v[p][i];
    }
    double nrm = 0;
    for (int i = 0; i < dim; ++i)
      nrm += v[c][i] * v[c][i];
    nrm = sqrt(nrm);
    for (int i = 0; i < dim; ++i)
      v[c][i] /= nrm;
  }
  for (int i = 0; i < dim; ++i)
    for (int c = 0; c < dim - 1; ++c)
      P[i * (dim - 1) + c] = v[c][i];
}

/* m contacts per type; first vertices in [0, first_frac n) so that the
 * last ranks may own none; the other vertices anywhere. */
static void make_scene(scene *s, int dim, int n, int m, double first_frac,
                       uint64_t seed) {
  memset(s, 0, sizeof *s);
  rng_state = seed;
  s->dim = dim;
  s->n = n;
  s->eps_v = 1e-2;
  s->vel = malloc(sizeof(double) * (size_t)(n * dim));
  for (int i = 0; i < n * dim; ++i) /* static, near eps_v and kinetic */
    s->vel[i] = (urand() - 0.5) * (i % 3 == 0 ? 1e-3 : i % 3 == 1 ? 2e-2 : 1);
  const fricl_stencil types3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                   FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                                   FRICL_STENCIL_PV};
  const fricl_stencil types2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                   FRICL_STENCIL_PV};
  s->ng = dim == 3 ? 5 : 3;
  for (int t = 0; t < s->ng; ++t) {
    const fricl_stencil type = dim == 3 ? types3[t] : types2[t];
    const int k = fricl_stencil_vertex_count(type);
    const int nb = fricl_stencil_coord_count(type);
    const int mt = dim - 1;
    s->ids[t] = malloc(sizeof(int32_t) * (size_t)(m * k));
    s->cp[t] = malloc(sizeof(double) * (size_t)(m * (nb ? nb : 1)));
    s->basis[t] = malloc(sizeof(double) * (size_t)(m * dim * mt));
    s->normal[t] = malloc(sizeof(double) * (size_t)m);
    s->mu_s[t] = malloc(sizeof(double) * (size_t)m);
    s->mu_k[t] = malloc(sizeof(double) * (size_t)m);
    s->weight[t] = malloc(sizeof(double) * (size_t)m);
    s->aniso[t] = malloc(sizeof(double) * (size_t)(m * mt));
    for (int c = 0; c < m; ++c) {
      for (int j = 0; j < k; ++j) {
        int v, again;
        do {
          v = j == 0 ? (int)(urand() * first_frac * n) : (int)(urand() * n);
          again = 0;
          for (int q = 0; q < j; ++q)
            again |= s->ids[t][c * k + q] == v;
        } while (again);
        s->ids[t][c * k + j] = v;
      }
      for (int b = 0; b < nb; ++b)
        s->cp[t][c * nb + b] = urand();
      random_basis(dim, s->basis[t] + c * dim * mt);
      s->normal[t][c] = 0.1 + urand();
      s->mu_k[t][c] = 0.2 + 0.3 * urand();
      s->mu_s[t][c] = s->mu_k[t][c] + 0.2 * urand();
      s->weight[t][c] = 0.5 + urand();
      for (int q = 0; q < mt; ++q)
        s->aniso[t][c * mt + q] = 0.5 + urand();
    }
    fricl_contact_group *G = &s->g[t];
    memset(G, 0, sizeof *G);
    G->type = type;
    G->count = (size_t)m;
    G->vertices = s->ids[t];
    G->closest_point = nb ? s->cp[t] : NULL;
    G->tangent_basis = s->basis[t];
    G->normal_force = s->normal[t];
    G->mu_s = s->mu_s[t];
    G->mu_k = s->mu_k[t];
    G->weight = s->weight[t];
    G->mu_aniso = s->aniso[t];
  }
}

static void free_scene(scene *s) {
  free(s->vel);
  for (int t = 0; t < s->ng; ++t) {
    free(s->ids[t]);
    free(s->cp[t]);
    free(s->basis[t]);
    free(s->normal[t]);
    free(s->mu_s[t]);
    free(s->mu_k[t]);
    free(s->weight[t]);
    free(s->aniso[t]);
  }
}

/* The contacts whose first vertex lies in [lo, hi): copies of the rows. */
typedef struct part {
  int ng;
  fricl_contact_group g[5];
  void *mem[5][8];
} part;

static void *pick(const void *src, size_t row_bytes, const char *keep, size_t m,
                  size_t kept) {
  char *dst = malloc(row_bytes * (kept ? kept : 1));
  size_t at = 0;
  for (size_t c = 0; src && c < m; ++c)
    if (keep[c])
      memcpy(dst + row_bytes * at++, (const char *)src + row_bytes * c,
             row_bytes);
  return dst;
}

static void make_part(const scene *s, int lo, int hi, part *p) {
  memset(p, 0, sizeof *p);
  p->ng = s->ng;
  for (int t = 0; t < s->ng; ++t) {
    const fricl_contact_group *G = &s->g[t];
    const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    const size_t mt = (size_t)s->dim - 1, d = (size_t)s->dim;
    char *keep = calloc(G->count + 1, 1);
    size_t kept = 0;
    for (size_t c = 0; c < G->count; ++c) {
      const int v = G->vertices[c * k];
      keep[c] = v >= lo && v < hi;
      kept += keep[c];
    }
    fricl_contact_group *P = &p->g[t];
    *P = *G;
    P->count = kept;
    const void *src[8] = {G->vertices,     G->closest_point, G->tangent_basis,
                          G->normal_force, G->mu_s,          G->mu_k,
                          G->weight,       G->mu_aniso};
    const size_t rb[8] = {k * 4, nb * 8, d * mt * 8, 8, 8, 8, 8, mt * 8};
    for (int a = 0; a < 8; ++a)
      p->mem[t][a] = pick(src[a], rb[a] ? rb[a] : 8, keep, G->count, kept);
    P->vertices = p->mem[t][0];
    P->closest_point = nb ? p->mem[t][1] : NULL;
    P->tangent_basis = p->mem[t][2];
    P->normal_force = p->mem[t][3];
    P->mu_s = p->mem[t][4];
    P->mu_k = p->mem[t][5];
    P->weight = p->mem[t][6];
    P->mu_aniso = p->mem[t][7];
    free(keep);
  }
}

static void free_part(part *p) {
  for (int t = 0; t < p->ng; ++t)
    for (int a = 0; a < 8; ++a)
      free(p->mem[t][a]);
}

/* ------------------------------------------------------- serial oracle */

typedef struct serial {
  double potential;
  double *gradient;
  int64_t *row_ptr; /* scalar CSR */
  int32_t *cols;
  double *values;
  const int64_t *brow; /* block pattern */
  const int32_t *bcols;
  fricl_tangential_plan *plan;
} serial;

static void serial_eval(fricl_context *ctx, const scene *s, fricl_psd psd,
                        serial *out) {
  memset(out, 0, sizeof *out);
  const size_t nd = (size_t)(s->n * s->dim);
  size_t nnzb = 0, nrows = 0;
  fricl_status st = fricl_tangential_plan_create(
      ctx, s->dim, (size_t)s->n, (size_t)s->ng, s->g, &out->plan);
  CHECK(st == FRICL_STATUS_OK, "serial plan: %s",
        fricl_context_last_error(ctx));
  fricl_tangential_plan_bsr(out->plan, &nrows, &nnzb, &out->brow, &out->bcols);
  const size_t bs2 = (size_t)(s->dim * s->dim);
  double *bsr = malloc(sizeof(double) * nnzb * bs2 + 8);
  out->gradient = malloc(sizeof(double) * nd);
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.psd = psd;
  b.dim = s->dim;
  b.n_vertices = (size_t)s->n;
  b.velocities = s->vel;
  b.eps_v = s->eps_v;
  b.n_groups = (size_t)s->ng;
  b.groups = s->g;
  b.plan = out->plan;
  b.potential = &out->potential;
  b.gradient = out->gradient;
  b.hessian_values = bsr;
  st = fricl_tangential_eval(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "serial eval: %s",
        fricl_context_last_error(ctx));
  out->row_ptr = malloc(sizeof(int64_t) * (nd + 1));
  out->cols = malloc(sizeof(int32_t) * nnzb * bs2 + 4);
  out->values = malloc(sizeof(double) * nnzb * bs2 + 8);
  fricl_tangential_plan_csr(out->plan, FRICL_F64, bsr, out->row_ptr, out->cols,
                            out->values);
  free(bsr);
}

static void free_serial(serial *s) {
  fricl_tangential_plan_destroy(s->plan);
  free(s->gradient);
  free(s->row_ptr);
  free(s->cols);
  free(s->values);
}

static double max_abs(const double *v, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    m = fmax(m, fabs(v[i]));
  return m;
}

/* The distributed results on this rank's rows against the oracle. */
static void compare(const char *what, const scene *s, const serial *ref,
                    PetscReal potential, Vec g, Mat H) {
  const double tol = 1e-13;
  const size_t nd = (size_t)(s->n * s->dim);
  CHECK(fabs(potential - ref->potential) <= tol * fabs(ref->potential),
        "%s: potential %.17g vs %.17g", what, potential, ref->potential);
  const double gscale = max_abs(ref->gradient, nd);
  const double hscale = max_abs(ref->values, (size_t)ref->row_ptr[nd]);
  PetscInt lo, hi;
  const PetscScalar *gv;
  VecGetOwnershipRange(g, &lo, &hi);
  VecGetArrayRead(g, &gv);
  for (PetscInt i = lo; i < hi; ++i)
    CHECK(fabs(gv[i - lo] - ref->gradient[i]) <= tol * gscale,
          "%s: gradient[%d] %.17g vs %.17g", what, (int)i, gv[i - lo],
          ref->gradient[i]);
  VecRestoreArrayRead(g, &gv);
  if (!H)
    return;
  for (PetscInt r = lo; r < hi; ++r) {
    PetscInt nc;
    const PetscInt *c;
    const PetscScalar *v;
    MatGetRow(H, r, &nc, &c, &v);
    const int64_t r0 = ref->row_ptr[r], n_ref = ref->row_ptr[r + 1] - r0;
    CHECK(nc == n_ref, "%s: row %d has %d entries, serial %d", what, (int)r,
          (int)nc, (int)n_ref);
    for (PetscInt k = 0; k < nc && k < n_ref; ++k) {
      CHECK(c[k] == ref->cols[r0 + k], "%s: row %d entry %d column %d vs %d",
            what, (int)r, (int)k, (int)c[k], (int)ref->cols[r0 + k]);
      CHECK(fabs(v[k] - ref->values[r0 + k]) <= tol * hscale,
            "%s: H[%d, %d] %.17g vs %.17g", what, (int)r, (int)c[k], v[k],
            ref->values[r0 + k]);
    }
    MatRestoreRow(H, r, &nc, &c, &v);
  }
}

static void check_no_mallocs(const char *what, Mat H) {
  MatInfo info;
  MatGetInfo(H, MAT_GLOBAL_SUM, &info);
  CHECK(info.mallocs == 0, "%s: %g mallocs during assembly", what,
        info.mallocs);
}

/* ------------------------------------------------------------ scenarios */

/* The scene's velocities in a Vec of block size dim, the vertices split
 * evenly in contiguous blocks; g laid out alike; [lo, hi) the rank's dofs. */
static PetscErrorCode make_vecs(const scene *s, Vec *v, Vec *g, PetscInt *lo,
                                PetscInt *hi) {
  const PetscInt nloc = s->n / size + (rank < s->n % size);
  PetscFunctionBegin;
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, nloc * s->dim, PETSC_DETERMINE, v));
  PetscCall(VecSetBlockSize(*v, s->dim));
  PetscCall(VecGetOwnershipRange(*v, lo, hi));
  for (PetscInt i = *lo; i < *hi; ++i)
    PetscCall(VecSetValue(*v, i, s->vel[i], INSERT_VALUES));
  PetscCall(VecAssemblyBegin(*v));
  PetscCall(VecAssemblyEnd(*v));
  PetscCall(VecDuplicate(*v, g));
  PetscFunctionReturn(0);
}

static void set_batch(fricl_tangential_batch *b, const scene *s, const part *p,
                      fricl_psd psd) {
  fricl_tangential_batch_init(b);
  b->psd = psd;
  b->eps_v = s->eps_v;
  b->n_groups = (size_t)p->ng;
  b->groups = p->g;
}

static PetscErrorCode run_assemble(fricl_context *ctx, fricl_context *ref_ctx,
                                   int dim) {
  scene s;
  part p;
  serial ref;
  const int n = 97;
  PetscFunctionBegin;
  /* With 3+ ranks, the last rank owns no first vertex: no contacts. */
  make_scene(&s, dim, n, 40, size >= 3 ? 0.6 : 1.0, 12345 + (uint64_t)dim);
  const fricl_psd psd = FRICL_PSD_CLAMP;
  serial_eval(ref_ctx, &s, psd, &ref);
  Vec v, g;
  PetscInt lo, hi;
  PetscCall(make_vecs(&s, &v, &g, &lo, &hi));
  make_part(&s, (int)(lo / dim), (int)(hi / dim), &p);

  fricl_petsc_plan *plan;
  PetscCall(fricl_petsc_plan_create(ctx, v, NULL, (size_t)p.ng, p.g, &plan));
  fricl_petsc_plan_info info;
  PetscCall(fricl_petsc_plan_get_info(plan, &info));
  if (size >= 3 && rank == size - 1)
    CHECK(info.n_contacts == 0, "the last rank should have no contacts");
  /* Preallocation: the serial pattern's blocks per owned row. */
  const PetscInt *dnz, *onz, *dnzu, *onzu;
  PetscCall(fricl_petsc_plan_get_preallocation(plan, &dnz, &onz, &dnzu, &onzu));
  PetscInt owned_blocks = 0;
  for (PetscInt i = 0; i < hi / dim - lo / dim; ++i) {
    const PetscInt gi = lo / dim + i;
    PetscInt d = 0, o = 0, du = 0, ou = 0;
    for (int64_t k = ref.brow[gi]; k < ref.brow[gi + 1]; ++k) {
      const PetscInt c = ref.bcols[k];
      const int diag = c >= lo / dim && c < hi / dim;
      d += diag;
      o += !diag;
      du += diag && c >= gi;
      ou += !diag && c >= gi;
    }
    CHECK(dnz[i] == d && onz[i] == o && dnzu[i] == du && onzu[i] == ou,
          "preallocation of row %d: %d %d %d %d, serial pattern %d %d %d %d",
          (int)gi, (int)dnz[i], (int)onz[i], (int)dnzu[i], (int)onzu[i], (int)d,
          (int)o, (int)du, (int)ou);
    owned_blocks += d + o;
  }
  CHECK(info.n_owned_blocks == owned_blocks, "n_owned_blocks %d vs %d",
        (int)info.n_owned_blocks, (int)owned_blocks);

  fricl_tangential_batch b;
  set_batch(&b, &s, &p, psd);
  const MatType types[3] = {MATBAIJ, MATAIJ, MATSBAIJ};
  Mat Hb = NULL;
  for (int ti = 0; ti < 3; ++ti) {
    Mat H;
    PetscReal pot = -1;
    PetscCall(fricl_petsc_plan_create_matrix(plan, types[ti], 0, &H));
    PetscCall(VecZeroEntries(g));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0));
    check_no_mallocs(types[ti], H);
    if (ti < 2) {
      compare(types[ti], &s, &ref, pot, g, H);
    } else { /* SBAIJ stores the upper triangle: compare H x with BAIJ's */
      Vec x, y1, y2;
      PetscCall(VecDuplicate(v, &x));
      PetscCall(VecDuplicate(v, &y1));
      PetscCall(VecDuplicate(v, &y2));
      PetscCall(VecCopy(v, x));
      PetscCall(MatMult(Hb, x, y1));
      PetscCall(MatMult(H, x, y2));
      PetscReal n1, nd;
      PetscCall(VecNorm(y1, NORM_INFINITY, &n1));
      PetscCall(VecAXPY(y2, -1.0, y1));
      PetscCall(VecNorm(y2, NORM_INFINITY, &nd));
      CHECK(nd <= 1e-13 * n1, "SBAIJ H x differs from BAIJ's by %g of %g", nd,
            n1);
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y1));
      PetscCall(VecDestroy(&y2));
    }
    /* Exact: after assembly, nothing preallocated is left unused. */
    MatInfo mi;
    PetscCall(MatGetInfo(H, MAT_GLOBAL_SUM, &mi));
    CHECK(mi.nz_allocated == mi.nz_used, "%s: %g allocated, %g used", types[ti],
          mi.nz_allocated, mi.nz_used);
    if (ti == 0)
      Hb = H;
    else
      PetscCall(MatDestroy(&H));
  }

  /* Again on the same matrix and plan (a Newton loop): the same values,
   * bitwise (the order of additions is fixed by the plan). */
  {
    PetscReal pot1, pot2;
    Mat H1;
    Vec g1;
    PetscCall(MatDuplicate(Hb, MAT_COPY_VALUES, &H1));
    PetscCall(VecDuplicate(g, &g1));
    PetscCall(VecCopy(g, g1));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot1, NULL, NULL, 0));
    for (int rep = 0; rep < 3; ++rep) {
      PetscBool same_v = PETSC_FALSE, same_m = PETSC_FALSE;
      PetscCall(MatZeroEntries(Hb));
      PetscCall(VecZeroEntries(g));
      PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot2, g, Hb, 0));
      compare("BAIJ again", &s, &ref, pot2, g, Hb);
      check_no_mallocs("BAIJ again", Hb);
      PetscCall(VecEqual(g, g1, &same_v));
      PetscCall(MatEqual(Hb, H1, &same_m));
      CHECK(pot1 == pot2 && same_v && same_m,
            "repeat %d: not bitwise equal (pot %d vec %d mat %d)", rep,
            pot1 == pot2, (int)same_v, (int)same_m);
    }
    PetscCall(MatDestroy(&H1));
    PetscCall(VecDestroy(&g1));
  }

  /* NO_ASSEMBLY: the caller assembles. */
  {
    PetscReal pot;
    PetscCall(MatZeroEntries(Hb));
    PetscCall(VecZeroEntries(g));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, g, Hb,
                                          FRICL_PETSC_EVAL_NO_ASSEMBLY));
    PetscCall(MatAssemblyBegin(Hb, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(Hb, MAT_FINAL_ASSEMBLY));
    PetscCall(VecAssemblyBegin(g));
    PetscCall(VecAssemblyEnd(g));
    compare("NO_ASSEMBLY", &s, &ref, pot, g, Hb);
  }

  /* DIAGONAL: every owned diagonal block exists; MatShift needs no
   * allocation (MAT_NEW_NONZERO_ALLOCATION_ERR would raise). */
  {
    Mat A;
    PetscReal pot;
    PetscCall(fricl_petsc_plan_create_matrix(plan, NULL,
                                             FRICL_PETSC_MATRIX_DIAGONAL, &A));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, NULL, A, 0));
    PetscCall(MatShift(A, 2.0));
    check_no_mallocs("DIAGONAL", A);
    /* A - 2 I equals the Hessian. */
    PetscCall(MatShift(A, -2.0));
    PetscCall(MatAXPY(A, -1.0, Hb, SUBSET_NONZERO_PATTERN));
    PetscReal nrm, href;
    PetscCall(MatNorm(A, NORM_INFINITY, &nrm));
    PetscCall(MatNorm(Hb, NORM_INFINITY, &href));
    CHECK(nrm <= 1e-13 * href, "DIAGONAL: differs from BAIJ by %g", nrm);
    PetscCall(MatDestroy(&A));
  }

  /* PETSc's own MATPREALLOCATOR on the same pattern: the same blocks. */
  {
    Mat P, A;
    PetscInt nl;
    PetscCall(VecGetLocalSize(v, &nl));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &P));
    PetscCall(MatSetType(P, MATPREALLOCATOR));
    PetscCall(MatSetSizes(P, nl, nl, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(P, dim));
    PetscCall(MatSetUp(P));
    PetscCall(fricl_petsc_plan_insert_pattern(plan, P));
    PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetType(A, MATBAIJ));
    PetscCall(MatSetSizes(A, nl, nl, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(A, dim));
    PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, A));
    MatInfo mi;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &mi));
    CHECK(mi.nz_used == (double)(info.n_owned_blocks * dim * dim),
          "MATPREALLOCATOR: %g entries, fricl_petsc %d blocks", mi.nz_used,
          (int)info.n_owned_blocks);
    PetscReal pot;
    PetscCall(VecZeroEntries(g));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, g, A, 0));
    compare("MATPREALLOCATOR", &s, &ref, pot, g, A);
    check_no_mallocs("MATPREALLOCATOR", A);
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&P));
  }

  /* ISLocalToGlobalMapping: the rank numbers its vertices locally (the
   * touched vertices in a scrambled order); the same results, bitwise. */
  {
    PetscInt nv;
    const PetscInt *gv;
    PetscCall(fricl_petsc_plan_get_vertices(plan, &nv, &gv));
    PetscInt *l2g;
    PetscCall(PetscMalloc1(nv + 1, &l2g));
    for (PetscInt i = 0; i < nv; ++i) /* reversed order */
      l2g[i] = gv[nv - 1 - i];
    part q;
    make_part(&s, (int)(lo / dim), (int)(hi / dim), &q);
    for (int t = 0; t < q.ng; ++t) {
      int32_t *ids = q.mem[t][0];
      const size_t nk =
          q.g[t].count * (size_t)fricl_stencil_vertex_count(q.g[t].type);
      for (size_t i = 0; i < nk; ++i) {
        PetscInt at = -1;
        PetscCall(PetscFindInt(ids[i], nv, gv, &at));
        ids[i] = (int32_t)(nv - 1 - at);
      }
    }
    ISLocalToGlobalMapping map;
    PetscCall(ISLocalToGlobalMappingCreate(PETSC_COMM_SELF, 1, nv, l2g,
                                           PETSC_OWN_POINTER, &map));
    fricl_petsc_plan *plan2;
    PetscCall(fricl_petsc_plan_create(ctx, v, map, (size_t)q.ng, q.g, &plan2));
    Mat H2;
    Vec g2;
    PetscReal pot1, pot2;
    PetscCall(fricl_petsc_plan_create_matrix(plan2, NULL, 0, &H2));
    PetscCall(VecDuplicate(v, &g2));
    fricl_tangential_batch b2;
    set_batch(&b2, &s, &q, psd);
    PetscCall(fricl_petsc_tangential_eval(plan2, &b2, v, &pot2, g2, H2, 0));
    PetscCall(MatZeroEntries(Hb));
    PetscCall(VecZeroEntries(g));
    PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot1, g, Hb, 0));
    PetscBool same_v = PETSC_FALSE, same_m = PETSC_FALSE;
    PetscCall(VecEqual(g, g2, &same_v));
    PetscCall(MatEqual(Hb, H2, &same_m));
    CHECK(pot1 == pot2 && same_v && same_m,
          "mapping: results differ from global ids (pot %d vec %d mat %d)",
          pot1 == pot2, (int)same_v, (int)same_m);
    PetscCall(MatDestroy(&H2));
    PetscCall(VecDestroy(&g2));
    PetscCall(fricl_petsc_plan_destroy(&plan2));
    PetscCall(ISLocalToGlobalMappingDestroy(&map));
    free_part(&q);
  }

  PetscCall(MatDestroy(&Hb));
  PetscCall(fricl_petsc_plan_destroy(&plan));
  CHECK(plan == NULL, "plan_destroy must set the pointer to NULL");
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&g));
  free_part(&p);
  free_serial(&ref);
  free_scene(&s);
  PetscFunctionReturn(0);
}

/* --------------------------------------------------------------- errors */

static char last_msg[2048];
static PetscErrorCode quiet_handler(MPI_Comm comm, int line, const char *func,
                                    const char *file, PetscErrorCode n,
                                    PetscErrorType p, const char *mess,
                                    void *ctx) {
  (void)comm;
  (void)line;
  (void)func;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL)
    snprintf(last_msg, sizeof last_msg, "%s", mess ? mess : "");
  return n;
}

/* The error must be the same on every rank: same code, same message. */
static void expect_same_error(const char *what, PetscErrorCode code,
                              PetscErrorCode want, const char *needle) {
  CHECK(code == want, "%s: error code %d, expected %d (%s)", what, (int)code,
        (int)want, last_msg);
  CHECK(strstr(last_msg, needle) != NULL, "%s: message '%s' lacks '%s'", what,
        last_msg, needle);
  char root[2048];
  memcpy(root, last_msg, sizeof root);
  MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, PETSC_COMM_WORLD);
  CHECK(strcmp(root, last_msg) == 0, "%s: rank 0 says '%s', this rank '%s'",
        what, root, last_msg);
  int c = (int)code, cmin, cmax;
  MPI_Allreduce(&c, &cmin, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
  MPI_Allreduce(&c, &cmax, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  CHECK(cmin == cmax, "%s: the ranks got different codes", what);
}

static PetscErrorCode run_errors(fricl_context *ctx, fricl_context *ref_ctx) {
  scene s;
  part p;
  serial ref;
  const int n = 40, dim = 3, bad = size - 1; /* the rank with bad input */
  char needle[64];
  PetscFunctionBegin;
  make_scene(&s, dim, n, 40, 1.0, 777);
  serial_eval(ref_ctx, &s, FRICL_PSD_NONE, &ref);
  Vec v, g;
  PetscInt lo, hi;
  PetscCall(make_vecs(&s, &v, &g, &lo, &hi));
  make_part(&s, (int)(lo / dim), (int)(hi / dim), &p);
  snprintf(needle, sizeof needle, "rank %d: ", bad);

  PetscCall(PetscPushErrorHandler(quiet_handler, NULL));
  fricl_petsc_plan *plan = NULL;
  /* 1. A vertex id out of range on one rank: plan_create fails on all. */
  {
    int32_t *ids = p.mem[0][0];
    const int32_t keep = ids[0];
    if (rank == bad && p.g[0].count)
      ids[0] = n + 5;
    int had = rank == bad && p.g[0].count > 0, any;
    MPI_Allreduce(&had, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
    CHECK(any, "the scene must give the last rank a vv contact");
    PetscErrorCode ierr =
        fricl_petsc_plan_create(ctx, v, NULL, (size_t)p.ng, p.g, &plan);
    expect_same_error("vertex out of range", ierr, PETSC_ERR_ARG_OUTOFRANGE,
                      needle);
    CHECK(strstr(last_msg, "out of range [0, 40)") != NULL, "message: %s",
          last_msg);
    CHECK(plan == NULL, "a failed plan_create must leave *plan NULL");
    ids[0] = keep;
  }
  /* A good plan and matrix for what follows. */
  PetscCall(PetscPopErrorHandler());
  PetscCall(fricl_petsc_plan_create(ctx, v, NULL, (size_t)p.ng, p.g, &plan));
  Mat H;
  PetscCall(fricl_petsc_plan_create_matrix(plan, NULL, 0, &H));
  PetscCall(PetscPushErrorHandler(quiet_handler, NULL));
  fricl_tangential_batch b;
  set_batch(&b, &s, &p, FRICL_PSD_NONE);
  PetscReal pot;

  /* 2. Data fricl rejects on one rank (N < 0): every rank fails. */
  {
    double *N = p.mem[1][3];
    const double keep = N[0];
    int had = rank == bad && p.g[1].count > 0, any;
    MPI_Allreduce(&had, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
    if (had)
      N[0] = -1.0;
    PetscErrorCode ierr =
        fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0);
    if (any) {
      expect_same_error("N < 0", ierr, PETSC_ERR_ARG_WRONG, needle);
      CHECK(strstr(last_msg, "fricl_tangential_eval: invalid argument") &&
                strstr(last_msg, "groups[1] (ev)"),
            "message: %s", last_msg);
    }
    N[0] = keep;
  }
  /* 3. The gradient on some ranks only: a collective mismatch. */
  if (size > 1) {
    PetscErrorCode ierr = fricl_petsc_tangential_eval(
        plan, &b, v, &pot, rank == bad ? NULL : g, H, 0);
    expect_same_error("gradient on some ranks", ierr, PETSC_ERR_ARG_INCOMP,
                      "must be the same on every rank");
  }
  /* 4. Different vertices than the plan's on one rank. */
  {
    int32_t *ids = p.mem[2][0];
    int had = rank == bad && p.g[2].count > 0, any;
    MPI_Allreduce(&had, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
    const int32_t keep = ids[0];
    if (had)
      ids[0] = ids[0] == 0 ? 1 : 0;
    PetscErrorCode ierr =
        fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0);
    if (any)
      expect_same_error("changed vertices", ierr, PETSC_ERR_ARG_INCOMP,
                        "differ from those the plan was created with");
    ids[0] = keep;
  }
  /* 5. A batch field fricl_petsc owns. */
  {
    fricl_tangential_batch b2 = b;
    double dummy = 0;
    if (rank == bad)
      b2.gradient = &dummy;
    PetscErrorCode ierr =
        fricl_petsc_tangential_eval(plan, &b2, v, &pot, g, H, 0);
    expect_same_error("batch.gradient set", ierr, PETSC_ERR_ARG_WRONG,
                      "batch.gradient is set");
  }
  /* 6. A Vec of another layout on one rank's call. */
  {
    Vec w;
    PetscCall(
        VecCreateMPI(PETSC_COMM_WORLD, rank == 0 ? 3 : 0, PETSC_DETERMINE, &w));
    PetscCall(VecSetBlockSize(w, 3));
    PetscErrorCode ierr =
        fricl_petsc_tangential_eval(plan, &b, w, &pot, g, H, 0);
    expect_same_error("layout", ierr, PETSC_ERR_ARG_INCOMP,
                      "differs from the plan's Vec");
    PetscCall(VecDestroy(&w));
  }
  PetscCall(PetscPopErrorHandler());

  /* The plan and the matrix still work, and give the serial result. */
  PetscCall(MatZeroEntries(H));
  PetscCall(VecZeroEntries(g));
  PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0));
  compare("after errors", &s, &ref, pot, g, H);
  check_no_mallocs("after errors", H);

  PetscCall(MatDestroy(&H));
  PetscCall(fricl_petsc_plan_destroy(&plan));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&g));
  free_part(&p);
  free_serial(&ref);
  free_scene(&s);
  PetscFunctionReturn(0);
}

/* --------------------------------------------------------------- nulls */

/* A NULL plan, layout or out-pointer on one rank only: that rank cannot
 * leave early, or the others wait for it in their agreement (the test's
 * timeout catches that); every rank gets the same error naming it. */
static PetscErrorCode run_nulls(fricl_context *ctx, fricl_context *ref_ctx) {
  scene s;
  part p;
  serial ref;
  const int n = 40, dim = 3, bad = size - 1;
  char needle[128];
  PetscFunctionBegin;
  make_scene(&s, dim, n, 40, 1.0, 4242);
  serial_eval(ref_ctx, &s, FRICL_PSD_NONE, &ref);
  Vec v, g;
  PetscInt lo, hi;
  PetscCall(make_vecs(&s, &v, &g, &lo, &hi));
  make_part(&s, (int)(lo / dim), (int)(hi / dim), &p);
  fricl_petsc_plan *plan = NULL;
  PetscErrorCode ierr;

  PetscCall(PetscPushErrorHandler(quiet_handler, NULL));
  /* 1. plan_create: a NULL layout. */
  ierr = fricl_petsc_plan_create(ctx, rank == bad ? NULL : v, NULL,
                                 (size_t)p.ng, p.g, &plan);
  snprintf(needle, sizeof needle, "rank %d: layout is NULL", bad);
  expect_same_error("NULL layout", ierr, PETSC_ERR_ARG_NULL, needle);
  CHECK(plan == NULL, "a failed plan_create must leave *plan NULL");
  /* 2. plan_create: a NULL plan out-pointer. */
  ierr = fricl_petsc_plan_create(ctx, v, NULL, (size_t)p.ng, p.g,
                                 rank == bad ? NULL : &plan);
  snprintf(needle, sizeof needle, "rank %d: plan is NULL", bad);
  expect_same_error("NULL plan out-pointer", ierr, PETSC_ERR_ARG_NULL, needle);
  CHECK(plan == NULL, "a failed plan_create must leave *plan NULL");
  PetscCall(PetscPopErrorHandler());

  PetscCall(fricl_petsc_plan_create(ctx, v, NULL, (size_t)p.ng, p.g, &plan));
  Mat H = NULL;
  PetscCall(PetscPushErrorHandler(quiet_handler, NULL));
  /* 3. create_matrix: a NULL out-pointer, then a NULL plan. */
  ierr = fricl_petsc_plan_create_matrix(plan, NULL, 0, rank == bad ? NULL : &H);
  snprintf(needle, sizeof needle, "rank %d: H is NULL", bad);
  expect_same_error("NULL H", ierr, PETSC_ERR_ARG_NULL, needle);
  CHECK(H == NULL, "a failed create_matrix must leave *H alone");
  ierr = fricl_petsc_plan_create_matrix(rank == bad ? NULL : plan, NULL, 0, &H);
  snprintf(needle, sizeof needle, "rank %d: plan is NULL", bad);
  expect_same_error("create_matrix: NULL plan", ierr, PETSC_ERR_ARG_NULL,
                    needle);
  CHECK(H == NULL, "a failed create_matrix must leave *H alone");
  /* 4. create_matrix: another type on one rank. */
  if (size > 1) {
    ierr = fricl_petsc_plan_create_matrix(plan, rank == bad ? MATAIJ : NULL, 0,
                                          &H);
    expect_same_error("type on one rank", ierr, PETSC_ERR_ARG_INCOMP,
                      "must be the same on every rank");
    CHECK(H == NULL, "a failed create_matrix must leave *H alone");
  }
  /* 5. preallocate: a NULL plan. */
  {
    Mat A;
    PetscInt nl;
    PetscCall(VecGetLocalSize(v, &nl));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, nl, nl, PETSC_DETERMINE, PETSC_DETERMINE));
    PetscCall(MatSetBlockSize(A, dim));
    PetscCall(MatSetType(A, MATBAIJ));
    ierr = fricl_petsc_plan_preallocate(rank == bad ? NULL : plan, A, 0);
    expect_same_error("preallocate: NULL plan", ierr, PETSC_ERR_ARG_NULL,
                      needle);
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscPopErrorHandler());

  /* 6. tangential_eval: a NULL plan. */
  PetscCall(fricl_petsc_plan_create_matrix(plan, NULL, 0, &H));
  fricl_tangential_batch b;
  set_batch(&b, &s, &p, FRICL_PSD_NONE);
  PetscReal pot = 0;
  PetscCall(PetscPushErrorHandler(quiet_handler, NULL));
  ierr = fricl_petsc_tangential_eval(rank == bad ? NULL : plan, &b, v, &pot, g,
                                     H, 0);
  expect_same_error("eval: NULL plan", ierr, PETSC_ERR_ARG_NULL, needle);
  PetscCall(PetscPopErrorHandler());

  /* Nothing is left half done: the plan and the matrix still work. */
  PetscCall(MatZeroEntries(H));
  PetscCall(VecZeroEntries(g));
  PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0));
  compare("after NULL arguments", &s, &ref, pot, g, H);

  PetscCall(MatDestroy(&H));
  PetscCall(fricl_petsc_plan_destroy(&plan));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&g));
  free_part(&p);
  free_serial(&ref);
  free_scene(&s);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv) {
  const char *scenario = argc > 1 ? argv[1] : "assemble";
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  fricl_context *ctx = NULL, *ref_ctx = NULL;
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = "reference";
  PetscCall(fricl_petsc_context_create(PETSC_COMM_WORLD, NULL, &ctx));
  if (fricl_context_create(&ref_ctx, &params) != FRICL_STATUS_OK) {
    fprintf(stderr, "cannot create the reference context\n");
    return 1;
  }
  if (strcmp(scenario, "assemble") == 0)
    PetscCall(run_assemble(ctx, ref_ctx, 3));
  else if (strcmp(scenario, "dim2") == 0)
    PetscCall(run_assemble(ctx, ref_ctx, 2));
  else if (strcmp(scenario, "errors") == 0)
    PetscCall(run_errors(ctx, ref_ctx));
  else if (strcmp(scenario, "nulls") == 0)
    PetscCall(run_nulls(ctx, ref_ctx));
  else {
    fprintf(stderr, "unknown scenario %s\n", scenario);
    failures = 1;
  }
  fricl_context_destroy(ref_ctx);
  fricl_context_destroy(ctx);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  if (rank == 0)
    printf("test_petsc_api %s on %d rank(s): %s (%d failure(s))\n", scenario,
           size, total ? "FAILED" : "passed", total);
  PetscCall(PetscFinalize());
  return total ? 1 : 0;
}
