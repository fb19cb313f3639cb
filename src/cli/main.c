#include <stdio.h>
#include <string.h>
#include "bench.h"
#include "fricl/fricl.h"
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bench") == 0)
    return fricl_bench_main(argc - 1, argv + 1);
  printf("%s\n", fricl_version_string());
  return 0;
}
