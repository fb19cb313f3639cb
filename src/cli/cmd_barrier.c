/* cmd_barrier.c - `fricl barrier`: read positions and contacts from an
 * .npz archive, evaluate the normal-contact barrier (fricl_barrier_eval),
 * write B, the gradient and the requested Hessian as an .npz atomically. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "barrier_args.h"
#include "barrier_input.h"
#include "cli_args.h"
#include "commands.h"
#include "fricl/fricl_barrier.h"
#include "npz.h"
#include "npz_input.h"
#include "same_file.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

typedef struct barrier_run {
  const barrier_args *a;
  barrier_input in;
  size_t esz;
  fricl_barrier_group groups[BARRIER_N_TYPES];
  size_t ng;
  void *gradient, *bsr;
  double pot64;
  float pot32;
  size_t nnz; /* scalar COO entries */
  int64_t *rows, *cols;
  void *values;
} barrier_run;

static npy_status add_real(npz_writer *w, const barrier_run *r,
                           const char *name, int ndim, const size_t *shape,
                           const void *data, npy_error *err) {
  return npz_writer_add(w, name, r->a->precision == FRICL_F32 ? NPY_F4 : NPY_F8,
                        ndim, shape, data, err);
}

static npy_status write_outputs(FILE *f, const barrier_run *r, npy_error *err) {
  npz_writer *w = NULL;
  npy_status st =
      npz_writer_open(&w, f, r->a->compress ? NPZ_WRITE_DEFLATE : 0u, err);
  if (st != NPY_OK)
    return st;
  const size_t dim = (size_t)r->in.dim, ndofs = r->in.n * dim;
  st = add_real(w, r, "potential", 0, NULL,
                r->a->precision == FRICL_F32 ? (const void *)&r->pot32
                                             : (const void *)&r->pot64,
                err);
  if (st == NPY_OK)
    st = add_real(w, r, "gradient", 1, &ndofs, r->gradient, err);
  if (st == NPY_OK && r->rows) {
    const size_t shape[1] = {r->nnz}, two = 2;
    const int64_t hs[2] = {(int64_t)ndofs, (int64_t)ndofs};
    st = npz_writer_add(w, "hessian_rows", NPY_I8, 1, shape, r->rows, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_cols", NPY_I8, 1, shape, r->cols, err);
    if (st == NPY_OK)
      st = add_real(w, r, "hessian_values", 1, shape, r->values, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_shape", NPY_I8, 1, &two, hs, err);
  }
  for (size_t i = 0; i < r->ng && st == NPY_OK; ++i) {
    const fricl_barrier_group *G = &r->groups[i];
    const char *tn = fricl_stencil_name(G->type);
    const size_t ndof = (size_t)fricl_stencil_vertex_count(G->type) * dim;
    char name[64];
    snprintf(name, sizeof name, "%s_potential", tn);
    st = add_real(w, r, name, 1, &G->count, G->potential, err);
    if (st == NPY_OK && G->local_hessian) {
      const size_t shape[3] = {G->count, ndof, ndof};
      snprintf(name, sizeof name, "%s_hessian", tn);
      st = add_real(w, r, name, 3, shape, G->local_hessian, err);
    }
  }
  if (st == NPY_OK)
    st = npz_writer_finish(w, err);
  npz_writer_free(w);
  return st;
}

/* BSR values -> scalar COO through the plan's CSR. */
static int expand_global(barrier_run *r, const fricl_tangential_plan *plan) {
  const size_t dim = (size_t)r->in.dim, nrows = r->in.n * dim;
  size_t nnz_blocks = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL);
  r->nnz = cli_mul3(nnz_blocks, dim, dim);
  int64_t *row_ptr = cli_alloc_array(nrows + 1, sizeof *row_ptr);
  int32_t *cols32 = cli_alloc_array(r->nnz, sizeof *cols32);
  r->rows = cli_alloc_array(r->nnz, sizeof *r->rows);
  r->cols = cli_alloc_array(r->nnz, sizeof *r->cols);
  r->values = cli_alloc_array(r->nnz, r->esz);
  int rc = 0;
  if (r->nnz == SIZE_MAX || !row_ptr || !cols32 || !r->rows || !r->cols ||
      !r->values ||
      fricl_tangential_plan_csr(plan, r->a->precision, r->bsr, row_ptr, cols32,
                                r->values) != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl barrier: out of memory (global Hessian)\n");
    rc = EXIT_RUNTIME;
  }
  for (size_t row = 0; rc == 0 && row < nrows; ++row)
    for (int64_t i = row_ptr[row]; i < row_ptr[row + 1]; ++i) {
      r->rows[i] = (int64_t)row;
      r->cols[i] = cols32[i];
    }
  free(row_ptr);
  free(cols32);
  return rc;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int library_error(fricl_context *ctx, fricl_status st) {
  fprintf(stderr, "fricl barrier: %s: %s%s\n", fricl_status_string(st),
          fricl_context_last_error(ctx),
          st == FRICL_STATUS_NO_FP64 ? " (try --precision f32)" : "");
  return st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
}

/* Per-group outputs and the groups of the present types. */
static int make_groups(barrier_run *r) {
  const size_t dim = (size_t)r->in.dim;
  for (int t = 0; t < BARRIER_N_TYPES; ++t) {
    const barrier_type *g = &r->in.g[t];
    if (!g->present)
      continue;
    fricl_barrier_group *G = &r->groups[r->ng++];
    memset(G, 0, sizeof *G);
    G->type = g->type;
    G->count = g->m;
    G->vertices = g->ids;
    G->weight = g->weight;
    G->dmin = g->dmin;
    G->plane_normal = g->plane_normal;
    G->plane_offset = g->plane_offset;
    G->distance_type = g->dtype;
    const size_t ndof = g->k * dim;
    if (!(G->potential = cli_alloc_array(g->m, r->esz)))
      return EXIT_RUNTIME;
    if (r->a->hessian == BARRIER_HESSIAN_LOCAL &&
        !(G->local_hessian =
              cli_alloc_array(cli_mul3(g->m, ndof, ndof), r->esz)))
      return EXIT_RUNTIME;
  }
  return 0;
}

static int run_barrier(const barrier_args *a) {
  npz_archive in;
  barrier_run r;
  atomic_file out;
  fricl_context *ctx = NULL;
  fricl_tangential_plan *plan = NULL;
  char msg[512] = "";
  npy_error nerr;
  int rc;
  memset(&in, 0, sizeof in);
  memset(&r, 0, sizeof r);
  memset(&out, 0, sizeof out);
  r.a = a;
  r.in.path = a->in_path;
  r.in.precision = a->precision;
  r.esz = a->precision == FRICL_F32 ? sizeof(float) : sizeof(double);

  if (cli_refuse_same_file("fricl barrier", a->in_path, a->out_path)) {
    rc = EXIT_USAGE;
    goto done;
  }
  const npy_status nst = npz_read_file(a->in_path, &in, &nerr);
  if (nst != NPY_OK) {
    fprintf(stderr, "fricl barrier: %s: %s\n", a->in_path, nerr.msg);
    rc = nst == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    goto done;
  }
  if ((rc = barrier_input_read(&r.in, &in)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  if (make_groups(&r) != 0 ||
      !(r.gradient = cli_alloc_array(r.in.n * (size_t)r.in.dim, r.esz))) {
    fprintf(stderr, "fricl barrier: out of memory (outputs)\n");
    goto done;
  }

  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = a->device;
  params.error_buffer = msg;
  params.error_buffer_size = sizeof msg;
  fricl_status st = fricl_context_create(&ctx, &params);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl barrier: %s: %s\n", fricl_status_string(st), msg);
    rc = st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
    goto done;
  }
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.precision = a->precision;
  b.psd = a->psd;
  b.flags = (a->physical_barrier ? FRICL_BARRIER_FLAG_PHYSICAL : 0u) |
            (a->distances ? FRICL_BARRIER_FLAG_AS_CLASSIFIED : 0u);
  b.dim = r.in.dim;
  b.n_vertices = r.in.n;
  b.positions = r.in.positions;
  b.rest_positions = r.in.rest;
  b.dhat = r.in.dhat;
  b.kappa = r.in.kappa;
  b.dmin = r.in.dmin;
  b.n_groups = r.ng;
  b.groups = r.groups;
  b.potential = a->precision == FRICL_F32 ? (void *)&r.pot32 : (void *)&r.pot64;
  b.gradient = r.gradient;
  double plan_ms = 0;
  if (a->hessian == BARRIER_HESSIAN_GLOBAL) {
    plan_ms = now_ms();
    st =
        fricl_barrier_plan_create(ctx, r.in.dim, r.in.n, r.ng, r.groups, &plan);
    if (st != FRICL_STATUS_OK) {
      rc = library_error(ctx, st);
      goto done;
    }
    size_t nnz_blocks = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL);
    if (!(r.bsr = cli_alloc_array(
              cli_mul3(nnz_blocks, (size_t)r.in.dim, (size_t)r.in.dim),
              r.esz))) {
      fprintf(stderr, "fricl barrier: out of memory (Hessian)\n");
      goto done;
    }
    plan_ms = now_ms() - plan_ms;
    b.plan = plan;
    b.hessian_values = r.bsr;
  }
  double times[64];
  const int nt = a->repeat < 64 ? a->repeat : 64;
  for (int i = 0; i < a->repeat; ++i) {
    const double t0 = now_ms();
    st = fricl_barrier_eval(ctx, &b);
    times[i % 64] = now_ms() - t0;
    if (st != FRICL_STATUS_OK) {
      rc = library_error(ctx, st);
      goto done;
    }
  }
  qsort(times, (size_t)nt, sizeof times[0], cmp_double);
  if (plan && (rc = expand_global(&r, plan)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  if (a->verbose) {
    fprintf(stderr, "fricl barrier: dim %d, %zu vertices;", r.in.dim, r.in.n);
    for (size_t i = 0; i < r.ng; ++i)
      fprintf(stderr, " %s %zu", fricl_stencil_name(r.groups[i].type),
              r.groups[i].count);
    fprintf(stderr, "; plan %.3f ms, eval min %.3f ms, median %.3f ms (%d)\n",
            plan_ms, times[0], times[nt / 2], a->repeat);
  }
  if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl barrier: %s: %s\n", a->out_path, msg);
    goto done;
  }
  if (write_outputs(out.fp, &r, &nerr) != NPY_OK) {
    fprintf(stderr, "fricl barrier: %s: %s\n", a->out_path, nerr.msg);
    goto done;
  }
  if (atomic_file_commit(&out, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl barrier: %s: %s\n", a->out_path, msg);
    goto done;
  }
  rc = 0;
done:
  atomic_file_abort(&out);
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(ctx);
  for (size_t i = 0; i < r.ng; ++i) {
    free(r.groups[i].potential);
    free(r.groups[i].local_hessian);
  }
  free(r.gradient);
  free(r.bsr);
  free(r.rows);
  free(r.cols);
  free(r.values);
  barrier_input_free(&r.in);
  npz_archive_free(&in);
  return rc;
}

int cmd_barrier_main(int argc, char **argv) {
  barrier_args args;
  char err[512] = "";
  if (barrier_args_parse(argc, argv, &args, err, sizeof err) != 0) {
    fprintf(stderr, "fricl barrier: %s\n", err);
    return EXIT_USAGE;
  }
  if (args.help) {
    barrier_print_help(stdout);
    return 0;
  }
  return run_barrier(&args);
}
