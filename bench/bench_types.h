/*
 * bench_types.h - what the benchmark's parts share: the options, the run
 * header and one result row per (group, profile, precision).
 */
#ifndef FRICL_BENCH_TYPES_H
#define FRICL_BENCH_TYPES_H

#include <stddef.h>

#include "bench_timer.h"
#include "fricl/fricl.h"

#define BENCH_MAX_GROUP_ARGS 32

/* Suites of `fricl bench`: the scalar family, the per-contact tangential
 * potential, the friction laws, the lagged build and the batch-size sweep. */
#define BENCH_SUITE_SCALAR 0x1u
#define BENCH_SUITE_CONTACTS 0x2u
#define BENCH_SUITE_LAWS 0x4u
#define BENCH_SUITE_BUILD 0x8u
#define BENCH_SUITE_SWEEP 0x10u
/* Not in "all": run with --suite barrier (bench_barrier.c). */
#define BENCH_SUITE_BARRIER 0x20u
/* Not in "all": the few rows that matter most (bench_headline.c), the
 * default of `scripts/setup_and_run.sh bench`. */
#define BENCH_SUITE_HEADLINE 0x40u
#define BENCH_SUITES_ALL 0x1Fu
#define BENCH_NAME_MAX 48
#define BENCH_MAX_SIZES 16

/* Targets (benchmark goals, printed as PASS/MISS; the exit status ignores
 * them). The roofline and speed-up goals are stated for f64. */
#define BENCH_TARGET_ROOF_PCT 75.0
#define BENCH_TARGET_SPEEDUP 1.5
#define BENCH_TARGET_ERR_ULP 4.0
/* Sweep: 8 plane-vertex contacts on auto cost at most this many times a
 * call on the reference backend (issue 10). */
#define BENCH_TARGET_SMALL_RATIO 2.0

/* Where a row's timed call came from: the host tier (fricl_*_eval on host
 * arrays, what every user gets, on whichever backend the context chose)
 * or the device tier (the cl_mem entry points on device buffers, only
 * with an OpenCL device). */
typedef enum bench_tier {
  BENCH_TIER_HOST = 0,
  BENCH_TIER_DEVICE = 1
} bench_tier;

typedef struct bench_options {
  const char *device; /* NULL: FRICL_DEVICE, else auto */
  size_t n;           /* elements per group */
  int n_set;          /* --n given (the laws suite has its own default) */
  int repeats;
  unsigned precisions; /* bit FRICL_F64 / FRICL_F32 */
  unsigned profiles;   /* bit FRICL_MU_CUBIC / FRICL_MU_IPCTK */
  const char *groups[BENCH_MAX_GROUP_ARGS]; /* --group filters */
  int ngroups;                              /* 0: all groups */
  const char *json_path;
  int markdown;
  int quick;
  unsigned suites;               /* BENCH_SUITE_* bits */
  size_t contacts;               /* contacts per row of the contacts suite */
  size_t sizes[BENCH_MAX_SIZES]; /* sweep: contact counts */
  int nsizes;
  double min_sample_s; /* a timed sample lasts at least this long */
  size_t err_samples;  /* elements checked per output */
} bench_options;

/* One benchmark group: the terms it writes and whether eps_v, mu_s and
 * mu_k come as per-element arrays. */
typedef struct bench_group {
  const char *name;
  unsigned mask;    /* bit t: term t is an output */
  int per_element;  /* 1: eps_v, mu_s, mu_k arrays */
  int profile_free; /* mollifier only: run once, profile shown as "-" */
} bench_group;

/* One judged element of one output (for the outlier report). */
typedef struct bench_worst {
  double err_ulp;     /* in ulp of sigma; inf for a kind mismatch */
  double err_val_ulp; /* in ulp of max(sigma, |ref|) */
  long double sigma;
  double y, eps_v, mu_s, mu_k;
  double got;
  long double ref;
} bench_worst;

typedef struct bench_row {
  char group[BENCH_NAME_MAX];
  int profile; /* fricl_mu_profile, -1 when profile-free */
  fricl_precision precision;
  size_t n;
  int terms;        /* outputs written */
  int param_arrays; /* per-element parameter arrays read (0 or 3) */
  unsigned mask;
  bench_tier tier;
  fricl_backend backend; /* what ran the timed call */
  unsigned threads;      /* host threads of that backend; 0 for OpenCL */
  /* The timed call, the copy roofline on the same backend and the
   * single-thread C reference, all interleaved in one run. */
  bench_stats time, copy, ref;
  double build_cold_ms, build_warm_ms; /* < 0: n/a (not OpenCL) */
  /* Accuracy of the row's outputs against the long-double reference. */
  size_t err_checked; /* elements compared per output */
  double max_err_ulp; /* finite outputs, max over terms */
  /* The same restricted to y >= 0 (the potential's domain, for which the
   * spec's sigma is designed: at y < 0 the mollifier values exceed sigma,
   * f2 = 2(1 - y/e)/e up to 4/e against sigma = 1/e), and measured in ulp
   * of max(sigma, |ref|) over all y (a relative error where the value
   * exceeds its scale). */
  double max_err_pos_ulp;
  double max_err_val_ulp;
  long kind_mismatches; /* non-finite of a different kind */
  /* Device-tier rows: outputs not bitwise equal to the host tier's (-1:
   * not compared). */
  long host_mismatches;
  double term_err[FRICL_TERM_COUNT]; /* max err per term (requested) */
  double term_err_pos[FRICL_TERM_COUNT];
  double term_err_val[FRICL_TERM_COUNT];
  long term_kind[FRICL_TERM_COUNT];
  bench_worst worst[FRICL_TERM_COUNT];      /* largest finite error */
  bench_worst worst_pos[FRICL_TERM_COUNT];  /* the same over y >= 0 */
  bench_worst first_kind[FRICL_TERM_COUNT]; /* first kind mismatch */
} bench_row;

/* Derived figures of a row (kept out of bench_row so they cannot drift
 * from the measured times they come from). */
typedef struct bench_figures {
  double eps, ref_eps;                 /* elements per second */
  double eff_gbs, copy_gbs, pct_copy;  /* < 0: n/a */
  double speedup;                      /* t_ref / t, < 0 n/a */
  double spread_pct;                   /* (max - min) / median */
  int pass_roof, pass_speed, pass_err; /* 1 pass, 0 miss, -1 n/a */
} bench_figures;

/* What the run was on (the report header). */
typedef struct bench_header {
  char device[320]; /* fricl_context_device_name of the context */
  char spec[64];    /* --device, or "(default)" */
  char driver[128]; /* OpenCL driver version, "" without a device */
  char fricl_version[32];
  char build_options[512];
  unsigned threads; /* fricl_context_threads */
  size_t n;
  int repeats;
  double min_sample_ms;
} bench_header;

#endif /* FRICL_BENCH_TYPES_H */
