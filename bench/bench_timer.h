/*
 * bench_timer.h - wall-clock timing of synchronised runs: warm-up,
 * calibration to a minimum sample length, and interleaved repeats.
 */
#ifndef FRICL_BENCH_TIMER_H
#define FRICL_BENCH_TIMER_H

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* Run the measured operation `count` times and return only once all of it
 * has completed (e.g. enqueue count launches, then clFinish). 0 on success;
 * a failure aborts the measurement and is passed on. */
typedef int (*bench_run_fn)(void *arg, int count);

/* Per-run times in seconds over the timed samples. */
typedef struct bench_stats {
  double median, min, max;
  double first; /* the untimed warm-up run: builds, JIT, first touch */
  int launches; /* runs per sample (>= 1) */
  int samples;  /* timed samples (the repeats) */
} bench_stats;

typedef struct bench_job {
  bench_run_fn fn;
  void *arg;
  /* Most runs one sample may batch; 0: the default (4096), enough for
   * calls of a few microseconds or more. Calls well below that (a sweep's
   * smallest sizes) need more to last min_sample_s. */
  int max_launches;
  bench_stats st; /* out */
} bench_job;

/*
 * Time every job: one untimed warm-up run each (kernel builds, first touch
 * of pages), a calibration (one run, or growing batches of short runs)
 * that sets how many runs a sample needs to last at least `min_sample_s`,
 * then `repeats` rounds in which every job
 * takes one sample in turn. Interleaving means slow drift of a shared
 * machine hits all jobs alike, so their same-run ratios stay meaningful.
 * Returns 0, or the first nonzero result of a job.
 */
int bench_time_jobs(bench_job *jobs, int njobs, int repeats,
                    double min_sample_s);

#endif /* FRICL_BENCH_TIMER_H */
