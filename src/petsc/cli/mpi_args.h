/* mpi_args.h - the options of `fricl-mpi tangential` and its --help. */
#ifndef FRICL_MPI_ARGS_H
#define FRICL_MPI_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "fricl/fricl.h"

typedef struct mpi_args {
  const char *in_path; /* borrowed from argv */
  const char *out_path;
  fricl_psd psd;            /* default none */
  fricl_mu_profile profile; /* default cubic */
  const char *device;       /* NULL: FRICL_DEVICE, else auto */
  int ipctk_abs, check_basis, compress, verbose;
  int newton; /* --newton-step */
  int help;
} mpi_args;

/* Parse argv (argv[0] is "tangential"). @return 0, or -1 with a one-line
 * message in err. */
int mpi_args_parse(int argc, char **argv, mpi_args *a, char *err,
                   size_t err_size);

void mpi_print_help(FILE *f);

#endif
