/* tangential_args.h - the options of `fricl tangential` and its --help. */
#ifndef FRICL_CLI_TANGENTIAL_ARGS_H
#define FRICL_CLI_TANGENTIAL_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "fricl/fricl.h"

typedef enum tangential_hessian {
  TANGENTIAL_HESSIAN_NONE = 0,
  TANGENTIAL_HESSIAN_LOCAL,
  TANGENTIAL_HESSIAN_FACTORED,
  TANGENTIAL_HESSIAN_GLOBAL
} tangential_hessian;

typedef struct tangential_args {
  CLI_NPZ_ARGS_FIELDS;
  fricl_psd psd;              /* default none */
  tangential_hessian hessian; /* default none */
  fricl_precision precision;  /* default f64 */
  fricl_mu_profile profile;   /* default cubic */
  int ipctk_abs;              /* FRICL_TANGENTIAL_FLAG_IPCTK_ABS */
  int check_basis;            /* FRICL_TANGENTIAL_FLAG_CHECK_BASIS */
  int mollifier;              /* fricl_mollifier: 0 friction (default) */
  /* --build: the input is a build input (fricl build) plus velocities and
   * eps_v; the build runs first and feeds the evaluation. */
  int build;
  fricl_mu_blend blend; /* --blend (with --build), default average */
  int physical_barrier; /* --physical-barrier (with --build) */
} tangential_args;

/* The options of `fricl tangential` (argv[0] is "tangential"). */
extern const cli_grammar tangential_grammar;

void tangential_print_help(FILE *f);

#endif
