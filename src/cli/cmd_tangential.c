/* cmd_tangential.c - `fricl tangential`: read a contact set from an .npz
 * archive, evaluate the tangential potential with fricl_tangential_eval,
 * write D, the gradient and the requested Hessian as an .npz atomically. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "build_input.h"
#include "cli_args.h"
#include "cli_run.h"
#include "commands.h"
#include "fricl/fricl.h"
#include "npz.h"
#include "npz_input.h"
#include "npz_output.h"
#include "same_file.h"
#include "tangential_args.h"
#include "tangential_device.h"
#include "tangential_input.h"

#define CMD "fricl tangential"

#define N_TYPES TANGENTIAL_N_TYPES

/* One stencil type's outputs, allocated here. */
typedef struct group_out {
  void *potential, *hessian, *gamma, *grad, *hfac;
} group_out;

typedef struct run_state {
  const tangential_args *args;
  tangential_input in; /* the arrays read (tangential_input.c) */
  group_out out[N_TYPES];
  size_t esz;
} run_state;

static int out_of_memory(const char *what) {
  fprintf(stderr, "fricl tangential: out of memory (%s)\n", what);
  return EXIT_RUNTIME;
}

/* ------------------------------------------------------------ output */

static int alloc_outputs(run_state *s) {
  const size_t dim = (size_t)s->in.dim, esz = s->esz;
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *g = &s->in.g[t];
    group_out *o = &s->out[t];
    if (!g->present)
      continue;
    const size_t ndof = g->k * dim;
    const size_t sizes[5] = {
        cli_mul3(g->m, 1, esz), cli_mul3(g->m, ndof * ndof, esz),
        cli_mul3(g->m, g->k, esz), cli_mul3(g->m, dim, esz),
        cli_mul3(g->m, dim * (dim + 1) / 2, esz)};
    void **slots[5] = {&o->potential, &o->hessian, &o->gamma, &o->grad,
                       &o->hfac};
    const int want[5] = {1, s->args->hessian == TANGENTIAL_HESSIAN_LOCAL,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED,
                         s->args->hessian == TANGENTIAL_HESSIAN_FACTORED};
    for (int i = 0; i < 5; ++i) {
      if (!want[i])
        continue;
      if (sizes[i] == SIZE_MAX || !(*slots[i] = cli_alloc_array(sizes[i], 1)))
        return out_of_memory(g->tname);
    }
  }
  return 0;
}

/* What write_outputs writes. */
typedef struct outputs {
  const run_state *s;
  const void *potential, *gradient;
  const npz_coo *hessian; /* --hessian global */
} outputs;

static npy_status write_outputs(npz_writer *w, const void *outs,
                                npy_error *err) {
  const outputs *o = outs;
  const run_state *s = o->s;
  const fricl_precision prec = s->args->precision;
  const size_t dim = (size_t)s->in.dim;
  npy_status st = npz_add_potential(w, prec, s->in.n * dim, o->potential,
                                    o->gradient, o->hessian, err);
  for (int t = 0; t < N_TYPES && st == NPY_OK; ++t) {
    const tangential_group *g = &s->in.g[t];
    const group_out *go = &s->out[t];
    if (!g->present)
      continue;
    st = npz_add_contacts(w, prec, g->type, g->m, s->in.dim, go->potential,
                          go->hessian, err);
    if (st == NPY_OK && go->gamma) {
      const size_t sg[2] = {g->m, g->k}, sq[2] = {g->m, dim},
                   ss[2] = {g->m, dim * (dim + 1) / 2};
      char name[64];
      snprintf(name, sizeof name, "%s_gamma", g->tname);
      st = npz_add_real(w, prec, name, 2, sg, go->gamma, err);
      snprintf(name, sizeof name, "%s_grad", g->tname);
      if (st == NPY_OK)
        st = npz_add_real(w, prec, name, 2, sq, go->grad, err);
      snprintf(name, sizeof name, "%s_hessian_factored", g->tname);
      if (st == NPY_OK)
        st = npz_add_real(w, prec, name, 2, ss, go->hfac, err);
    }
  }
  if (st == NPY_OK && s->args->build)
    st = build_input_write(w, &s->in.build, err);
  return st;
}

/* -------------------------------------------------------------- run */

static void report(const run_state *s) {
  fprintf(stderr, "fricl tangential: dim %d, %zu vertices, eps_v %g;",
          s->in.dim, s->in.n, s->in.eps_v);
  for (int t = 0; t < N_TYPES; ++t)
    if (s->in.g[t].present)
      fprintf(stderr, " %s %zu", s->in.g[t].tname, s->in.g[t].m);
  fputc('\n', stderr);
}

static void free_state(run_state *s) {
  for (int t = 0; t < N_TYPES; ++t) {
    group_out *o = &s->out[t];
    void *owned[] = {o->potential, o->hessian, o->gamma, o->grad, o->hfac};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
      free(owned[i]);
  }
  tangential_input_free(&s->in);
}

static int run_tangential(const void *args) {
  const tangential_args *a = args;
  run_state s = {.args = a,
                 .in = {.cmd = CMD,
                        .path = a->in_path,
                        .precision = a->precision,
                        .with_build = a->build},
                 .esz = a->precision == FRICL_F32 ? sizeof(float)
                                                  : sizeof(double)};
  atomic_file out = {0};
  fricl_context *ctx = NULL;
  fricl_tangential_plan *plan = NULL;
  fricl_contact_group groups[N_TYPES];
  fricl_tangential_batch batch;
  npz_coo h = {0};
  void *gradient = NULL, *bsr = NULL;
  double potential64 = 0;
  float potential32 = 0;
  npy_error nerr;
  size_t ng = 0;
  int rc;

  /* 1. The input, checked completely before anything is created. */
  if (cli_refuse_same_file(CMD, a->in_path, a->out_path)) {
    rc = EXIT_USAGE;
    goto done;
  }
  if ((rc = tangential_input_read(&s.in, NULL)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  const size_t ndofs = s.in.n * (size_t)s.in.dim;
  if (!(gradient = cli_alloc_array(ndofs, s.esz)) || alloc_outputs(&s) != 0) {
    out_of_memory("outputs");
    goto done;
  }

  /* 2. The output file, before OpenCL starts (as `fricl eval`). */
  if ((rc = cli_output_open(CMD, &out, a->out_path)) != 0)
    goto done;

  /* 3. Evaluate. */
  if ((rc = cli_context_open(CMD, a->device, &ctx)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  fricl_status st = FRICL_STATUS_OK;
  if (a->verbose)
    report(&s);
  /* On an OpenCL device --build runs device-resident: fricl_build_cl,
   * then the evaluation on the build's device buffers. */
  const int on_device = a->build && tangential_device_wanted(ctx, a->device);
  if (a->build && !on_device) {
    st = build_input_run(ctx, &s.in.build, a->blend, a->physical_barrier);
    if (st != FRICL_STATUS_OK) {
      rc = cli_library_error(CMD, ctx, st, a->in_path);
      goto done;
    }
    if (a->verbose)
      build_input_report(&s.in.build, stderr);
  }
  memset(groups, 0, sizeof groups);
  for (int t = 0; t < N_TYPES; ++t) {
    const tangential_group *g = &s.in.g[t];
    const group_out *o = &s.out[t];
    if (!g->present)
      continue;
    fricl_contact_group *G = &groups[ng++];
    *G = tangential_group_inputs(g);
    G->potential = o->potential;
    G->local_hessian = o->hessian;
    G->factored_gamma = o->gamma;
    G->factored_grad = o->grad;
    G->factored_hessian = o->hfac;
  }
  fricl_tangential_batch_init(&batch);
  batch.precision = a->precision;
  batch.mu_profile = a->profile;
  batch.mollifier = (fricl_mollifier)a->mollifier;
  batch.psd = a->psd;
  batch.flags = CLI_TANGENTIAL_FLAGS(a);
  batch.dim = s.in.dim;
  batch.n_vertices = s.in.n;
  batch.velocities = s.in.velocities;
  batch.eps_v = s.in.eps_v;
  batch.n_groups = ng;
  batch.groups = groups;
  batch.potential =
      a->precision == FRICL_F32 ? (void *)&potential32 : (void *)&potential64;
  batch.gradient = gradient;
  if (a->hessian == TANGENTIAL_HESSIAN_GLOBAL) {
    st = fricl_tangential_plan_create(ctx, s.in.dim, s.in.n, ng, groups, &plan);
    if (st != FRICL_STATUS_OK) {
      rc = cli_library_error(CMD, ctx, st, "plan");
      goto done;
    }
    if (!(bsr = npz_bsr_alloc(plan, s.in.dim, s.esz))) {
      out_of_memory("global Hessian");
      goto done;
    }
    batch.plan = plan;
    batch.hessian_values = bsr;
  }
  st = on_device ? tangential_device_run(ctx, &s.in.build, a->blend,
                                         a->physical_barrier, &batch)
                 : fricl_tangential_eval(ctx, &batch);
  if (st != FRICL_STATUS_OK) {
    rc = cli_library_error(CMD, ctx, st, a->in_path);
    goto done;
  }
  if (a->verbose && on_device) {
    build_input_report(&s.in.build, stderr);
    fprintf(stderr, "fricl tangential: --build device-resident: the build's "
                    "outputs stayed on the device for the evaluation\n");
  }
  if (a->verbose)
    cli_report_backend("fricl tangential", ctx);
  if (plan &&
      (rc = npz_coo_from_bsr(CMD, plan, a->precision, s.in.dim, bsr, &h)) != 0)
    goto done;

  /* 4. Write and publish. */
  const outputs o = {&s, batch.potential, gradient, plan ? &h : NULL};
  rc = cli_publish(
      CMD, &out, a->out_path,
      npz_write_archive(out.fp, a->compress, write_outputs, &o, &nerr), &nerr);
done:
  atomic_file_abort(&out); /* removes the temporary file unless committed */
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(ctx);
  npz_coo_free(&h);
  free(bsr);
  free(gradient);
  free_state(&s);
  return rc;
}

const cli_command cmd_tangential = {"tangential", NULL, &tangential_grammar,
                                    tangential_print_help, run_tangential};
