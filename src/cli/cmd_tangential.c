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
#include "commands.h"
#include "fricl/fricl.h"
#include "npz.h"
#include "npz_input.h"
#include "same_file.h"
#include "tangential_args.h"
#include "tangential_device.h"
#include "tangential_input.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

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

static npy_status add_real(npz_writer *w, const run_state *s, const char *name,
                           int ndim, const size_t *shape, const void *data,
                           npy_error *err) {
  return npz_writer_add(w, name,
                        s->args->precision == FRICL_F32 ? NPY_F4 : NPY_F8, ndim,
                        shape, data, err);
}

typedef struct global_hessian {
  size_t nnz; /* scalar entries */
  int64_t *rows, *cols;
  void *values;
} global_hessian;

static npy_status write_outputs(FILE *f, const run_state *s,
                                const void *potential, const void *gradient,
                                const global_hessian *h, npy_error *err) {
  npz_writer *w = NULL;
  npy_status st =
      npz_writer_open(&w, f, s->args->compress ? NPZ_WRITE_DEFLATE : 0u, err);
  if (st != NPY_OK)
    return st;
  const size_t dim = (size_t)s->in.dim, ndofs = s->in.n * dim;
  st = add_real(w, s, "potential", 0, NULL, potential, err);
  if (st == NPY_OK)
    st = add_real(w, s, "gradient", 1, &ndofs, gradient, err);
  if (st == NPY_OK && h) {
    const size_t shape[1] = {h->nnz};
    const int64_t hs[2] = {(int64_t)ndofs, (int64_t)ndofs};
    const size_t two = 2;
    st = npz_writer_add(w, "hessian_rows", NPY_I8, 1, shape, h->rows, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_cols", NPY_I8, 1, shape, h->cols, err);
    if (st == NPY_OK)
      st = add_real(w, s, "hessian_values", 1, shape, h->values, err);
    if (st == NPY_OK)
      st = npz_writer_add(w, "hessian_shape", NPY_I8, 1, &two, hs, err);
  }
  for (int t = 0; t < N_TYPES && st == NPY_OK; ++t) {
    const tangential_group *g = &s->in.g[t];
    const group_out *o = &s->out[t];
    if (!g->present)
      continue;
    char name[64];
    const size_t ndof = g->k * dim;
    snprintf(name, sizeof name, "%s_potential", g->tname);
    st = add_real(w, s, name, 1, &g->m, o->potential, err);
    if (st == NPY_OK && o->hessian) {
      const size_t shape[3] = {g->m, ndof, ndof};
      snprintf(name, sizeof name, "%s_hessian", g->tname);
      st = add_real(w, s, name, 3, shape, o->hessian, err);
    }
    if (st == NPY_OK && o->gamma) {
      const size_t sg[2] = {g->m, g->k}, sq[2] = {g->m, dim},
                   ss[2] = {g->m, dim * (dim + 1) / 2};
      snprintf(name, sizeof name, "%s_gamma", g->tname);
      st = add_real(w, s, name, 2, sg, o->gamma, err);
      snprintf(name, sizeof name, "%s_grad", g->tname);
      if (st == NPY_OK)
        st = add_real(w, s, name, 2, sq, o->grad, err);
      snprintf(name, sizeof name, "%s_hessian_factored", g->tname);
      if (st == NPY_OK)
        st = add_real(w, s, name, 2, ss, o->hfac, err);
    }
  }
  if (st == NPY_OK && s->args->build)
    st = build_input_write(w, &s->in.build, err);
  if (st == NPY_OK)
    st = npz_writer_finish(w, err);
  npz_writer_free(w);
  return st;
}

/* -------------------------------------------------------------- run */

static fricl_status create_context(const tangential_args *a,
                                   fricl_context **ctx, char *msg,
                                   size_t msg_size) {
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = a->device;
  params.error_buffer = msg;
  params.error_buffer_size = msg_size;
  return fricl_context_create(ctx, &params);
}

static int library_error(fricl_context *ctx, fricl_status st,
                         const char *what) {
  fprintf(stderr, "fricl tangential: %s: %s: %s%s\n", what,
          fricl_status_string(st), fricl_context_last_error(ctx),
          st == FRICL_STATUS_NO_FP64 ? " (try --precision f32)" : "");
  return st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
}

/* BSR values -> scalar COO through the plan's CSR. */
static int expand_global(const run_state *s, const fricl_tangential_plan *plan,
                         const void *bsr, global_hessian *h) {
  const size_t dim = (size_t)s->in.dim, nrows = s->in.n * dim;
  size_t nnz_blocks = 0;
  if (fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL) !=
      FRICL_STATUS_OK)
    return out_of_memory("plan");
  h->nnz = cli_mul3(nnz_blocks, dim, dim);
  int64_t *row_ptr = cli_alloc_array(nrows + 1, sizeof *row_ptr);
  int32_t *cols32 = cli_alloc_array(h->nnz, sizeof *cols32);
  h->rows = cli_alloc_array(h->nnz, sizeof *h->rows);
  h->cols = cli_alloc_array(h->nnz, sizeof *h->cols);
  h->values = cli_alloc_array(h->nnz, s->esz);
  int rc = 0;
  if (h->nnz == SIZE_MAX || !row_ptr || !cols32 || !h->rows || !h->cols ||
      !h->values)
    rc = out_of_memory("global Hessian");
  else if (fricl_tangential_plan_csr(plan, s->args->precision, bsr, row_ptr,
                                     cols32, h->values) != FRICL_STATUS_OK)
    rc = out_of_memory("CSR conversion");
  for (size_t r = 0; rc == 0 && r < nrows; ++r)
    for (int64_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      h->rows[i] = (int64_t)r;
      h->cols[i] = cols32[i];
    }
  free(row_ptr);
  free(cols32);
  return rc;
}

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

static int run_tangential(const tangential_args *a) {
  run_state s;
  atomic_file out;
  fricl_context *ctx = NULL;
  fricl_tangential_plan *plan = NULL;
  fricl_contact_group groups[N_TYPES];
  fricl_tangential_batch batch;
  global_hessian h;
  void *gradient = NULL, *bsr = NULL;
  double potential64 = 0;
  float potential32 = 0;
  char msg[512] = "";
  npy_error nerr;
  size_t ng = 0;
  int rc;
  memset(&s, 0, sizeof s);
  memset(&out, 0, sizeof out);
  memset(&h, 0, sizeof h);
  s.args = a;
  s.esz = a->precision == FRICL_F32 ? sizeof(float) : sizeof(double);

  /* 1. The input, checked completely before anything is created. */
  if (cli_refuse_same_file("fricl tangential", a->in_path, a->out_path)) {
    rc = EXIT_USAGE;
    goto done;
  }
  s.in.cmd = "fricl tangential";
  s.in.path = a->in_path;
  s.in.precision = a->precision;
  s.in.with_build = a->build;
  if ((rc = tangential_input_read(&s.in, NULL)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  const size_t ndofs = s.in.n * (size_t)s.in.dim;
  if (!(gradient = cli_alloc_array(ndofs, s.esz)) || alloc_outputs(&s) != 0) {
    out_of_memory("outputs");
    goto done;
  }

  /* 2. The output file, before OpenCL starts (as `fricl eval`). */
  if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, msg);
    goto done;
  }

  /* 3. Evaluate. */
  fricl_status st = create_context(a, &ctx, msg, sizeof msg);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl tangential: %s: %s\n", fricl_status_string(st), msg);
    rc = st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
    goto done;
  }
  if (a->verbose)
    report(&s);
  /* On an OpenCL device --build runs device-resident: fricl_build_cl,
   * then the evaluation on the build's device buffers. */
  const int on_device = a->build && tangential_device_wanted(ctx, a->device);
  if (a->build && !on_device) {
    st = build_input_run(ctx, &s.in.build, a->blend, a->physical_barrier);
    if (st != FRICL_STATUS_OK) {
      rc = library_error(ctx, st, a->in_path);
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
    G->type = g->type;
    G->count = g->m;
    G->vertices = g->ids;
    G->closest_point = g->cp;
    G->tangent_basis = g->basis;
    G->normal_force = g->normal;
    G->weight = g->weight;
    G->mu_s = g->mu_s;
    G->mu_k = g->mu_k;
    G->mu_aniso = g->aniso;
    G->potential = o->potential;
    G->local_hessian = o->hessian;
    G->factored_gamma = o->gamma;
    G->factored_grad = o->grad;
    G->factored_hessian = o->hfac;
  }
  fricl_tangential_batch_init(&batch);
  batch.precision = a->precision;
  batch.mu_profile = a->profile;
  batch.psd = a->psd;
  batch.flags = (a->ipctk_abs ? FRICL_TANGENTIAL_FLAG_IPCTK_ABS : 0u) |
                (a->check_basis ? FRICL_TANGENTIAL_FLAG_CHECK_BASIS : 0u);
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
      rc = library_error(ctx, st, "plan");
      goto done;
    }
    size_t nnz_blocks = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL);
    const size_t bytes =
        cli_mul3(nnz_blocks, (size_t)(s.in.dim * s.in.dim), s.esz);
    if (bytes == SIZE_MAX || !(bsr = cli_alloc_array(bytes, 1))) {
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
    rc = library_error(ctx, st, a->in_path);
    goto done;
  }
  if (a->verbose && on_device) {
    build_input_report(&s.in.build, stderr);
    fprintf(stderr, "fricl tangential: --build device-resident: the build's "
                    "outputs stayed on the device for the evaluation\n");
  }
  if (a->verbose)
    cli_report_backend("fricl tangential", ctx);
  if (plan && (rc = expand_global(&s, plan, bsr, &h)) != 0)
    goto done;
  rc = EXIT_RUNTIME;

  /* 4. Write and publish. */
  if (write_outputs(out.fp, &s, batch.potential, gradient, plan ? &h : NULL,
                    &nerr) != NPY_OK) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, nerr.msg);
    goto done;
  }
  if (atomic_file_commit(&out, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl tangential: %s: %s\n", a->out_path, msg);
    goto done;
  }
  rc = 0;
done:
  atomic_file_abort(&out); /* removes the temporary file unless committed */
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(ctx);
  free(h.rows);
  free(h.cols);
  free(h.values);
  free(bsr);
  free(gradient);
  free_state(&s);
  return rc;
}

int cmd_tangential_main(int argc, char **argv) {
  tangential_args args;
  char err[512] = "";
  if (tangential_args_parse(argc, argv, &args, err, sizeof err) != 0) {
    fprintf(stderr, "fricl tangential: %s\n", err);
    return EXIT_USAGE;
  }
  if (args.help) {
    tangential_print_help(stdout);
    return 0;
  }
  return run_tangential(&args);
}
