/* mpi_args.h - the options of `fricl-mpi tangential` and its --help. */
#ifndef FRICL_MPI_ARGS_H
#define FRICL_MPI_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "cli_args.h"
#include "fricl/fricl.h"

typedef struct mpi_args {
  CLI_NPZ_ARGS_FIELDS;
  fricl_psd psd;            /* default none */
  fricl_mu_profile profile; /* default cubic */
  int ipctk_abs, check_basis;
  int newton; /* --newton-step */
} mpi_args;

/* The options of `fricl-mpi tangential` (argv[0] is "tangential"). */
extern const cli_grammar mpi_grammar;

void mpi_print_help(FILE *f);

#endif
