/* bench.h - entry point of `fricl bench` (called by the CLI's main). */
#ifndef FRICL_BENCH_H
#define FRICL_BENCH_H
/* argv[0] is "bench"; returns the process exit status. */
int fricl_bench_main(int argc, char **argv);
#endif
