/* mpi_bench.c - placeholder */
#include "mpi_cli.h"
int mpi_bench_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return EXIT_USAGE;
}
