/* bench_timer.c - see bench_timer.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench_timer.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* Calibration never batches more than this many runs into one sample
 * (unless a job says otherwise): it bounds the cost of a badly timed (e.g.
 * preempted-to-zero) calibration. */
#define BENCH_MAX_LAUNCHES 4096

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One sample: `count` runs, per-run seconds in *t. */
static int sample(bench_job *j, int count, double *t) {
  const double t0 = bench_now();
  const int rc = j->fn(j->arg, count);
  *t = (bench_now() - t0) / count;
  return rc;
}

int bench_time_jobs(bench_job *jobs, int njobs, int repeats,
                    double min_sample_s) {
  int rc = 0;
  double *times = NULL;
  if (njobs <= 0 || repeats <= 0)
    return 0;
  times = malloc(sizeof *times * (size_t)njobs * (size_t)repeats);
  if (!times)
    return -1;
  for (int j = 0; j < njobs; ++j) {
    double t1 = 0.0;
    /* Warm-up: not a sample, but its length is worth reporting (an
     * OpenCL CPU driver may compile the kernel at its first launch). */
    if ((rc = sample(&jobs[j], 1, &jobs[j].st.first)) != 0)
      goto cleanup;
    const int cap =
        jobs[j].max_launches > 0 ? jobs[j].max_launches : BENCH_MAX_LAUNCHES;
    /* Calibration: one run, or for short runs batches growing 8x until a
     * batch lasts an eighth of a sample (one microsecond-long run alone
     * says little about its steady-state time). */
    for (int count = 1;; count *= 8) {
      if ((rc = sample(&jobs[j], count, &t1)) != 0)
        goto cleanup;
      if (t1 * count >= min_sample_s / 8 || count >= cap / 8)
        break;
    }
    const double want = t1 > 0.0 ? ceil(min_sample_s / t1) : (double)cap;
    jobs[j].st.launches = want < 1.0 ? 1 : want > (double)cap ? cap : (int)want;
    jobs[j].st.samples = repeats;
  }
  for (int r = 0; r < repeats; ++r)
    for (int j = 0; j < njobs; ++j)
      if ((rc = sample(&jobs[j], jobs[j].st.launches,
                       &times[(size_t)j * (size_t)repeats + (size_t)r])) != 0)
        goto cleanup;
  for (int j = 0; j < njobs; ++j) {
    double *t = &times[(size_t)j * (size_t)repeats];
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    jobs[j].st.min = t[0];
    jobs[j].st.max = t[repeats - 1];
    jobs[j].st.median = repeats % 2
                            ? t[repeats / 2]
                            : 0.5 * (t[repeats / 2 - 1] + t[repeats / 2]);
  }
cleanup:
  free(times);
  return rc;
}
