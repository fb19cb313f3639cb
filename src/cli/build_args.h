/* build_args.h - the options of `fricl build` and its --help. */
#ifndef FRICL_CLI_BUILD_ARGS_H
#define FRICL_CLI_BUILD_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "fricl/fricl.h"

typedef struct build_args {
  CLI_NPZ_ARGS_FIELDS;
  fricl_mu_blend blend;      /* default average */
  fricl_precision precision; /* default f64 */
  int physical_barrier;      /* FRICL_BUILD_FLAG_PHYSICAL_BARRIER */
} build_args;

/* The options of `fricl build` (argv[0] is "build"). */
extern const cli_grammar build_grammar;

void build_print_help(FILE *f);

/* The schema text (input and output arrays) shared with
 * `fricl tangential --help`. */
void build_print_schema(FILE *f);

#endif
