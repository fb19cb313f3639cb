/* main.c - the `fricl-mpi` command: MPI + PETSc set-up and dispatch.
 * Arguments after a lone "--" go to PETSc's options database (as do those
 * in the PETSC_OPTIONS environment variable). */
#include <stdlib.h>
#include <string.h>

#include "mpi_args.h"
#include "mpi_cli.h"

static void usage(FILE *f) {
  fputs("Usage: mpirun -np P fricl-mpi <command> [options] [-- PETSc "
        "options]\n"
        "\n"
        "Commands:\n"
        "  tangential  friction potential, gradient and assembled Hessian of\n"
        "              a contact set (.npz), distributed over the ranks\n"
        "  bench       per-rank cost of fricl_petsc over fricl alone\n"
        "  version     print the library version\n"
        "\n"
        "'fricl-mpi <command> --help' describes a command's options.\n",
        f);
}

int main(int argc, char **argv) {
  int ours = argc;
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "--") == 0) {
      ours = i;
      break;
    }
  int pargc = 1 + (ours < argc ? argc - ours - 1 : 0);
  char **pargv = malloc(sizeof *pargv * (size_t)(pargc + 1));
  if (!pargv)
    return EXIT_RUNTIME;
  pargv[0] = argv[0];
  for (int i = 1; i < pargc; ++i)
    pargv[i] = argv[ours + i];
  pargv[pargc] = NULL;
  char **pa = pargv;
  if (PetscInitialize(&pargc, &pa, NULL, NULL) != 0) {
    fprintf(stderr, "fricl-mpi: PETSc (or MPI) failed to start\n");
    free(pargv);
    return EXIT_RUNTIME;
  }
  mpi_petsc_errors_install();
  int rank = 0, rc;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  const char *cmd = ours > 1 ? argv[1] : NULL;
  if (!cmd) {
    if (rank == 0)
      usage(stderr);
    rc = EXIT_USAGE;
  } else if (strcmp(cmd, "tangential") == 0) {
    rc = mpi_tangential_main(ours - 1, argv + 1);
  } else if (strcmp(cmd, "bench") == 0) {
    rc = mpi_bench_main(ours - 1, argv + 1);
  } else if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
    if (rank == 0)
      usage(stdout);
    rc = 0;
  } else if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    if (rank == 0)
      printf("fricl-mpi %s\n", fricl_version_string());
    rc = 0;
  } else {
    if (rank == 0)
      fprintf(stderr,
              "fricl-mpi: unknown command '%s' (see 'fricl-mpi "
              "--help')\n",
              cmd);
    rc = EXIT_USAGE;
  }
  PetscFinalize();
  free(pargv);
  return rc;
}
