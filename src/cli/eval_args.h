/* eval_args.h - the options of `fricl eval` and their --help text. */
#ifndef FRICL_CLI_EVAL_ARGS_H
#define FRICL_CLI_EVAL_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "fricl/fricl.h"

typedef struct eval_args {
  fricl_term terms[FRICL_TERM_COUNT]; /* in the order given */
  int nterms;
  double eps_v, mu_s, mu_k;
  int have_eps_v, have_mu_s, have_mu_k;
  fricl_mu_profile profile;  /* default cubic */
  fricl_precision precision; /* default f64 */
  const char *device;        /* NULL: FRICL_DEVICE, else auto */
  const char *in_path;       /* borrowed from argv */
  const char *out_path;
  int verbose;
} eval_args;

/* The options of `fricl eval` (argv[0] is "eval"). */
extern const cli_grammar eval_grammar;

void eval_print_help(FILE *f);

#endif
