/* cli_run.c - see cli_run.h. */
#include "cli_run.h"

#include <stdio.h>

static int exit_status(fricl_status st) {
  return st == FRICL_STATUS_INVALID_ARGUMENT ? EXIT_USAGE : EXIT_RUNTIME;
}

int cli_context_open(const char *cmd, const char *device, fricl_context **ctx) {
  char msg[512] = "";
  fricl_context_params params;
  fricl_context_params_init(&params);
  params.device = device;
  params.error_buffer = msg;
  params.error_buffer_size = sizeof msg;
  const fricl_status st = fricl_context_create(ctx, &params);
  if (st == FRICL_STATUS_OK)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", cmd, fricl_status_string(st), msg);
  return exit_status(st);
}

int cli_library_error(const char *cmd, const fricl_context *ctx,
                      fricl_status st, const char *what) {
  fprintf(stderr, "%s: %s%s%s: %s%s\n", cmd, what ? what : "", what ? ": " : "",
          fricl_status_string(st), fricl_context_last_error(ctx),
          st == FRICL_STATUS_NO_FP64 ? " (try --precision f32)" : "");
  return exit_status(st);
}

int cli_output_open(const char *cmd, atomic_file *out, const char *path) {
  char msg[512];
  if (atomic_file_open(out, path, msg, sizeof msg) == 0)
    return 0;
  fprintf(stderr, "%s: %s: %s\n", cmd, path, msg);
  return EXIT_RUNTIME;
}

int cli_publish(const char *cmd, atomic_file *out, const char *path,
                npy_status written, const npy_error *e) {
  char msg[512];
  if (written != NPY_OK) {
    fprintf(stderr, "%s: %s: %s\n", cmd, path, e->msg);
    atomic_file_abort(out);
    return EXIT_RUNTIME;
  }
  if (atomic_file_commit(out, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s: %s: %s\n", cmd, path, msg);
    return EXIT_RUNTIME;
  }
  return 0;
}
