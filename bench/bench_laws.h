/*
 * bench_laws.h - `fricl bench --group laws`: throughput of the friction laws
 * (fricl_laws.h) on one device against a same-run copy kernel (the
 * roofline) and the single-thread C reference.
 */
#ifndef FRICL_BENCH_LAWS_H
#define FRICL_BENCH_LAWS_H

/* 1 when argv selects the laws group (--group laws / --group=laws). */
int bench_laws_selected(int argc, char **argv);

/* Run the laws benchmark; argv[0] is "bench". Returns the exit status. */
int bench_laws_main(int argc, char **argv);

#endif
