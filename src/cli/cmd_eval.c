/* cmd_eval.c - `fricl eval`: read y from an NPY file, evaluate the requested
 * terms with fricl_scalar_eval, write them as one NPY file atomically. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_run.h"
#include "commands.h"
#include "eval_args.h"
#include "fricl/fricl.h"
#include "npy.h"
#include "npz_input.h"
#include "same_file.h"

/* Rows interleaved per block when writing an (n, T) array: bounds the extra
 * memory to a few hundred KiB instead of a second copy of all outputs. */
#define INTERLEAVE_ROWS 4096

/* y in the working precision: the input's own data when the dtypes match
 * (*owned stays NULL), else a converted copy that the caller frees. */
static int input_in_precision(const npy_array *in, fricl_precision prec,
                              const void **y, void **owned) {
  const size_t n = in->info.count;
  *owned = NULL;
  *y = in->data;
  if ((prec == FRICL_F64) == (in->info.dtype == NPY_F8))
    return 0;
  if (prec == FRICL_F64) {
    double *d = malloc(n ? n * sizeof *d : 1);
    if (!d)
      return -1;
    const float *s = in->data;
    for (size_t i = 0; i < n; ++i)
      d[i] = (double)s[i];
    *y = *owned = d;
  } else {
    float *d = malloc(n ? n * sizeof *d : 1);
    if (!d)
      return -1;
    const double *s = in->data;
    for (size_t i = 0; i < n; ++i)
      d[i] = cli_double_to_float(s[i]);
    *y = *owned = d;
  }
  return 0;
}

/* The checks `eval` adds to what npy.c accepts. */
static int check_input(const char *path, const npy_array *in) {
  if (in->info.dtype != NPY_F8 && in->info.dtype != NPY_F4) {
    fprintf(stderr, "fricl eval: %s: dtype '%s' is not float64 or float32\n",
            path, npy_dtype_descr(in->info.dtype));
    return -1;
  }
  if (in->info.ndim != 1) {
    char shape[128];
    fprintf(
        stderr, "fricl eval: %s: expected a 1-D array, got shape %s\n", path,
        npy_format_shape(shape, sizeof shape, in->info.ndim, in->info.shape));
    return -1;
  }
  return 0;
}

/* Write the outputs: (n,) for one term, else (n, T) interleaved row by
 * row (the library gives one array per term). */
static npy_status write_result(FILE *f, npy_dtype dtype, size_t esz, size_t n,
                               int nterms, void *const *outs, npy_error *err) {
  if (nterms == 1)
    return npy_write_array(f, dtype, 1, &n, outs[0], err);
  const size_t shape[2] = {n, (size_t)nterms};
  npy_status st = npy_write_header(f, dtype, 2, shape, err);
  if (st != NPY_OK)
    return st;
  unsigned char *block = malloc(INTERLEAVE_ROWS * (size_t)nterms * esz);
  if (!block) {
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return NPY_E_NOMEM;
  }
  for (size_t row0 = 0; row0 < n && st == NPY_OK; row0 += INTERLEAVE_ROWS) {
    const size_t rows = n - row0 < INTERLEAVE_ROWS ? n - row0 : INTERLEAVE_ROWS;
    unsigned char *dst = block;
    for (size_t r = 0; r < rows; ++r)
      for (int t = 0; t < nterms; ++t, dst += esz)
        memcpy(dst, (const unsigned char *)outs[t] + (row0 + r) * esz, esz);
    st = npy_write_data(f, dtype, block, rows * (size_t)nterms, err);
  }
  free(block);
  return st;
}

static int run_eval(const void *args) {
  const eval_args *a = args;
  int rc = EXIT_RUNTIME;
  npy_array in;
  npy_error nerr;
  void *y_owned = NULL;
  void *outs[FRICL_TERM_COUNT] = {NULL};
  atomic_file out;
  fricl_context *ctx = NULL;
  fricl_scalar_batch batch;
  fricl_status st;
  const void *y = NULL;
  const size_t esz = a->precision == FRICL_F32 ? sizeof(float) : sizeof(double);
  const npy_dtype dtype = a->precision == FRICL_F32 ? NPY_F4 : NPY_F8;
  size_t n = 0;
  memset(&in, 0, sizeof in);
  memset(&out, 0, sizeof out);

  /* 1. The input, checked completely before anything is created. */
  if (cli_refuse_same_file("fricl eval", a->in_path, a->out_path)) {
    rc = EXIT_USAGE;
    goto done;
  }
  const npy_status rs = npy_read_file(a->in_path, 0, &in, &nerr);
  if (rs != NPY_OK) {
    fprintf(stderr, "fricl eval: %s: %s\n", a->in_path, nerr.msg);
    rc = rs == NPY_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    goto done;
  }
  if (check_input(a->in_path, &in) != 0) {
    rc = EXIT_USAGE;
    goto done;
  }
  n = in.info.count;
  if (n > SIZE_MAX / esz ||
      input_in_precision(&in, a->precision, &y, &y_owned) != 0) {
    fprintf(stderr, "fricl eval: out of memory for %zu elements\n", n);
    goto done;
  }

  /* 2. The output, before OpenCL starts: fail early on an unwritable
   * directory, and atomic_file reads the umask while single-threaded. */
  if (cli_output_open("fricl eval", &out, a->out_path) != 0)
    goto done;

  /* 3. Evaluate. INVALID_ARGUMENT can only come from the user's values
   * (device spec, eps_v, mu_s, mu_k): a usage error. */
  if ((rc = cli_context_open("fricl eval", a->device, &ctx)) != 0)
    goto done;
  rc = EXIT_RUNTIME;
  fricl_scalar_batch_init(&batch);
  batch.precision = a->precision;
  batch.mu_profile = a->profile;
  batch.n = n;
  batch.y = y;
  batch.eps_v = a->eps_v;
  batch.mu_s = a->mu_s;
  batch.mu_k = a->mu_k;
  for (int t = 0; t < a->nterms; ++t) {
    batch.terms |= FRICL_TERM_BIT(a->terms[t]);
    if (n > 0 && !(outs[t] = malloc(n * esz))) {
      fprintf(stderr, "fricl eval: out of memory for %zu elements\n", n);
      goto done;
    }
    batch.out[a->terms[t]] = outs[t];
  }
  st = fricl_scalar_eval(ctx, &batch);
  if (st != FRICL_STATUS_OK) {
    rc = cli_library_error("fricl eval", ctx, st, NULL);
    goto done;
  }
  if (a->verbose)
    cli_report_backend("fricl eval", ctx);

  /* 4. Write and publish. */
  rc = cli_publish("fricl eval", &out, a->out_path,
                   write_result(out.fp, dtype, esz, n, a->nterms, outs, &nerr),
                   &nerr);
done:
  atomic_file_abort(&out); /* removes the temporary file unless committed */
  fricl_context_destroy(ctx);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    free(outs[t]);
  free(y_owned);
  npy_array_free(&in);
  return rc;
}

const cli_command cmd_eval = {"eval", NULL, &eval_grammar, eval_print_help,
                              run_eval};
