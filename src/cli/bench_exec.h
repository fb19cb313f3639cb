/* bench_exec.h - `fricl bench`: the benchmark harness is a program of its
 * own (fricl-bench, built in bench/ and never installed), because its
 * kernel-level suites reach into the library's internals and the installed
 * `fricl` links only the public library. This command finds that program
 * and runs it in place of `fricl`. */
#ifndef FRICL_CLI_BENCH_EXEC_H
#define FRICL_CLI_BENCH_EXEC_H

/* argv[0] is "bench"; returns the exit status when fricl-bench cannot be
 * run (on success the process becomes fricl-bench and never returns). */
int fricl_bench_main(int argc, char **argv);

#endif
