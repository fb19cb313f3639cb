/* barrier_args.h - the options of `fricl barrier` and its --help. */
#ifndef FRICL_CLI_BARRIER_ARGS_H
#define FRICL_CLI_BARRIER_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "fricl/fricl.h"

typedef enum barrier_hessian {
  BARRIER_HESSIAN_NONE = 0,
  BARRIER_HESSIAN_LOCAL,
  BARRIER_HESSIAN_GLOBAL
} barrier_hessian;

typedef struct barrier_args {
  const char *in_path; /* borrowed from argv */
  const char *out_path;
  fricl_psd psd;             /* default none */
  barrier_hessian hessian;   /* default none */
  fricl_precision precision; /* default f64 */
  const char *device;        /* NULL: FRICL_DEVICE, else auto */
  int physical_barrier;
  int distances; /* 0 nearest (default), 1 as-classified */
  int repeat;    /* --repeat N: evaluate N times (timings with --verbose) */
  int compress;
  int verbose;
  int help;
} barrier_args;

/* Parse argv (argv[0] is "barrier"). @return 0, or -1 with a one-line
 * message in err. */
int barrier_args_parse(int argc, char **argv, barrier_args *args, char *err,
                       size_t err_size);

void barrier_print_help(FILE *f);

#endif
