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
#include "cli_run.h"
#include "commands.h"
#include "fricl/fricl_barrier.h"
#include "npz.h"
#include "npz_input.h"
#include "npz_output.h"
#include "npz_schema.h"

#define CMD "fricl barrier"

typedef struct barrier_run {
  const barrier_args *a;
  barrier_input in;
  size_t esz;
  fricl_barrier_group groups[BARRIER_N_TYPES];
  size_t ng;
  void *gradient, *bsr;
  double pot64;
  float pot32;
  npz_coo hessian; /* --hessian global */
} barrier_run;

static npy_status write_outputs(npz_writer *w, const void *run,
                                npy_error *err) {
  const barrier_run *r = run;
  const fricl_precision prec = r->a->precision;
  npy_status st = npz_add_potential(
      w, prec, r->in.n * (size_t)r->in.dim,
      prec == FRICL_F32 ? (const void *)&r->pot32 : (const void *)&r->pot64,
      r->gradient, r->hessian.rows ? &r->hessian : NULL, err);
  for (size_t i = 0; i < r->ng && st == NPY_OK; ++i) {
    const fricl_barrier_group *G = &r->groups[i];
    st = npz_add_contacts(w, prec, G->type, G->count, r->in.dim, G->potential,
                          G->local_hessian, err);
  }
  return st;
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

static int run_barrier(const void *args) {
  const barrier_args *a = args;
  npz_archive in = {0};
  barrier_run r = {.a = a,
                   .in = {.path = a->in_path, .precision = a->precision},
                   .esz = a->precision == FRICL_F32 ? sizeof(float)
                                                    : sizeof(double)};
  atomic_file out = {0};
  fricl_context *ctx = NULL;
  fricl_tangential_plan *plan = NULL;
  npy_error nerr;
  int rc;

  if ((rc = npz_load_input(CMD, a->in_path, a->out_path, &in)) != 0 ||
      (rc = barrier_input_read(&r.in, &in)) != 0)
    goto done;
  if (a->function == FRICL_NORMAL_ADHESION &&
      !(r.in.dhat_p > 0 && r.in.Y > 0 && r.in.eps_c > 0)) {
    fprintf(stderr,
            "fricl barrier: %s: --function adhesion needs the "
            "scalars dhat_p, Y and eps_c (> 0)\n",
            a->in_path);
    rc = EXIT_USAGE;
    goto done;
  }
  rc = EXIT_RUNTIME;
  if (make_groups(&r) != 0 ||
      !(r.gradient = cli_alloc_array(r.in.n * (size_t)r.in.dim, r.esz))) {
    fprintf(stderr, "fricl barrier: out of memory (outputs)\n");
    goto done;
  }

  if ((rc = cli_context_open(CMD, a->device, &ctx)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  fricl_status st;
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
  b.function = (fricl_normal_function)a->function;
  b.adhesion_dhat_p = r.in.dhat_p;
  b.adhesion_dhat_a = r.in.dhat;
  b.adhesion_Y = r.in.Y;
  b.adhesion_eps_c = r.in.eps_c;
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
      rc = cli_library_error(CMD, ctx, st, NULL);
      goto done;
    }
    if (!(r.bsr = npz_bsr_alloc(plan, r.in.dim, r.esz))) {
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
      rc = cli_library_error(CMD, ctx, st, NULL);
      goto done;
    }
  }
  qsort(times, (size_t)nt, sizeof times[0], cmp_double);
  if (plan && (rc = npz_coo_from_bsr(CMD, plan, a->precision, r.in.dim, r.bsr,
                                     &r.hessian)) != 0)
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
  if ((rc = cli_output_open(CMD, &out, a->out_path)) != 0)
    goto done;
  rc = cli_publish(
      CMD, &out, a->out_path,
      npz_write_archive(out.fp, a->compress, write_outputs, &r, &nerr), &nerr);
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
  npz_coo_free(&r.hessian);
  barrier_input_free(&r.in);
  npz_archive_free(&in);
  return rc;
}

const cli_command cmd_barrier = {"barrier", NULL, &barrier_grammar,
                                 barrier_print_help, run_barrier};
