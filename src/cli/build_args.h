/* build_args.h - the options of `fricl build` and its --help. */
#ifndef FRICL_CLI_BUILD_ARGS_H
#define FRICL_CLI_BUILD_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "fricl/fricl.h"

typedef struct build_args {
  const char *in_path; /* borrowed from argv */
  const char *out_path;
  fricl_mu_blend blend;      /* default average */
  fricl_precision precision; /* default f64 */
  const char *device;        /* NULL: FRICL_DEVICE, else auto */
  int physical_barrier;      /* FRICL_BUILD_FLAG_PHYSICAL_BARRIER */
  int compress;
  int verbose;
  int help;
} build_args;

/* Parse argv (argv[0] is "build"). @return 0, or -1 with a one-line
 * message in err. */
int build_args_parse(int argc, char **argv, build_args *args, char *err,
                     size_t err_size);

void build_print_help(FILE *f);

/* The schema text (input and output arrays) shared with
 * `fricl tangential --help`. */
void build_print_schema(FILE *f);

#endif
