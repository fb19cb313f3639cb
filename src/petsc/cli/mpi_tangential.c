/* mpi_tangential.c - `fricl-mpi tangential`: the contact set of an .npz
 * archive, evaluated and assembled over the MPI ranks with fricl_petsc.
 *
 * Every rank reads the whole archive (with the reader of `fricl
 * tangential`, so the schema and its messages are the same) and keeps its
 * part: vertices [vstart, vend) of an even contiguous split, and the
 * contacts whose first vertex it owns. A real solver hands fricl_petsc its
 * own partition; reading everything everywhere keeps this reference tool
 * simple (the input must fit in every rank's memory). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <petscksp.h>

#include "atomic_file.h"
#include "mpi_args.h"
#include "mpi_cli.h"
#include "mpi_gather.h"
#include "npz_input.h"
#include "npz_output.h"
#include "same_file.h"
#include "tangential_input.h"

#define N_TYPES TANGENTIAL_N_TYPES
#define CMD "fricl-mpi tangential"

/* This rank's contacts of one stencil type (copies of the input rows). */
typedef struct rank_group {
  tangential_group part; /* this rank's: copies of the input rows */
  int64_t *orig;         /* index of each in the input */
  double *potential;     /* output */
} rank_group;

typedef struct run {
  const mpi_args *a;
  MPI_Comm comm;
  int rank, size;
  tangential_input in;
  double *mass; /* (n,), NULL: all 1 */
  PetscInt vstart, vend;
  rank_group g[N_TYPES];
} run;

/* ------------------------------------------------------------ partition */

/* Vertices [first(r), first(r + 1)) belong to rank r: n / P each, the
 * first n % P ranks one more (as PETSC_DECIDE splits). */
static size_t first_vertex(size_t n, int size, int r) {
  const size_t q = n / (size_t)size, rem = n % (size_t)size;
  return (size_t)r * q + ((size_t)r < rem ? (size_t)r : rem);
}

static int owner_of(size_t n, int size, size_t v) {
  const size_t q = n / (size_t)size, rem = n % (size_t)size;
  if (v < rem * (q + 1))
    return (int)(v / (q + 1));
  return (int)(rem + (v - rem * (q + 1)) / q);
}

/* ------------------------------------------------------------- reading */

static int read_mass(run *s, FILE *err) {
  char got[128];
  const npz_member *mb = npz_find(&s->in.in, "mass");
  if (!mb)
    return 0;
  const npy_array *a = &mb->array;
  if (!npy_is_real(a->info.dtype)) {
    fprintf(err,
            CMD ": %s: array 'mass': dtype '%s' is not float64 or "
                "float32\n",
            s->a->in_path, npy_dtype_descr(a->info.dtype));
    return EXIT_USAGE;
  }
  if (a->info.ndim != 1 || a->info.shape[0] != s->in.n) {
    fprintf(err,
            CMD ": %s: array 'mass': expected shape (n,) = (%zu,), got "
                "%s\n",
            s->a->in_path, s->in.n,
            npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
    return EXIT_USAGE;
  }
  if (!(s->mass = npy_real_copy(a, FRICL_F64))) {
    fprintf(err, CMD ": out of memory (mass)\n");
    return EXIT_RUNTIME;
  }
  for (size_t i = 0; i < s->in.n; ++i)
    if (!(isfinite(s->mass[i]) && s->mass[i] > 0)) {
      fprintf(err, CMD ": %s: mass[%zu] = %g: it must be finite and > 0\n",
              s->a->in_path, i, s->mass[i]);
      return EXIT_USAGE;
    }
  return 0;
}

/* Every rank reads; the messages go to a memory stream and the first
 * failing rank's is the one reported. */
static int read_all(run *s, mpi_outcome *o) {
  static const char *const extra[] = {"mass", NULL};
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&buf, &len);
  s->in.cmd = CMD;
  s->in.path = s->a->in_path;
  s->in.precision = FRICL_F64;
  s->in.err = mem ? mem : stderr;
  int rc = tangential_input_read(&s->in, extra);
  if (rc == 0)
    rc = read_mass(s, s->in.err);
  if (mem)
    fclose(mem);
  if (rc)
    mpi_fail(o, rc, "%s", buf && *buf ? buf : CMD ": bad input");
  free(buf);
  return rc;
}

/* Every rank must have read the same input: each keeps the contacts it
 * owns by the input's vertex count and ids, so a rank that read another
 * contact set (MPMD launches, a file replaced while the ranks read it, a
 * path that names different files on different nodes) would make the
 * ranks disagree on the plan and on what rank 0 gathers (which crashed).
 * The input's shape and a checksum of its vertex ids are compared with
 * rank 0's; a rank that differs fails, naming itself and the difference. */
static void check_same_input(run *s, mpi_outcome *o) {
  enum { N_FIELDS = 3 + 3 * N_TYPES };
  uint64_t mine[N_FIELDS], root[N_FIELDS];
  memset(mine, 0, sizeof mine);
  mine[0] = (uint64_t)s->in.dim;
  mine[1] = (uint64_t)s->in.n;
  mine[2] = s->mass != NULL;
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *G = &s->in.g[t];
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a over the ids */
    for (size_t i = 0; G->present && i < G->m * G->k; ++i)
      h = (h ^ (uint32_t)G->ids[i]) * 0x100000001b3ull;
    mine[3 + 3 * t] = (uint64_t)G->present;
    mine[4 + 3 * t] = G->present ? (uint64_t)G->m : 0;
    mine[5 + 3 * t] = h;
  }
  memcpy(root, mine, sizeof root);
  MPI_Bcast(root, N_FIELDS, MPI_UINT64_T, 0, s->comm);
  char what[160] = "";
  if (mine[0] != root[0] || mine[1] != root[1])
    snprintf(what, sizeof what,
             "dim %d and %zu vertices, rank 0's has dim %d and %zu", s->in.dim,
             s->in.n, (int)root[0], (size_t)root[1]);
  else if (mine[2] != root[2])
    snprintf(what, sizeof what, "%s a mass array, rank 0's %s",
             mine[2] ? "has" : "has no", root[2] ? "has" : "has none");
  for (int t = 0; !*what && t < N_TYPES; ++t) {
    const char *name = fricl_stencil_name((fricl_stencil)t);
    const uint64_t *m = mine + 3 + 3 * t, *r = root + 3 + 3 * t;
    if (m[0] != r[0] || m[1] != r[1])
      snprintf(what, sizeof what, "%zu %s contacts, rank 0's has %zu",
               (size_t)m[1], name, (size_t)r[1]);
    else if (m[2] != r[2])
      snprintf(what, sizeof what,
               "%s contacts with other vertex ids than rank 0's", name);
  }
  if (*what)
    mpi_fail(o, EXIT_USAGE,
             CMD ": rank %d: %s: the input this rank read differs from rank "
                 "0's: %s (every rank must read the same archive)",
             s->rank, s->a->in_path, what);
}

/* ------------------------------------------------------- rank's contacts */

static void *copy_rows(const void *src, size_t row_bytes, const int64_t *sel,
                       size_t m) {
  if (!src)
    return NULL;
  char *dst = cli_alloc_array(m ? m : 1, row_bytes ? row_bytes : 1);
  for (size_t i = 0; dst && i < m; ++i)
    memcpy(dst + i * row_bytes, (const char *)src + (size_t)sel[i] * row_bytes,
           row_bytes);
  return dst;
}

static int take_contacts(run *s, mpi_outcome *o) {
  const size_t dim = (size_t)s->in.dim, mt = dim - 1;
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *G = &s->in.g[t];
    rank_group *R = &s->g[t];
    if (!G->present)
      continue;
    R->orig = cli_alloc_array(G->m ? G->m : 1, sizeof *R->orig);
    if (!R->orig)
      return mpi_fail(o, EXIT_RUNTIME, CMD ": out of memory (%s)", G->tname);
    for (size_t c = 0; c < G->m; ++c)
      if (owner_of(s->in.n, s->size, (size_t)G->ids[c * G->k]) == s->rank)
        R->orig[R->part.m++] = (int64_t)c;
    const size_t m = R->part.m;
    R->part.type = G->type;
    R->part.ids = copy_rows(G->ids, G->k * sizeof(int32_t), R->orig, m);
    R->part.cp =
        copy_rows(G->nb ? G->cp : NULL, G->nb * sizeof(double), R->orig, m);
    R->part.basis = copy_rows(G->basis, dim * mt * sizeof(double), R->orig, m);
    R->part.normal = copy_rows(G->normal, sizeof(double), R->orig, m);
    R->part.mu_s = copy_rows(G->mu_s, sizeof(double), R->orig, m);
    R->part.mu_k = copy_rows(G->mu_k, sizeof(double), R->orig, m);
    R->part.weight = copy_rows(G->weight, sizeof(double), R->orig, m);
    R->part.aniso = copy_rows(G->aniso, mt * sizeof(double), R->orig, m);
    R->potential = cli_alloc_array(m ? m : 1, sizeof(double));
    if (!R->part.ids || (G->nb && !R->part.cp) || !R->part.basis ||
        !R->part.normal || !R->part.mu_s || !R->part.mu_k ||
        (G->weight && !R->part.weight) || (G->aniso && !R->part.aniso) ||
        !R->potential)
      return mpi_fail(o, EXIT_RUNTIME, CMD ": out of memory (%s)", G->tname);
  }
  return 0;
}

static size_t fill_groups(const run *s, fricl_contact_group *groups) {
  size_t ng = 0;
  memset(groups, 0, sizeof(fricl_contact_group) * N_TYPES);
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *G = &s->in.g[t];
    const rank_group *R = &s->g[t];
    if (!G->present)
      continue;
    fricl_contact_group *C = &groups[ng++];
    *C = tangential_group_inputs(&R->part);
    C->potential = R->potential;
  }
  return ng;
}

/* "rank R: ... groups[G] (T) contact C: ..." names a contact of rank R's
 * part; add its index in the input. */
static void explain_contact(const run *s, mpi_outcome *o) {
  const char *at = strstr(o->msg, "rank ");
  const char *gr = strstr(o->msg, "groups[");
  int r = -1;
  size_t gi = 0, c = 0;
  char tname[8];
  if (!at || !gr || sscanf(at, "rank %d:", &r) != 1 ||
      sscanf(gr, "groups[%zu] (%7[a-z]) contact %zu", &gi, tname, &c) != 3)
    return;
  fricl_stencil type;
  if (fricl_stencil_from_name(tname, &type) != FRICL_STATUS_OK ||
      !s->in.g[type].present || r < 0 || r >= s->size)
    return;
  const tangential_group *G = &s->in.g[type];
  size_t seen = 0;
  for (size_t i = 0; i < G->m; ++i)
    if (owner_of(s->in.n, s->size, (size_t)G->ids[i * G->k]) == r &&
        seen++ == c) {
      const size_t len = strlen(o->msg);
      snprintf(o->msg + len, sizeof o->msg - len,
               " (%s contact %zu of rank %d is %s[%zu] in the input)", tname, c,
               r, tname, i);
      return;
    }
}

/* ----------------------------------------------------------------- output */

typedef struct results {
  double potential;
  double *gradient, *step;
  int64_t *rows, *cols;
  double *values;
  size_t nnz;
  double *contact_potential[N_TYPES];
} results;

/* What write_results writes. */
typedef struct outputs {
  const run *s;
  const results *r;
} outputs;

static npy_status write_results(npz_writer *w, const void *outs,
                                npy_error *err) {
  const run *s = ((const outputs *)outs)->s;
  const results *r = ((const outputs *)outs)->r;
  const size_t ndofs = s->in.n * (size_t)s->in.dim;
  const npz_coo h = {r->nnz, r->rows, r->cols, r->values};
  npy_status st = npz_add_potential(w, FRICL_F64, ndofs, &r->potential,
                                    r->gradient, &h, err);
  for (int t = 0; t < N_TYPES && st == NPY_OK; ++t) {
    const tangential_group *G = &s->in.g[t];
    if (G->present)
      st = npz_add_contacts(w, FRICL_F64, G->type, G->m, s->in.dim,
                            r->contact_potential[t], NULL, err);
  }
  if (st == NPY_OK && r->step)
    st = npz_writer_add(w, "newton_step", NPY_F8, 1, &ndofs, r->step, err);
  return st;
}

/* ----------------------------------------------------------- newton step */

/* (M + H) dx = -g with CG; M diagonal from the mass array. */
static int newton_step(const run *s, const fricl_petsc_plan *plan, Mat H, Vec g,
                       Vec *step, mpi_outcome *o) {
  Mat A = NULL;
  Vec mdiag = NULL, rhs = NULL;
  KSP ksp = NULL;
  const PetscInt d = s->in.dim;
  /* H's pattern plus every diagonal block, then H added into it. */
  MPI_TRY(o, fricl_petsc_plan_create_matrix(plan, MATBAIJ,
                                            FRICL_PETSC_MATRIX_DIAGONAL, &A));
  MPI_TRY(o, MatAXPY(A, 1.0, H, SUBSET_NONZERO_PATTERN));
  MPI_TRY(o, VecDuplicate(g, &mdiag));
  {
    PetscScalar *m;
    MPI_TRY(o, VecGetArray(mdiag, &m));
    for (PetscInt v = s->vstart; v < s->vend; ++v)
      for (PetscInt k = 0; k < d; ++k)
        m[(v - s->vstart) * d + k] = s->mass ? s->mass[v] : 1.0;
    MPI_TRY(o, VecRestoreArray(mdiag, &m));
  }
  MPI_TRY(o, MatDiagonalSet(A, mdiag, ADD_VALUES));
  MPI_TRY(o, VecDuplicate(g, &rhs));
  MPI_TRY(o, VecCopy(g, rhs));
  MPI_TRY(o, VecScale(rhs, -1.0));
  MPI_TRY(o, VecDuplicate(g, step));
  MPI_TRY(o, KSPCreate(s->comm, &ksp));
  MPI_TRY(o, KSPSetOperators(ksp, A, A));
  MPI_TRY(o, KSPSetType(ksp, KSPCG));
  {
    PC pc;
    MPI_TRY(o, KSPGetPC(ksp, &pc));
    MPI_TRY(o, PCSetType(pc, PCJACOBI));
  }
  MPI_TRY(o, KSPSetTolerances(ksp, 1e-13, 1e-300, PETSC_DEFAULT,
                              (PetscInt)(10 * s->in.n * (size_t)d + 100)));
  MPI_TRY(o, KSPSetFromOptions(ksp));
  MPI_TRY(o, KSPSolve(ksp, rhs, *step));
  {
    KSPConvergedReason reason;
    PetscInt its;
    MPI_TRY(o, KSPGetConvergedReason(ksp, &reason));
    MPI_TRY(o, KSPGetIterationNumber(ksp, &its));
    if (reason < 0)
      mpi_fail(o, EXIT_RUNTIME,
               CMD ": %s: the CG solve of (M + H) dx = -g did not converge "
                   "(%s after %" PetscInt_FMT
                   " iterations); M + H must be positive definite: use --psd "
                   "clamp or abs",
               s->a->in_path, KSPConvergedReasons[reason], its);
    else if (s->a->verbose && s->rank == 0)
      fprintf(stderr,
              CMD ": newton step: CG converged (%s) in %" PetscInt_FMT
                  " iterations\n",
              KSPConvergedReasons[reason], its);
  }
done:
  KSPDestroy(&ksp);
  VecDestroy(&rhs);
  VecDestroy(&mdiag);
  MatDestroy(&A);
  return o->rc;
}

/* ------------------------------------------------------------------ run */

static void report(const run *s, fricl_context *ctx,
                   const fricl_petsc_plan *plan, Mat H) {
  fricl_petsc_plan_info info;
  MatInfo mi;
  long long mine[4], all[4] = {0, 0, 0, 0};
  fricl_petsc_plan_get_info(plan, &info);
  mine[0] = (long long)info.n_contacts;
  mine[1] = info.n_ghost_vertices;
  mine[2] = info.n_ghost_blocks;
  mine[3] = info.n_owned_blocks;
  MPI_Reduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, 0, s->comm);
  MatGetInfo(H, MAT_GLOBAL_SUM, &mi);
  if (s->rank != 0)
    return;
  fprintf(stderr, CMD ": %d rank(s); rank 0 device: %s\n", s->size,
          fricl_context_device_name(ctx));
  fprintf(stderr,
          CMD ": dim %d, %zu vertices, %lld contacts; %lld ghost vertices, "
              "%lld blocks sent to other ranks, %lld blocks assembled\n",
          s->in.dim, s->in.n, all[0], all[1], all[2], all[3]);
  fprintf(stderr,
          CMD ": Hessian: %.0f entries allocated, %.0f used, %.0f mallocs "
              "during assembly\n",
          mi.nz_allocated, mi.nz_used, mi.mallocs);
}

static void free_run(run *s) {
  for (int t = 0; t < N_TYPES; ++t) {
    rank_group *R = &s->g[t];
    void *owned[] = {R->orig,        R->part.ids,  R->part.cp,   R->part.basis,
                     R->part.normal, R->part.mu_s, R->part.mu_k, R->part.weight,
                     R->part.aniso,  R->potential};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
      free(owned[i]);
  }
  free(s->mass);
  tangential_input_free(&s->in);
}

static int run_tangential(const mpi_args *a) {
  run s;
  results r;
  mpi_outcome o;
  atomic_file out;
  fricl_context *ctx = NULL;
  fricl_petsc_plan *plan = NULL;
  fricl_contact_group groups[N_TYPES];
  Vec v = NULL, g = NULL, step = NULL;
  Mat H = NULL;
  memset(&s, 0, sizeof s);
  memset(&r, 0, sizeof r);
  memset(&o, 0, sizeof o);
  memset(&out, 0, sizeof out);
  s.a = a;
  s.comm = PETSC_COMM_WORLD;
  MPI_Comm_rank(s.comm, &s.rank);
  MPI_Comm_size(s.comm, &s.size);

  /* 1. The input, on every rank, the same everywhere; then a check that
   * rank 0 can create the output file (before any device starts, as
   * `fricl tangential` does). The output must not replace the input (as
   * in `fricl tangential`); every rank checks, its file system may
   * differ. */
  if (cli_same_file(a->in_path, a->out_path))
    mpi_fail(&o, EXIT_USAGE,
             CMD ": the output %s is the input %s (the same file): the input "
                 "would be replaced; choose another output",
             a->out_path, a->in_path);
  if (mpi_agree(s.comm, &o))
    goto done;
  read_all(&s, &o);
  if (mpi_agree(s.comm, &o))
    goto done;
  check_same_input(&s, &o);
  if (mpi_agree(s.comm, &o))
    goto done;
  /* The temporary file is created again only to write the results: a rank
   * that dies while the ranks compute (killed, or MPI_Abort) would leave
   * it behind, since nothing on rank 0 runs after that. */
  if (s.rank == 0) {
    char msg[512];
    if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0)
      mpi_fail(&o, EXIT_RUNTIME, CMD ": %s: %s", a->out_path, msg);
    atomic_file_abort(&out);
    memset(&out, 0, sizeof out);
  }
  if (mpi_agree(s.comm, &o))
    goto done;

  /* 2. This rank's part. */
  const PetscInt dim = s.in.dim;
  s.vstart = (PetscInt)first_vertex(s.in.n, s.size, s.rank);
  s.vend = (PetscInt)first_vertex(s.in.n, s.size, s.rank + 1);
  take_contacts(&s, &o);
  if (mpi_agree(s.comm, &o))
    goto done;
  const size_t ng = fill_groups(&s, groups);
  MPI_TRY(&o, VecCreateMPI(s.comm, (s.vend - s.vstart) * dim,
                           (PetscInt)s.in.n * dim, &v));
  MPI_TRY(&o, VecSetBlockSize(v, dim));
  {
    PetscScalar *x;
    MPI_TRY(&o, VecGetArray(v, &x));
    const double *vel = s.in.velocities;
    for (PetscInt i = 0; i < (s.vend - s.vstart) * dim; ++i)
      x[i] = vel[s.vstart * dim + i];
    MPI_TRY(&o, VecRestoreArray(v, &x));
  }

  /* 3. Evaluate and assemble. */
  {
    fricl_context_params params;
    fricl_context_params_init(&params);
    params.device = a->device;
    MPI_TRY(&o, fricl_petsc_context_create(s.comm, &params, &ctx));
  }
  MPI_TRY(&o, fricl_petsc_plan_create(ctx, v, NULL, ng, groups, &plan));
  MPI_TRY(&o, fricl_petsc_plan_create_matrix(plan, MATBAIJ, 0, &H));
  MPI_TRY(&o, VecDuplicate(v, &g));
  MPI_TRY(&o, VecZeroEntries(g));
  {
    fricl_tangential_batch b;
    fricl_tangential_batch_init(&b);
    b.mu_profile = a->profile;
    b.psd = a->psd;
    b.flags = CLI_TANGENTIAL_FLAGS(a);
    b.eps_v = s.in.eps_v;
    b.n_groups = ng;
    b.groups = groups;
    PetscReal pot = 0;
    MPI_TRY(&o, fricl_petsc_tangential_eval(plan, &b, v, &pot, g, H, 0));
    r.potential = (double)pot;
  }
  if (a->verbose)
    report(&s, ctx, plan, H);
  if (a->newton && newton_step(&s, plan, H, g, &step, &o) != 0)
    goto done;

  /* 4. The results on rank 0. */
  MPI_TRY(&o, mpi_gather_vec(g, &r.gradient));
  MPI_TRY(&o, mpi_gather_coo(H, &r.rows, &r.cols, &r.values, &r.nnz));
  if (step)
    MPI_TRY(&o, mpi_gather_vec(step, &r.step));
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *G = &s.in.g[t];
    if (!G->present)
      continue;
    if (s.rank == 0 &&
        !(r.contact_potential[t] = cli_alloc_array(G->m ? G->m : 1, 8)))
      mpi_fail(&o, EXIT_RUNTIME, CMD ": out of memory (%s)", G->tname);
    if (mpi_agree(s.comm, &o))
      goto done;
    MPI_TRY(&o,
            mpi_gather_indexed(s.comm, s.g[t].part.m, s.g[t].orig,
                               s.g[t].potential, G->m, r.contact_potential[t]));
  }

  /* 5. Rank 0 writes and publishes. */
  if (s.rank == 0) {
    npy_error nerr;
    char msg[512];
    if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0)
      mpi_fail(&o, EXIT_RUNTIME, CMD ": %s: %s", a->out_path, msg);
    else if (npz_write_archive(out.fp, a->compress, write_results,
                               &(const outputs){&s, &r}, &nerr) != NPY_OK)
      mpi_fail(&o, EXIT_RUNTIME, CMD ": %s: %s", a->out_path, nerr.msg);
    else if (atomic_file_commit(&out, msg, sizeof msg) != 0)
      mpi_fail(&o, EXIT_RUNTIME, CMD ": %s: %s", a->out_path, msg);
  }
done:
  mpi_agree(s.comm, &o);
  if (o.rc && s.rank == 0) {
    explain_contact(&s, &o);
    if (strncmp(o.msg, CMD, strlen(CMD)) == 0)
      fprintf(stderr, "%s\n", o.msg);
    else
      fprintf(stderr, CMD ": %s: %s\n", a->in_path, o.msg);
  }
  atomic_file_abort(&out); /* removes the temporary file unless committed */
  fricl_petsc_plan_destroy(&plan);
  fricl_context_destroy(ctx);
  MatDestroy(&H);
  VecDestroy(&v);
  VecDestroy(&g);
  VecDestroy(&step);
  PetscFree(r.gradient);
  PetscFree(r.step);
  PetscFree(r.rows);
  PetscFree(r.cols);
  PetscFree(r.values);
  for (int t = 0; t < N_TYPES; ++t)
    free(r.contact_potential[t]);
  free_run(&s);
  return o.rc;
}

int mpi_tangential_main(int argc, char **argv) {
  mpi_args args;
  char err[512] = "";
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  if (cli_wants_help(argc, argv)) {
    if (rank == 0)
      mpi_print_help(stdout);
    return 0;
  }
  if (cli_parse_args(&mpi_grammar, argc, argv, &args, err, sizeof err) != 0) {
    if (rank == 0)
      fprintf(stderr, CMD ": %s\n", err);
    return EXIT_USAGE;
  }
  return run_tangential(&args);
}
