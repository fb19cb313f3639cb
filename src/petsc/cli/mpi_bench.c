#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* mpi_bench.c - `fricl-mpi bench`: what fricl_petsc costs on each rank over
 * fricl alone on the same contacts.
 *
 * The scene: a sheet of nx x ny vertices (3-D, numbered row by row, split
 * over the ranks in contiguous blocks like fricl-mpi tangential) and
 * --contacts contacts (50% edge-edge, 30% face-vertex, 20% edge-vertex), each
 * on a small neighbourhood of the grid, the first vertex in the rank's own
 * range: contacts near a rank's border touch its neighbours' vertices, as
 * a partitioned mesh's do. Every rank builds only its own contacts.
 *
 * Per rank, with every phase started together (MPI_Barrier) and the median
 * of --repeats runs:
 *   fricl alone   fricl_tangential_plan_create + fricl_tangential_eval
 *                 (potential, gradient, BSR Hessian) on the rank's contacts
 *                 in a local numbering: what one process holding these
 *                 contacts does (the evaluation timed is the second on the
 *                 same plan and arrays, as in a Newton loop);
 *   fricl_petsc   fricl_petsc_plan_create + _create_matrix, and
 *                 fricl_petsc_tangential_eval into a Vec and a MATBAIJ
 *                 (scatter, evaluation, exchange, MatSetValuesBlocked,
 *                 assembly): the first on a new matrix (whose first
 *                 assembly sets up PETSc's own structures), then again on
 *                 the same plan and matrix, as in a Newton loop.
 * The overhead is fricl_petsc / fricl alone - 1, for the plan (with the
 * matrix), the evaluation (the second) and both. The run fails (exit 1) if
 * PETSc reports a malloc during assembly. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "mpi_cli.h"

typedef struct bench_args {
  double contacts;
  int repeats;
  const char *device;
  int preallocator; /* also time PETSc's MATPREALLOCATOR */
  int help;
} bench_args;

static uint64_t rng;
static double urand(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(rng >> 11) * 0x1p-53;
}

/* The rank's contacts of the three types, global vertex ids. */
typedef struct bench_scene {
  PetscInt n, nx; /* vertices, row length */
  PetscInt vstart, vend;
  size_t m[3];
  fricl_contact_group g[3];
  int32_t *ids[3], *local_ids[3];
  double *cp[3], *basis[3], *normal[3], *mu_s[3], *mu_k[3];
  double *vel; /* owned vertices' velocities */
} bench_scene;

static void make_scene(bench_scene *s, double contacts, int rank, int size) {
  const fricl_stencil types[3] = {FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                                  FRICL_STENCIL_EV};
  const double share[3] = {0.5, 0.3, 0.2};
  memset(s, 0, sizeof *s);
  s->n = (PetscInt)(contacts / 4 > 16 ? contacts / 4 : 16);
  s->nx = (PetscInt)sqrt((double)s->n);
  const PetscInt q = s->n / size, rem = s->n % size;
  s->vstart = rank * q + (rank < rem ? rank : rem);
  s->vend = s->vstart + q + (rank < rem);
  rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(rank + 1) * 0x100000001b3ull;
  const PetscInt own = s->vend - s->vstart;
  s->vel = malloc(sizeof(double) * (size_t)(own * 3 + 1));
  for (PetscInt i = 0; i < own * 3; ++i)
    s->vel[i] = (urand() - 0.5) * (i % 2 ? 1e-3 : 1.0);
  /* Neighbour offsets on the grid: within two rows and two columns. */
  for (int t = 0; t < 3; ++t) {
    const size_t m = (size_t)(contacts * share[t] / size);
    const int k = fricl_stencil_vertex_count(types[t]);
    const int nb = fricl_stencil_coord_count(types[t]);
    s->m[t] = own > 0 ? m : 0;
    s->ids[t] = malloc(sizeof(int32_t) * (s->m[t] * (size_t)k + 1));
    s->cp[t] = malloc(sizeof(double) * (s->m[t] * (size_t)nb + 1));
    s->basis[t] = malloc(sizeof(double) * (s->m[t] * 6 + 1));
    s->normal[t] = malloc(sizeof(double) * (s->m[t] + 1));
    s->mu_s[t] = malloc(sizeof(double) * (s->m[t] + 1));
    s->mu_k[t] = malloc(sizeof(double) * (s->m[t] + 1));
    for (size_t c = 0; c < s->m[t]; ++c) {
      const PetscInt first = s->vstart + (PetscInt)(urand() * (double)own);
      for (int j = 0; j < k; ++j) {
        PetscInt v = first;
        for (int tries = 0; j > 0; ++tries) {
          const PetscInt dr = (PetscInt)(urand() * 5) - 2;
          const PetscInt dc = (PetscInt)(urand() * 5) - 2;
          v = first + dr * s->nx + dc;
          int dup = v < 0 || v >= s->n;
          for (int p = 0; p < j && !dup; ++p)
            dup = s->ids[t][c * (size_t)k + (size_t)p] == (int32_t)v;
          if (!dup)
            break;
          if (tries > 50) { /* a corner of the sheet: any free vertex */
            v = (first + j) % s->n;
            break;
          }
        }
        s->ids[t][c * (size_t)k + (size_t)j] = (int32_t)v;
      }
      for (int b = 0; b < nb; ++b)
        s->cp[t][c * (size_t)nb + (size_t)b] = urand();
      /* The basis of the xy plane, rotated about z. */
      const double a = 6.283185307179586 * urand();
      double *P = s->basis[t] + 6 * c;
      P[0] = cos(a), P[1] = -sin(a), P[2] = sin(a), P[3] = cos(a);
      P[4] = 0, P[5] = 0;
      s->normal[t][c] = 0.1 + urand();
      s->mu_k[t][c] = 0.3;
      s->mu_s[t][c] = 0.5;
    }
    fricl_contact_group *G = &s->g[t];
    G->type = types[t];
    G->count = s->m[t];
    G->vertices = s->ids[t];
    G->closest_point = nb ? s->cp[t] : NULL;
    G->tangent_basis = s->basis[t];
    G->normal_force = s->normal[t];
    G->mu_s = s->mu_s[t];
    G->mu_k = s->mu_k[t];
  }
}

static void free_scene(bench_scene *s) {
  for (int t = 0; t < 3; ++t) {
    free(s->ids[t]);
    free(s->local_ids[t]);
    free(s->cp[t]);
    free(s->basis[t]);
    free(s->normal[t]);
    free(s->mu_s[t]);
    free(s->mu_k[t]);
  }
  free(s->vel);
}

/* A phase's wall time and the CPU time of the rank's process (all its
 * threads): with more ranks than cores, wall time includes waiting for a
 * core; CPU time is the rank's own work. */
typedef struct clk {
  double wall, cpu;
} clk;

static clk clk_now(void) {
  struct timespec ts;
  clk c;
  c.wall = MPI_Wtime();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  c.cpu = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  return c;
}

static void clk_record(clk start, double *wall, double *cpu) {
  const clk end = clk_now();
  *wall = end.wall - start.wall;
  *cpu = end.cpu - start.cpu;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The rank's contacts in a local numbering (ascending global ids), and
 * the velocities of those vertices: the baseline's input. */
static PetscErrorCode local_numbering(bench_scene *s, Vec v,
                                      fricl_contact_group *lg, size_t *nl,
                                      double **lvel) {
  PetscInt n = 0, *all;
  size_t K = 0;
  PetscFunctionBegin;
  for (int t = 0; t < 3; ++t)
    K += s->m[t] * (size_t)fricl_stencil_vertex_count(s->g[t].type);
  PetscCall(PetscMalloc1(K + 1, &all));
  for (int t = 0; t < 3; ++t)
    for (size_t i = 0;
         i < s->m[t] * (size_t)fricl_stencil_vertex_count(s->g[t].type); ++i)
      all[n++] = s->ids[t][i];
  PetscCall(PetscSortRemoveDupsInt(&n, all));
  for (int t = 0; t < 3; ++t) {
    const size_t nk =
        s->m[t] * (size_t)fricl_stencil_vertex_count(s->g[t].type);
    s->local_ids[t] = malloc(sizeof(int32_t) * (nk + 1));
    for (size_t i = 0; i < nk; ++i) {
      PetscInt at;
      PetscCall(PetscFindInt(s->ids[t][i], n, all, &at));
      s->local_ids[t][i] = (int32_t)at;
    }
    lg[t] = s->g[t];
    lg[t].vertices = s->local_ids[t];
  }
  /* The velocities of these vertices (a scatter, untimed). */
  IS is;
  Vec x;
  VecScatter sc;
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, 3, n, all, PETSC_COPY_VALUES, &is));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 3 * n, &x));
  PetscCall(VecScatterCreate(v, is, x, NULL, &sc));
  PetscCall(VecScatterBegin(sc, v, x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, v, x, INSERT_VALUES, SCATTER_FORWARD));
  const PetscScalar *a;
  PetscCall(PetscMalloc1(3 * n + 1, lvel));
  PetscCall(VecGetArrayRead(x, &a));
  for (PetscInt i = 0; i < 3 * n; ++i)
    (*lvel)[i] = a[i];
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&x));
  PetscCall(ISDestroy(&is));
  PetscCall(PetscFree(all));
  *nl = (size_t)n;
  PetscFunctionReturn(0);
}

#define N_PHASES 7
static const char *const phase_names[N_PHASES] = {"fricl plan",
                                                  "fricl eval",
                                                  "petsc plan+matrix",
                                                  "petsc first eval",
                                                  "petsc eval",
                                                  "MATPREALLOCATOR",
                                                  "create_matrix (filled)"};

static PetscErrorCode bench(const bench_args *a, int *rc) {
  MPI_Comm comm = PETSC_COMM_WORLD;
  PetscMPIInt rank, size;
  bench_scene s;
  fricl_context *ctx = NULL;
  Vec v, g;
  fricl_contact_group lg[3];
  size_t nl = 0;
  double *lvel = NULL;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  make_scene(&s, a->contacts, rank, size);
  PetscCall(VecCreateMPI(comm, (s.vend - s.vstart) * 3, s.n * 3, &v));
  PetscCall(VecSetBlockSize(v, 3));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(v, &x));
    for (PetscInt i = 0; i < (s.vend - s.vstart) * 3; ++i)
      x[i] = s.vel[i];
    PetscCall(VecRestoreArray(v, &x));
  }
  PetscCall(VecDuplicate(v, &g));
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = a->device;
  PetscCall(fricl_petsc_context_create(comm, &params, &ctx));
  PetscCall(local_numbering(&s, v, lg, &nl, &lvel));

  double *t[N_PHASES], *tc[N_PHASES];
  for (int p = 0; p < N_PHASES; ++p) {
    PetscCall(PetscCalloc1(a->repeats, &t[p]));
    PetscCall(PetscCalloc1(a->repeats, &tc[p]));
  }
  double mallocs = 0;
  fricl_petsc_plan_info info;
  for (int rep = 0; rep < a->repeats; ++rep) {
    /* fricl alone. */
    fricl_tangential_plan *fp = NULL;
    PetscCallMPI(MPI_Barrier(comm));
    clk t0 = clk_now();
    fricl_status st = fricl_tangential_plan_create(ctx, 3, nl, 3, lg, &fp);
    clk_record(t0, &t[0][rep], &tc[0][rep]);
    PetscCheck(st == FRICL_STATUS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB,
               "fricl_tangential_plan_create: %s",
               fricl_context_last_error(ctx));
    size_t nnzb = 0;
    fricl_tangential_plan_bsr(fp, NULL, &nnzb, NULL, NULL);
    double *grad, *bsr, pot = 0;
    PetscCall(PetscMalloc2(3 * nl + 1, &grad, 9 * nnzb + 1, &bsr));
    fricl_tangential_batch b;
    fricl_tangential_batch_init(&b);
    b.psd = FRICL_PSD_CLAMP;
    b.eps_v = 1e-3;
    b.dim = 3;
    b.n_vertices = nl;
    b.velocities = lvel;
    b.n_groups = 3;
    b.groups = lg;
    b.plan = fp;
    b.potential = &pot;
    b.gradient = grad;
    b.hessian_values = bsr;
    /* The first evaluation touches the output arrays; the second, timed,
     * is the steady state of a Newton loop: outputs zeroed, then
     * evaluated (as for fricl_petsc below, whose matrix is zeroed with
     * MatZeroEntries). */
    st = fricl_tangential_eval(ctx, &b);
    PetscCall(PetscArrayzero(grad, 3 * nl));
    PetscCall(PetscArrayzero(bsr, 9 * nnzb));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = clk_now();
    if (st == FRICL_STATUS_OK)
      st = fricl_tangential_eval(ctx, &b);
    clk_record(t0, &t[1][rep], &tc[1][rep]);
    PetscCheck(st == FRICL_STATUS_OK, PETSC_COMM_SELF, PETSC_ERR_LIB,
               "fricl_tangential_eval: %s", fricl_context_last_error(ctx));
    PetscCall(PetscFree2(grad, bsr));
    fricl_tangential_plan_destroy(fp);

    /* fricl_petsc. */
    fricl_petsc_plan *plan = NULL;
    Mat H;
    PetscCallMPI(MPI_Barrier(comm));
    t0 = clk_now();
    PetscCall(fricl_petsc_plan_create(ctx, v, NULL, 3, s.g, &plan));
    PetscCall(fricl_petsc_plan_create_matrix(plan, MATBAIJ, 0, &H));
    clk_record(t0, &t[2][rep], &tc[2][rep]);
    PetscCall(VecZeroEntries(g));
    fricl_tangential_batch pb;
    fricl_tangential_batch_init(&pb);
    pb.psd = FRICL_PSD_CLAMP;
    pb.eps_v = 1e-3;
    pb.n_groups = 3;
    pb.groups = s.g;
    PetscReal ppot;
    PetscCallMPI(MPI_Barrier(comm));
    t0 = clk_now();
    PetscCall(fricl_petsc_tangential_eval(plan, &pb, v, &ppot, g, H, 0));
    clk_record(t0, &t[3][rep], &tc[3][rep]);
    /* Again on the same plan and matrix, as in a Newton loop. */
    PetscCall(MatZeroEntries(H));
    PetscCall(VecZeroEntries(g));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = clk_now();
    PetscCall(fricl_petsc_tangential_eval(plan, &pb, v, &ppot, g, H, 0));
    clk_record(t0, &t[4][rep], &tc[4][rep]);
    if (a->preallocator) {
      /* The same preallocation by PETSc's MATPREALLOCATOR: the rank's
       * pattern inserted, assembled (off-process rows in the stash) and
       * preallocated into a new MATBAIJ, filled with zeros. */
      Mat P, A;
      PetscInt nloc;
      PetscCall(VecGetLocalSize(v, &nloc));
      PetscCallMPI(MPI_Barrier(comm));
      t0 = clk_now();
      PetscCall(MatCreate(comm, &P));
      PetscCall(MatSetType(P, MATPREALLOCATOR));
      PetscCall(MatSetSizes(P, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
      PetscCall(MatSetBlockSize(P, 3));
      PetscCall(MatSetUp(P));
      PetscCall(fricl_petsc_plan_insert_pattern(plan, P));
      PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
      PetscCall(MatCreate(comm, &A));
      PetscCall(MatSetType(A, MATBAIJ));
      PetscCall(MatSetSizes(A, nloc, nloc, PETSC_DETERMINE, PETSC_DETERMINE));
      PetscCall(MatSetBlockSize(A, 3));
      PetscCall(MatPreallocatorPreallocate(P, PETSC_TRUE, A));
      clk_record(t0, &t[5][rep], &tc[5][rep]);
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&P));
      /* fricl_petsc's own matrix creation alone, for comparison. */
      PetscCallMPI(MPI_Barrier(comm));
      t0 = clk_now();
      PetscCall(fricl_petsc_plan_create_matrix(
          plan, MATBAIJ, FRICL_PETSC_MATRIX_DIAGONAL, &A));
      clk_record(t0, &t[6][rep], &tc[6][rep]);
      PetscCall(MatDestroy(&A));
    }
    MatInfo mi;
    PetscCall(MatGetInfo(H, MAT_GLOBAL_SUM, &mi));
    mallocs += mi.mallocs;
    PetscCall(fricl_petsc_plan_get_info(plan, &info));
    PetscCall(MatDestroy(&H));
    PetscCall(fricl_petsc_plan_destroy(&plan));
  }
  double med[2 * N_PHASES]; /* wall, then CPU */
  for (int p = 0; p < N_PHASES; ++p) {
    med[p] = median(t[p], a->repeats);
    med[N_PHASES + p] = median(tc[p], a->repeats);
  }
  /* Rank 0 prints every rank's medians. */
  double *all = NULL;
  long long mine[3] = {(long long)info.n_contacts, info.n_ghost_vertices,
                       info.n_local_vertices},
            *allc = NULL;
  if (rank == 0) {
    PetscCall(PetscMalloc1(2 * N_PHASES * size, &all));
    PetscCall(PetscMalloc1(3 * size, &allc));
  }
  PetscCallMPI(MPI_Gather(med, 2 * N_PHASES, MPI_DOUBLE, all, 2 * N_PHASES,
                          MPI_DOUBLE, 0, comm));
  PetscCallMPI(
      MPI_Gather(mine, 3, MPI_LONG_LONG, allc, 3, MPI_LONG_LONG, 0, comm));
  if (rank == 0) {
    printf("fricl-mpi bench: %d rank(s), %.0f contacts (3-D: 50%% ee, 30%% "
           "fv, 20%% ev), %" PetscInt_FMT
           " vertices, PSD clamp, device %s, median of %d\n",
           size, a->contacts, s.n, fricl_context_device_name(ctx), a->repeats);
    double worst[2] = {-1e300, -1e300};
    for (int k = 0; k < 2; ++k) {
      printf("\n%s\n\n", k == 0 ? "Wall time (ms):"
                                : "CPU time of the rank's process (ms):");
      printf("| rank | contacts | ghost vertices | %s | %s | %s | %s | %s | "
             "plan overhead | eval overhead | plan + eval overhead |\n",
             phase_names[0], phase_names[1], phase_names[2], phase_names[3],
             phase_names[4]);
      printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
      double tmax[N_PHASES] = {0};
      for (int r = 0; r < size; ++r) {
        const double *m = all + 2 * N_PHASES * r + k * N_PHASES;
        const double ov_plan = m[2] / m[0] - 1, ov_eval = m[4] / m[1] - 1;
        const double ov = (m[2] + m[4]) / (m[0] + m[1]) - 1;
        worst[k] = fmax(worst[k], ov);
        for (int p = 0; p < N_PHASES; ++p)
          tmax[p] = fmax(tmax[p], m[p]);
        printf("| %d | %lld | %lld | %.1f | %.1f | %.1f | %.1f | %.1f | "
               "%+.0f%% | %+.0f%% | %+.0f%% |\n",
               r, allc[3 * r], allc[3 * r + 1], 1e3 * m[0], 1e3 * m[1],
               1e3 * m[2], 1e3 * m[3], 1e3 * m[4], 100 * ov_plan, 100 * ov_eval,
               100 * ov);
      }
      printf("| max | | | %.1f | %.1f | %.1f | %.1f | %.1f | | | |\n",
             1e3 * tmax[0], 1e3 * tmax[1], 1e3 * tmax[2], 1e3 * tmax[3],
             1e3 * tmax[4]);
      if (a->preallocator)
        for (int r = 0; r < size; ++r)
          printf("rank %d: MATPREALLOCATOR (insert + assemble + preallocate, "
                 "filled) %.1f ms; fricl_petsc_plan_create_matrix (filled) "
                 "%.1f ms\n",
                 r, 1e3 * all[2 * N_PHASES * r + k * N_PHASES + 5],
                 1e3 * all[2 * N_PHASES * r + k * N_PHASES + 6]);
    }
    printf("\nworst per-rank overhead (plan + eval): wall %+.1f%%, CPU "
           "%+.1f%%; mallocs during assembly: %.0f\n",
           100 * worst[0], 100 * worst[1], mallocs);
    PetscCall(PetscFree(all));
    PetscCall(PetscFree(allc));
  }
  *rc = mallocs > 0 ? EXIT_RUNTIME : 0;
  for (int p = 0; p < N_PHASES; ++p) {
    PetscCall(PetscFree(t[p]));
    PetscCall(PetscFree(tc[p]));
  }
  PetscCall(PetscFree(lvel));
  fricl_context_destroy(ctx);
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&g));
  free_scene(&s);
  PetscFunctionReturn(0);
}

static int parse(int argc, char **argv, bench_args *a, char *err, size_t size) {
  memset(a, 0, sizeof *a);
  a->contacts = 1e5;
  a->repeats = 5;
  for (int i = 1; i < argc; ++i) {
    const char *name, *value;
    int len;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      a->help = 1;
      return 0;
    }
    if (strncmp(argv[i], "--", 2) != 0) {
      snprintf(err, size, "unexpected argument '%s'", argv[i]);
      return -1;
    }
    cli_split_option(argc, argv, &i, &name, &len, &value);
    double x = 0;
    const char *why = NULL;
    if (!value) {
      snprintf(err, size, "option '%.*s' needs a value", len, name);
      return -1;
    }
    if (len == 10 && strncmp(name, "--contacts", 10) == 0) {
      if (cli_parse_double(value, &x, &why) || !(x >= 1 && x <= 1e9)) {
        snprintf(err, size, "--contacts '%s': a count in [1, 1e9]", value);
        return -1;
      }
      a->contacts = x;
    } else if (len == 9 && strncmp(name, "--repeats", 9) == 0) {
      if (cli_parse_double(value, &x, &why) || !(x >= 1 && x <= 1000)) {
        snprintf(err, size, "--repeats '%s': a count in [1, 1000]", value);
        return -1;
      }
      a->repeats = (int)x;
    } else if (len == 14 && strncmp(name, "--preallocator", 14) == 0) {
      a->preallocator = strcmp(value, "yes") == 0;
      if (!a->preallocator && strcmp(value, "no") != 0) {
        snprintf(err, size, "--preallocator '%s': yes or no", value);
        return -1;
      }
    } else if (len == 8 && strncmp(name, "--device", 8) == 0) {
      a->device = value;
    } else {
      snprintf(err, size, "unknown option '%.*s'", len, name);
      return -1;
    }
  }
  return 0;
}

int mpi_bench_main(int argc, char **argv) {
  bench_args a;
  char err[256];
  int rank = 0, rc = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (parse(argc, argv, &a, err, sizeof err) != 0) {
    if (rank == 0)
      fprintf(stderr, "fricl-mpi bench: %s (see 'fricl-mpi bench --help')\n",
              err);
    return EXIT_USAGE;
  }
  if (a.help) {
    if (rank == 0)
      printf("Usage: mpirun -np P fricl-mpi bench [--contacts N] "
             "[--repeats R] [--device SPEC]\n"
             "                                [--preallocator yes|no]\n"
             "\n"
             "Per rank: the median time of fricl alone (plan + evaluation of "
             "the rank's\ncontacts in a local numbering) and of fricl_petsc "
             "(plan + matrix, evaluation\n+ assembly), on a synthetic 3-D "
             "sheet of N contacts (default 1e5, 5 repeats).\n"
             "--preallocator yes also times PETSc's MATPREALLOCATOR on the "
             "same pattern.\nExit 1 if PETSc reports a malloc during "
             "assembly.\n");
    return 0;
  }
  mpi_outcome o;
  memset(&o, 0, sizeof o);
  const PetscErrorCode ierr = bench(&a, &rc);
  if (ierr) {
    mpi_petsc_fail(&o, ierr, "bench");
    if (rank == 0)
      fprintf(stderr, "fricl-mpi bench: %s\n", o.msg);
    return o.rc;
  }
  return rc;
}
