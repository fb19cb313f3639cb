/*
 * bench_report.h - the results of `fricl bench`: derived figures and
 * targets, the table (plain or Markdown), the accuracy-outlier list and
 * the JSON file.
 */
#ifndef FRICL_BENCH_REPORT_H
#define FRICL_BENCH_REPORT_H

#include <stdio.h>

#include "bench_types.h"

/* Elements/s, GB/s, % of copy, speed-up, spread and PASS/MISS of a row. */
void bench_figures_of(const bench_row *r, bench_figures *f);

/* "cubic", "ipctk" or "-" (profile-free). */
const char *bench_profile_label(int profile);

/* "host" or "device". */
const char *bench_tier_label(bench_tier t);

/* The header lines and the table of the scalar rows. */
void bench_report_table(FILE *out, const bench_header *h, const bench_row *rows,
                        size_t nrows, int markdown);

/* Every output whose max error exceeds the target or whose non-finite
 * values differ in kind, with the inputs of its worst element. */
void bench_report_outliers(FILE *out, const bench_row *rows, size_t nrows);

/* Members of the --json file's top-level object (no trailing comma): the
 * run header ("tool", "device", ..., "targets"), and the scalar rows
 * ("copy_gbs": medians per backend and precision, "rows": [...]). */
void bench_report_json_header(FILE *f, const bench_header *h);
void bench_report_json_rows(FILE *f, const bench_row *rows, size_t nrows);

#endif /* FRICL_BENCH_REPORT_H */
