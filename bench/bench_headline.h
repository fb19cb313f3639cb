/* bench_headline.h - `fricl bench --suite headline`: the few rows that
 * matter most, in one short table (scripts/setup_and_run.sh bench runs
 * it by default; the full suites stay `--suite all` / `bench --full`). */
#ifndef FRICL_BENCH_HEADLINE_H
#define FRICL_BENCH_HEADLINE_H

#include "bench_types.h"

/* Time and print the headline rows on ctx (ref: the single-thread C
 * reference context). @return 0, or 1 after a message on stderr. */
int bench_headline_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref);

#endif
