/* barrier_args.h - the options of `fricl barrier` and its --help. */
#ifndef FRICL_CLI_BARRIER_ARGS_H
#define FRICL_CLI_BARRIER_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "fricl/fricl.h"

typedef enum barrier_hessian {
  BARRIER_HESSIAN_NONE = 0,
  BARRIER_HESSIAN_LOCAL,
  BARRIER_HESSIAN_GLOBAL
} barrier_hessian;

typedef struct barrier_args {
  CLI_NPZ_ARGS_FIELDS;
  fricl_psd psd;             /* default none */
  barrier_hessian hessian;   /* default none */
  fricl_precision precision; /* default f64 */
  int physical_barrier;
  int distances; /* 0 nearest (default), 1 as-classified */
  int function;  /* fricl_normal_function: 0 barrier (default), 1 adhesion */
  int repeat;    /* --repeat N: evaluate N times (timings with --verbose) */
} barrier_args;

/* The options of `fricl barrier` (argv[0] is "barrier"). */
extern const cli_grammar barrier_grammar;

void barrier_print_help(FILE *f);

#endif
