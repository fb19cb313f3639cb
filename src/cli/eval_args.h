/* eval_args.h - the options of `fricl eval` and their --help text. */
#ifndef FRICL_CLI_EVAL_ARGS_H
#define FRICL_CLI_EVAL_ARGS_H

#include <stddef.h>
#include <stdio.h>

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
  int help; /* -h/--help seen: print help, nothing else */
} eval_args;

/* Parse argv (argv[0] is "eval"). @return 0, or -1 with a one-line message
 * (no trailing newline) in err. */
int eval_args_parse(int argc, char **argv, eval_args *args, char *err,
                    size_t err_size);

void eval_print_help(FILE *f);

#endif
