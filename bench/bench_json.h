/*
 * bench_json.h - the small JSON writers every suite of `fricl bench` uses
 * for its section of the --json file.
 */
#ifndef FRICL_BENCH_JSON_H
#define FRICL_BENCH_JSON_H

#include <stdio.h>

#include "bench_timer.h"
#include "fricl/fricl.h"

/* A quoted, escaped string. */
void bench_json_str(FILE *f, const char *s);

/* A number, or null for n/a (a negative sentinel) and non-finite values,
 * which JSON cannot represent. */
void bench_json_num(FILE *f, double v);

/* "key": {"median": .., "min": .., "max": .., "first_run": ..,
 * "launches": .., "samples": ..} in seconds per run, or "key": null. */
void bench_json_stats(FILE *f, const char *key, const bench_stats *s, int have);

/* "reference", "host" or "opencl". */
const char *bench_backend_label(fricl_backend b);

#endif /* FRICL_BENCH_JSON_H */
