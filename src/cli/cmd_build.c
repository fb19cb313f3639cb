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
#include "cli_run.h"
#include "commands.h"
#include "fricl/fricl.h"
#include "npz.h"
#include "npz_schema.h"

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

static int run_build(const void *args) {
  const build_args *a = args;
  npz_archive in = {0};
  build_input b = {
      .cmd = "fricl build", .path = a->in_path, .precision = a->precision};
  atomic_file out = {0};
  fricl_context *ctx = NULL;
  npy_error nerr;
  int rc;

  /* 1. The input, checked completely before anything is created. */
  if ((rc = npz_load_input("fricl build", a->in_path, a->out_path, &in)) != 0 ||
      (rc = build_input_read(&b, &in, NULL)) != 0)
    goto done;

  /* 2. The output file, before OpenCL starts. */
  if ((rc = cli_output_open("fricl build", &out, a->out_path)) != 0)
    goto done;

  /* 3. Build. */
  if ((rc = cli_context_open("fricl build", a->device, &ctx)) != 0)
    goto done;
  const fricl_status st =
      build_input_run(ctx, &b, a->blend, a->physical_barrier);
  if (st != FRICL_STATUS_OK) {
    rc = cli_library_error("fricl build", ctx, st, a->in_path);
    goto done;
  }
  if (a->verbose) {
    cli_report_backend("fricl build", ctx);
    build_input_report(&b, stderr);
  }

  /* 4. Write and publish. */
  rc = cli_publish("fricl build", &out, a->out_path,
                   write_outputs(out.fp, a, &b, &nerr), &nerr);
done:
  atomic_file_abort(&out);
  fricl_context_destroy(ctx);
  build_input_free(&b);
  npz_archive_free(&in);
  return rc;
}

const cli_command cmd_build = {"build", NULL, &build_grammar, build_print_help,
                               run_build};
