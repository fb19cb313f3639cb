/* cmd_build.c - `fricl build`: read lagged positions and active contacts
 * from an .npz archive, run the lagged friction build (fricl_build), write
 * the per-contact data (a `fricl tangential` contact input) and a status
 * per contact as an .npz atomically. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "build_args.h"
#include "build_input.h"
#include "cli_args.h"
#include "commands.h"
#include "fricl/fricl.h"
#include "npz.h"
#include "same_file.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

static npy_status write_outputs(FILE *f, const build_args *a,
                                const build_input *b, npy_error *err) {
  npz_writer *w = NULL;
  npy_status st =
      npz_writer_open(&w, f, a->compress ? NPZ_WRITE_DEFLATE : 0u, err);
  if (st != NPY_OK)
    return st;
  st = build_input_write(w, b, err);
  if (st == NPY_OK)
    st = npz_writer_finish(w, err);
  npz_writer_free(w);
  return st;
}

static int run_build(const build_args *a) {
  npz_archive in;
  build_input b;
  atomic_file out;
  fricl_context *ctx = NULL;
  char msg[512] = "";
  npy_error nerr;
  int rc;
  memset(&in, 0, sizeof in);
  memset(&b, 0, sizeof b);
  memset(&out, 0, sizeof out);
  b.cmd = "fricl build";
  b.path = a->in_path;
  b.precision = a->precision;

  /* 1. The input, checked completely before anything is created. */
  if (cli_refuse_same_file("fricl build", a->in_path, a->out_path)) {
    rc = EXIT_USAGE;
    goto done;
  }
  const npy_status nst = npz_read_file(a->in_path, &in, &nerr);
  if (nst != NPY_OK) {
    fprintf(stderr, "fricl build: %s: %s\n", a->in_path, nerr.msg);
    rc = nst == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    goto done;
  }
  if ((rc = build_input_read(&b, &in, NULL)) != 0)
    goto done;
  rc = EXIT_RUNTIME;

  /* 2. The output file, before OpenCL starts. */
  if (atomic_file_open(&out, a->out_path, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl build: %s: %s\n", a->out_path, msg);
    goto done;
  }

  /* 3. Build. */
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = a->device;
  params.error_buffer = msg;
  params.error_buffer_size = sizeof msg;
  fricl_status st = fricl_context_create(&ctx, &params);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl build: %s: %s\n", fricl_status_string(st), msg);
    rc = st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
    goto done;
  }
  st = build_input_run(ctx, &b, a->blend, a->physical_barrier);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl build: %s: %s: %s%s\n", a->in_path,
            fricl_status_string(st), fricl_context_last_error(ctx),
            st == FRICL_STATUS_NO_FP64 ? " (try --precision f32)" : "");
    rc = st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
    goto done;
  }
  if (a->verbose) {
    cli_report_backend("fricl build", ctx);
    build_input_report(&b, stderr);
  }

  /* 4. Write and publish. */
  if (write_outputs(out.fp, a, &b, &nerr) != NPY_OK) {
    fprintf(stderr, "fricl build: %s: %s\n", a->out_path, nerr.msg);
    goto done;
  }
  if (atomic_file_commit(&out, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl build: %s: %s\n", a->out_path, msg);
    goto done;
  }
  rc = 0;
done:
  atomic_file_abort(&out);
  fricl_context_destroy(ctx);
  build_input_free(&b);
  npz_archive_free(&in);
  return rc;
}

int cmd_build_main(int argc, char **argv) {
  build_args args;
  char err[512] = "";
  if (build_args_parse(argc, argv, &args, err, sizeof err) != 0) {
    fprintf(stderr, "fricl build: %s\n", err);
    return EXIT_USAGE;
  }
  if (args.help) {
    build_print_help(stdout);
    return 0;
  }
  return run_build(&args);
}
