/* bench_tool.c - fricl-bench, the benchmark harness as a program of its own
 * (see bench/CMakeLists.txt). `fricl bench ...` runs it with the same
 * arguments. */
#include "bench.h"

int main(int argc, char **argv) { return fricl_bench_main(argc, argv); }
