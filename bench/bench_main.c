#include <stdio.h>
#include "bench.h"
int fricl_bench_main(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "fricl bench: not implemented yet\n");
  return 1;
}
