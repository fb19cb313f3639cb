/*
 * multi.c - a context over several devices (see multi.h): the device
 * list, the devices' shares, the parallel runner, and the element-wise
 * features split by ranges (scalar family, lagged build, friction laws)
 * and the barrier's per-contact records (split by ranges of each chunk's
 * contacts, added on the host in contact order).
 *
 * Shares. Before anything is measured a device's weight is its compute
 * units times its clock (CL_DEVICE_MAX_COMPUTE_UNITS x
 * CL_DEVICE_MAX_CLOCK_FREQUENCY), a crude guess that treats equal devices
 * equally. Every split call then times each device's part (wall time of
 * its host-tier work: transfers included, as the caller pays them) and
 * folds work items per second into that feature's rate (the mean of the
 * previous rate and the new one; a sample more than 3x off the rate, a
 * stall, is dropped). Parts under 4096 work items and parts that built a
 * kernel are not measured. Once every device has a rate for a feature,
 * the rates are the weights - except when every device is a CPU device:
 * they share the host's cores, one's speed while the other runs says
 * nothing, and the estimate stays. The shares splits use move only when
 * the weights move them by more than 5 % (fricl__multi_shares).
 * FRICL_MULTI_SHARES=w0,w1,... pins the weights instead (one positive
 * number per device). The split never changes a result, only who
 * computes it.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/abi.h"
#include "core/backend.h"
#include "core/error_sink.h"
#include "core/fault.h"
#include "multi/multi.h"

_Static_assert((int)FRICL__FEATURE_COUNT == (int)FRICL_FEATURE_COUNT,
               "the public feature list names the internal one");

/* Parts smaller than this are not timed into the rates. */
#define MEASURE_MIN 4096
/* Element-wise splits cut at multiples of this many elements. */
#define ELEM_ALIGN 64

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t program_count(const fricl__multi_dev *v) {
  fricl__child_info info;
  v->child->info(v->be, &info);
  return info.programs;
}

/* ------------------------------------------------------------ runner */

typedef struct {
  fricl__multi *m;
  size_t d;
  fricl__multi_fn fn;
  void *arg;
  fricl_status st;
  double seconds;
  int built;
} part_job;

static void run_part(part_job *j) {
  const fricl__multi_dev *v = &j->m->dev[j->d];
  const size_t before = program_count(v);
  fricl__error_sink *sink = &j->m->dev[j->d].sink;
  fricl__sink_clear(sink);
  fricl__error_sink *previous = fricl__sink_enter(sink);
  const double t0 = now_s();
  j->st = j->fn(j->m, j->d, j->arg);
  j->seconds = now_s() - t0;
  fricl__sink_leave(previous);
  j->built = program_count(v) != before;
}

static void *part_thread(void *arg) {
  run_part(arg);
  return NULL;
}

fricl_status fricl__multi_parallel(fricl__multi *m, const int *active,
                                   fricl__multi_fn fn, void *arg,
                                   double *seconds, int *built) {
  part_job jobs[FRICL__MULTI_MAX];
  pthread_t tid[FRICL__MULTI_MAX];
  int started[FRICL__MULTI_MAX] = {0};
  size_t first = m->n;
  for (size_t d = 0; d < m->n; ++d) {
    jobs[d] = (part_job){m, d, fn, arg, FRICL_STATUS_OK, 0.0, 0};
    if (!active[d])
      continue;
    if (first == m->n) {
      first = d; /* runs on this thread, after the others have started */
      continue;
    }
    started[d] = pthread_create(&tid[d], NULL, part_thread, &jobs[d]) == 0;
  }
  if (first < m->n)
    run_part(&jobs[first]);
  /* A thread that could not start runs its part here, after the first. */
  for (size_t d = 0; d < m->n; ++d)
    if (active[d] && d != first && !started[d])
      run_part(&jobs[d]);
  for (size_t d = 0; d < m->n; ++d)
    if (started[d])
      pthread_join(tid[d], NULL);
  fricl_status st = FRICL_STATUS_OK;
  for (size_t d = 0; d < m->n; ++d) {
    if (seconds)
      seconds[d] = active[d] ? jobs[d].seconds : 0.0;
    if (built)
      built[d] = active[d] && jobs[d].built;
    if (!active[d] || jobs[d].st == FRICL_STATUS_OK || st != FRICL_STATUS_OK)
      continue;
    /* The first failure in device order names its device. */
    st = jobs[d].st;
    fricl_context *ctx = m->base.ctx;
    fricl__fail(ctx, st, "device %zu of %zu (%s, %s): %s", d + 1, m->n,
                m->dev[d].label, m->dev[d].name,
                fricl__sink_message(&m->dev[d].sink));
  }
  return st;
}

/* ------------------------------------------------------------- shares */

static int can_run(const fricl__multi_dev *v, fricl_precision p) {
  return p != FRICL_F64 || v->be->has_fp64;
}

int fricl__multi_can_run(const fricl__multi *m, size_t d,
                         fricl_precision precision) {
  return can_run(&m->dev[d], precision);
}

/* The weights of `feature` (0 for devices that cannot run `precision`). */
static void weights(const fricl__multi *m, fricl__feature feature,
                    fricl_precision precision, double *w) {
  int all_rated = 1, pinned = 0;
  for (size_t d = 0; d < m->n; ++d) {
    pinned |= m->dev[d].pinned > 0;
    if (can_run(&m->dev[d], precision))
      all_rated &= m->dev[d].rate[feature] > 0;
  }
  for (size_t d = 0; d < m->n; ++d) {
    const fricl__multi_dev *v = &m->dev[d];
    w[d] = !can_run(v, precision)          ? 0.0
           : pinned                        ? v->pinned
           : all_rated && !m->shared_cores ? v->rate[feature]
                                           : v->estimate;
  }
}

/* Shares move only when the measured ones differ by more than this. */
#define STICKY 0.05

void fricl__multi_shares(fricl__multi *m, fricl__feature feature,
                         fricl_precision precision, double *share) {
  double w[FRICL__MULTI_MAX], total = 0, drift = 0;
  weights(m, feature, precision, w);
  for (size_t d = 0; d < m->n; ++d)
    total += w[d];
  const int pi = precision == FRICL_F32;
  int set = 0;
  for (size_t d = 0; d < m->n; ++d) {
    const double t = w[d] / total, u = m->dev[d].used[feature][pi];
    set |= u > 0;
    drift = fabs(t - u) > drift ? fabs(t - u) : drift;
  }
  if (!set || drift > STICKY) {
    /* Quantised to 1/256, so that small drifts cannot move a cut. */
    for (size_t d = 0; d < m->n; ++d)
      m->dev[d].used[feature][pi] = round(256 * w[d] / total) / 256;
  }
  double sum = 0;
  for (size_t d = 0; d < m->n; ++d)
    sum += m->dev[d].used[feature][pi];
  for (size_t d = 0; d < m->n; ++d)
    share[d] = sum > 0 ? m->dev[d].used[feature][pi] / sum : w[d] / total;
}

size_t fricl__multi_split(fricl__multi *m, fricl__feature feature,
                          fricl_precision precision, size_t n, size_t align,
                          size_t *cuts) {
  double w[FRICL__MULTI_MAX];
  fricl__multi_shares(m, feature, precision, w);
  size_t last = 0; /* the last device with a share takes the rest */
  for (size_t d = 0; d < m->n; ++d)
    if (w[d] > 0)
      last = d;
  double acc = 0;
  size_t parts = 0;
  cuts[0] = 0;
  for (size_t d = 0; d < m->n; ++d) {
    acc += w[d];
    size_t c = n;
    if (d < last) {
      const double x = (double)n * acc / (double)align + 0.5;
      c = x >= (double)n / (double)align ? n : (size_t)x * align;
      if (c < cuts[d])
        c = cuts[d];
    }
    cuts[d + 1] = c;
    parts += c > cuts[d];
  }
  return parts;
}

void fricl__multi_measured(fricl__multi *m, fricl__feature feature,
                           const size_t *cuts, const double *seconds,
                           const int *built) {
  for (size_t d = 0; d < m->n; ++d) {
    const size_t items = cuts[d + 1] - cuts[d];
    if (items < MEASURE_MIN || built[d] || seconds[d] <= 0)
      continue;
    const double r = (double)items / seconds[d];
    double *rate = &m->dev[d].rate[feature];
    if (*rate > 0 && (r > 3 * *rate || 3 * r < *rate))
      continue; /* a stall (or a burst): not the device's speed */
    *rate = *rate > 0 ? 0.5 * (*rate + r) : r;
  }
}

fricl_status fricl__multi_host(fricl__multi *m, void **buf, size_t *have,
                               size_t bytes) {
  if (*buf && *have >= bytes)
    return FRICL_STATUS_OK;
  free(*buf);
  *have = 0;
  const size_t page = 4096;
  const size_t size = bytes ? (bytes + page - 1) / page * page : page;
  *buf = aligned_alloc(page, size);
  if (!*buf)
    return fricl__fail(m->base.ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu bytes of host staging", size);
  *have = size;
  return FRICL_STATUS_OK;
}

/* -------------------------------------------------- element-wise parts */

/* Split [0, n) and run part_fn on every nonempty range; rates updated. */
typedef struct {
  const size_t *cuts;
  const void *work;
} range_arg;

static fricl_status split_run(fricl__multi *m, fricl__feature feature,
                              fricl_precision precision, size_t n,
                              fricl__multi_fn fn, const void *work) {
  size_t cuts[FRICL__MULTI_MAX + 1];
  fricl__multi_split(m, feature, precision, n, ELEM_ALIGN, cuts);
  int active[FRICL__MULTI_MAX];
  for (size_t d = 0; d < m->n; ++d)
    active[d] = cuts[d + 1] > cuts[d];
  range_arg a = {cuts, work};
  double seconds[FRICL__MULTI_MAX];
  int built[FRICL__MULTI_MAX];
  const fricl_status st =
      fricl__multi_parallel(m, active, fn, &a, seconds, built);
  if (st == FRICL_STATUS_OK)
    fricl__multi_measured(m, feature, cuts, seconds, built);
  return st;
}

static const void *at(const void *p, size_t off) {
  return p ? (const char *)p + off : NULL;
}

static fricl_status scalar_part(fricl__multi *m, size_t d, void *arg) {
  const range_arg *a = arg;
  const fricl__scalar_work *w = a->work;
  const size_t lo = a->cuts[d], n = a->cuts[d + 1] - lo;
  fricl_scalar_batch b = *w->b;
  const size_t off = lo * fricl__elem_bytes(b.precision);
  b.n = n;
  b.y = at(b.y, off);
  b.eps_v_array = at(b.eps_v_array, off);
  b.mu_s_array = at(b.mu_s_array, off);
  b.mu_k_array = at(b.mu_k_array, off);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = (void *)(uintptr_t)at(b.out[t], off);
  const fricl__scalar_work sw = {&b, w->mask};
  fricl__backend *be = m->dev[d].be;
  return be->ops->scalar(be, &sw);
}

static fricl_status multi_scalar(fricl__backend *be,
                                 const fricl__scalar_work *w) {
  return split_run((fricl__multi *)be, FRICL__FEATURE_SCALAR, w->b->precision,
                   w->b->n, scalar_part, w);
}

static fricl_status laws_part(fricl__multi *m, size_t d, void *arg) {
  const range_arg *a = arg;
  return m->dev[d].child->laws_range(m->dev[d].be, a->work, a->cuts[d],
                                     a->cuts[d + 1]);
}

static fricl_status multi_laws(fricl__backend *be, const fricl__laws_work *w) {
  return split_run((fricl__multi *)be, FRICL__FEATURE_LAWS, w->pl->prec,
                   w->pl->n, laws_part, w);
}

/* The build's groups cut to the global contact range [lo, hi). */
static fricl_status build_part(fricl__multi *m, size_t d, void *arg) {
  const range_arg *a = arg;
  const fricl__build_work *w = a->work;
  const fricl_build_batch *b = w->b;
  const size_t lo = a->cuts[d], hi = a->cuts[d + 1];
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t dim = (size_t)b->dim, m1 = dim - 1;
  fricl_build_group *groups = fricl__calloc(b->n_groups, sizeof *groups);
  uint8_t **status = fricl__calloc(b->n_groups, sizeof *status);
  if (!groups || !status) {
    free(groups);
    free(status);
    return fricl__fail(m->base.ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "out of memory");
  }
  size_t ng = 0, gbase = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_build_group *G = &b->groups[g];
    const size_t n = G->count, g0 = gbase;
    gbase += n;
    const size_t s = lo > g0 ? lo - g0 : 0;
    const size_t e = hi - g0 < n ? hi - g0 : n;
    if (hi <= g0 || s >= n || s >= e)
      continue;
    const size_t k = (size_t)fricl__stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl__stencil_coord_count(G->type);
    fricl_build_group *S = &groups[ng];
    *S = *G;
    S->count = e - s;
    S->vertices = at(G->vertices, s * k * sizeof(int32_t));
    S->plane_normal = at(G->plane_normal, s * dim * esz);
    S->plane_offset = at(G->plane_offset, s * esz);
    S->dmin = at(G->dmin, s * esz);
    S->weight = at(G->weight, s * esz);
    S->mu_s = at(G->mu_s, s * esz);
    S->mu_k = at(G->mu_k, s * esz);
    S->closest_point = (void *)(uintptr_t)at(G->closest_point, s * nb * esz);
    S->tangent_basis =
        (void *)(uintptr_t)at(G->tangent_basis, s * dim * m1 * esz);
    S->normal_force = (void *)(uintptr_t)at(G->normal_force, s * esz);
    S->normal_force_gradient =
        (void *)(uintptr_t)at(G->normal_force_gradient, s * k * dim * esz);
    S->weight_out = (void *)(uintptr_t)at(G->weight_out, s * esz);
    S->mu_s_out = (void *)(uintptr_t)at(G->mu_s_out, s * esz);
    S->mu_k_out = (void *)(uintptr_t)at(G->mu_k_out, s * esz);
    S->status = NULL;
    S->status_counts = NULL; /* counted by the API layer */
    status[ng] = w->status[g] ? w->status[g] + s : NULL;
    ++ng;
  }
  fricl_build_batch sb = *b;
  sb.n_groups = ng;
  sb.groups = groups;
  sb.report = NULL;
  const fricl__build_work sw = {&sb, status, hi - lo};
  fricl__backend *be = m->dev[d].be;
  const fricl_status st = be->ops->build(be, &sw);
  free(groups);
  free(status);
  return st;
}

static fricl_status multi_build(fricl__backend *be,
                                const fricl__build_work *w) {
  return split_run((fricl__multi *)be, FRICL__FEATURE_BUILD, w->b->precision,
                   w->total, build_part, w);
}

/* The barrier: the host adds the records into the outputs in contact order
 * (core/barrier.h); each chunk's records come from every device at once,
 * each computing a range of the chunk's contacts with the same kernel, so
 * the result is the one device's, bit for bit, on identical devices. */
typedef struct {
  fricl__multi *m;
  void *state[FRICL__MULTI_MAX];
  /* The chunk being computed. */
  const fricl__barrier_work *w;
  size_t g, lo, cuts[FRICL__MULTI_MAX + 1];
  char *rec;
} barrier_multi;

#define BARRIER_REC 157

static fricl_status barrier_part(fricl__multi *m, size_t d, void *arg) {
  barrier_multi *s = arg;
  const size_t a = s->cuts[d], n = s->cuts[d + 1] - a;
  const size_t esz = fricl__elem_bytes(s->w->b->precision);
  return m->dev[d].child->barrier_records(s->state[d], s->w, s->g, s->lo + a, n,
                                          s->rec + a * BARRIER_REC * esz);
}

static fricl_status barrier_records(void *state, const fricl__barrier_work *w,
                                    size_t g, size_t lo, size_t n, void *rec) {
  barrier_multi *s = state;
  fricl__multi *m = s->m;
  fricl__multi_split(m, FRICL__FEATURE_BARRIER, w->b->precision, n, ELEM_ALIGN,
                     s->cuts);
  int active[FRICL__MULTI_MAX];
  for (size_t d = 0; d < m->n; ++d)
    active[d] = s->cuts[d + 1] > s->cuts[d];
  s->w = w;
  s->g = g;
  s->lo = lo;
  s->rec = rec;
  double seconds[FRICL__MULTI_MAX];
  int built[FRICL__MULTI_MAX];
  const fricl_status st =
      fricl__multi_parallel(m, active, barrier_part, s, seconds, built);
  if (st == FRICL_STATUS_OK)
    fricl__multi_measured(m, FRICL__FEATURE_BARRIER, s->cuts, seconds, built);
  return st;
}

static fricl_status multi_barrier(fricl__backend *be,
                                  const fricl__barrier_work *w) {
  fricl__multi *m = (fricl__multi *)be;
  fricl_context *ctx = m->base.ctx;
  if (!w->total)
    return fricl__barrier_host(ctx, w, 0, NULL);
  /* The shape terms and the extras (0.4): on the host threads, as on one
   * device. */
  if (fricl__barrier_host_only(w->b))
    return fricl__barrier_host(ctx, w, 1, NULL);
  barrier_multi s;
  memset(&s, 0, sizeof s);
  s.m = m;
  fricl_status st = FRICL_STATUS_OK;
  for (size_t d = 0; d < m->n && st == FRICL_STATUS_OK; ++d) {
    if (!can_run(&m->dev[d], w->b->precision))
      continue;
    /* The first device reports into the context, as on its own; the
     * others' messages are named by their device. */
    fricl__error_sink *sink = &m->dev[d].sink;
    fricl__sink_clear(sink);
    fricl__error_sink *previous = d > 0 ? fricl__sink_enter(sink) : NULL;
    st = m->dev[d].child->barrier_open(m->dev[d].be, w->b, &s.state[d]);
    if (d > 0)
      fricl__sink_leave(previous);
    if (st != FRICL_STATUS_OK && d > 0)
      st = fricl__fail(ctx, st, "device %zu of %zu (%s): %s", d + 1, m->n,
                       m->dev[d].name, fricl__sink_message(sink));
  }
  if (st == FRICL_STATUS_OK) {
    const fricl__barrier_source src = {barrier_records, &s};
    st = fricl__barrier_host(ctx, w, 0, &src);
  }
  for (size_t d = 0; d < m->n; ++d)
    if (s.state[d])
      m->dev[d].child->barrier_close(s.state[d]);
  return st;
}

static fricl_status prepare_part(fricl__multi *m, size_t d, void *arg) {
  fricl__backend *be = m->dev[d].be;
  return be->ops->prepare ? be->ops->prepare(be, arg) : FRICL_STATUS_OK;
}

static fricl_status multi_prepare(fricl__backend *be,
                                  const fricl__prepare_work *w) {
  fricl__multi *m = (fricl__multi *)be;
  const fricl_precision p =
      w->feature == FRICL__FEATURE_LAWS ? w->law->prec : w->precision;
  int active[FRICL__MULTI_MAX];
  for (size_t d = 0; d < m->n; ++d)
    active[d] = can_run(&m->dev[d], p);
  return fricl__multi_parallel(m, active, prepare_part, (void *)(uintptr_t)w,
                               NULL, NULL);
}

static void multi_destroy(fricl__backend *be) {
  fricl__multi *m = (fricl__multi *)be;
  /* Every device, and the one whose opening failed (m->n counts only the
   * opened ones). */
  for (size_t d = 0; d < FRICL__MULTI_MAX; ++d) {
    if (m->dev[d].be)
      m->dev[d].be->ops->destroy(m->dev[d].be);
    fricl__sink_clear(&m->dev[d].sink);
  }
  free(m->rec_host);
  free(m->part_host);
  free(m);
}

/* The kind of the devices (a list names devices of one kind, checked when
 * it is opened): OpenCL, as the lists name today. */
static const fricl__backend_ops fricl__multi_ops = {
    .name = "opencl",
    .kind = FRICL_BACKEND_OPENCL,
    .scalar = multi_scalar,
    .tangential = fricl__multi_tangential,
    .build = multi_build,
    .laws = multi_laws,
    .barrier = multi_barrier,
    .prepare = multi_prepare,
    .destroy = multi_destroy};

/* ------------------------------------------------------------ creation */

static int multi_spec(const char *spec) {
  return spec && (strchr(spec, ',') || strcmp(spec, "all-gpu") == 0);
}

/* The list's entries, trimmed, into `entries` (at most FRICL__MULTI_MAX).
 * "all-gpu" expands to every GPU. */
static fricl_status parse_list(fricl_context *ctx, const char *spec,
                               char entries[][32], size_t *count) {
  *count = 0;
  if (strcmp(spec, "all-gpu") == 0) {
    /* The first FRICL__MULTI_MAX GPUs, in registry order. */
    for (size_t e = 0; e < ctx->n_backends; ++e)
      if (ctx->backends[e]->gpu_specs)
        *count += ctx->backends[e]->gpu_specs(entries + *count,
                                              FRICL__MULTI_MAX - *count);
    if (!*count)
      return fricl__fail(ctx, FRICL_STATUS_DEVICE_NOT_FOUND,
                         "device \"all-gpu\": no OpenCL GPU found (see "
                         "`fricl devices`)");
    return FRICL_STATUS_OK;
  }
  const char *p = spec;
  for (size_t i = 1;; ++i) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    while (len && (*p == ' ' || *p == '\t')) {
      ++p;
      --len;
    }
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
      --len;
    if (!len)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "device list \"%s\": entry %zu is empty", spec, i);
    if (i > FRICL__MULTI_MAX)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "device list \"%s\": more than %d devices", spec,
                         FRICL__MULTI_MAX);
    if (len >= 32)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "device list \"%s\": entry %zu (\"%.*s\") is not a "
                         "device spec",
                         spec, i, (int)len, p);
    memcpy(entries[i - 1], p, len);
    entries[i - 1][len] = '\0';
    const char *e = entries[i - 1];
    if (strcmp(e, "auto") == 0 || strcmp(e, "host") == 0 ||
        strcmp(e, "reference") == 0 || strcmp(e, "all-gpu") == 0)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "device list \"%s\": entry %zu (\"%s\") is not one "
                         "OpenCL device: a list takes gpu, cpu and "
                         "opencl:<platform>:<device>",
                         spec, i, e);
    *count = i;
    if (!end)
      break;
    p = end + 1;
  }
  return FRICL_STATUS_OK;
}

/* FRICL_MULTI_SHARES=w0,w1,...: one positive weight per device. */
static fricl_status pinned_shares(fricl_context *ctx, fricl__multi *m) {
  const char *s = getenv("FRICL_MULTI_SHARES");
  if (!s || !*s)
    return FRICL_STATUS_OK;
  size_t d = 0;
  int ok = 1;
  for (const char *p = s;;) {
    char *end = NULL;
    const double v = strtod(p, &end);
    if (end == p || !(v > 0) || !isfinite(v) || d >= m->n) {
      ok = 0;
      break;
    }
    m->dev[d++].pinned = v;
    if (*end == '\0')
      break;
    if (*end != ',') {
      ok = 0;
      break;
    }
    p = end + 1;
  }
  if (ok && d == m->n)
    return FRICL_STATUS_OK;
  for (size_t i = 0; i < m->n; ++i)
    m->dev[i].pinned = 0;
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "FRICL_MULTI_SHARES=\"%s\": expected %zu positive "
                     "numbers separated by commas, one per device",
                     s, m->n);
}

/* Device d of the list, a backend from the context's registry that serves
 * ctx; its messages go into its error sink, and then name its entry. */
static fricl_status open_device(fricl_context *ctx, fricl__multi *m, size_t d,
                                const char *list, const char *spec) {
  fricl__multi_dev *v = &m->dev[d];
  fricl__backend *be = NULL;
  fricl__sink_clear(&v->sink);
  fricl__error_sink *previous = fricl__sink_enter(&v->sink);
  fricl_status st = fricl__backend_child(ctx, spec, &be);
  fricl__sink_leave(previous);
  if (st != FRICL_STATUS_OK)
    return fricl__fail(ctx, st, "device list \"%s\", entry %zu: %s", list,
                       d + 1, fricl__sink_message(&v->sink));
  v->be = be; /* destroyed with the list from here on */
  if (!be->ops->child || be->primary)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "device list \"%s\": entry %zu (\"%s\") is not one "
                       "device a list can split calls over",
                       list, d + 1, spec);
  v->child = be->ops->child;
  fricl__child_info info;
  v->child->info(be, &info);
  v->name = info.name;
  snprintf(v->label, sizeof v->label, "%s", info.label);
  v->platform_index = info.platform_index;
  v->device_index = info.device_index;
  v->estimate = info.estimate;
  v->is_cpu = info.is_cpu;
  /* Two entries naming one device would split its work with itself. */
  for (size_t j = 0; j < d; ++j)
    if (strcmp(m->dev[j].label, v->label) == 0)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "device list \"%s\": entries %zu and %zu (\"%s\") "
                         "name the same device, %s",
                         list, j + 1, d + 1, spec, v->label);
  return FRICL_STATUS_OK;
}

static fricl_status multi_create(fricl_context *ctx, const char *spec,
                                 int *found, fricl__backend **out) {
  *out = NULL;
  *found = 0;
  char entries[FRICL__MULTI_MAX][32];
  size_t n = 0;
  fricl_status st = parse_list(ctx, spec, entries, &n);
  if (st != FRICL_STATUS_OK)
    return st;
  if (n == 1) { /* all-gpu with one GPU: that device alone */
    st = fricl__backend_child(ctx, entries[0], out);
    *found = st == FRICL_STATUS_OK;
    return st;
  }
  fricl__multi *m = fricl__calloc(1, sizeof *m);
  if (!m)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  m->base.ops = &fricl__multi_ops;
  m->base.ctx = ctx;
  for (size_t i = 0; i < n && st == FRICL_STATUS_OK; ++i) {
    st = open_device(ctx, m, i, spec, entries[i]);
    m->n = i + 1;
  }
  if (st == FRICL_STATUS_OK)
    st = pinned_shares(ctx, m);
  if (st != FRICL_STATUS_OK) {
    multi_destroy(&m->base);
    return st;
  }
  uint64_t max_alloc = 0;
  m->shared_cores = 1;
  for (size_t d = 0; d < n; ++d) {
    const fricl__backend *be = m->dev[d].be;
    m->shared_cores &= m->dev[d].is_cpu;
    m->base.has_fp64 |= be->has_fp64;
    if (!max_alloc || (be->max_alloc_bytes && be->max_alloc_bytes < max_alloc))
      max_alloc = be->max_alloc_bytes;
  }
  m->base.max_alloc_bytes = max_alloc;
  m->base.primary = m->dev[0].be;
  int off =
      snprintf(ctx->device_name, sizeof ctx->device_name, "%zu devices: ", n);
  for (size_t d = 0; d < n && off > 0 && (size_t)off < sizeof ctx->device_name;
       ++d)
    off +=
        snprintf(ctx->device_name + off, sizeof ctx->device_name - off,
                 "%s%s (%s)", d ? " + " : "", m->dev[d].name, m->dev[d].label);
  *found = 1;
  *out = &m->base;
  return FRICL_STATUS_OK;
}

/* A list's questions go to its first device. */
static int multi_is_gpu(const fricl__backend *be) {
  fricl__child_info info;
  const fricl__multi_dev *v = &((const fricl__multi *)be)->dev[0];
  v->child->info(v->be, &info);
  return info.is_gpu;
}

static const char *multi_device_name(const fricl__backend *be) {
  return ((const fricl__multi *)be)->dev[0].name;
}

const fricl__backend_entry fricl__multi_backend = {.name = "device list",
                                                   .mode = FRICL__MODE_OPENCL,
                                                   .accepts = multi_spec,
                                                   .create = multi_create,
                                                   .is_gpu = multi_is_gpu,
                                                   .device_name =
                                                       multi_device_name};

/* --------------------------------------------------------------- query */

static void describe(fricl_context_device *info, const fricl__child_info *c) {
  memset(info, 0, sizeof *info);
  info->platform_index = c->platform_index;
  info->device_index = c->device_index;
  info->feature_count = FRICL__FEATURE_COUNT;
  snprintf(info->device_name, sizeof info->device_name, "%s", c->name);
}

fricl_status fricl__multi_context_devices(const fricl_context *cctx,
                                          fricl_context_device *infos,
                                          size_t info_size, size_t capacity,
                                          size_t *count) {
  if (!cctx || !count || (capacity && !infos))
    return FRICL_STATUS_INVALID_ARGUMENT;
  /* Filled in full here, then written at the caller's stride and size. */
  unsigned char *out = (unsigned char *)infos;
  fricl_context_device info;
  fricl__child_info c;
  fricl_context *ctx = (fricl_context *)(uintptr_t)cctx;
  fricl__resolve_device(ctx); /* "auto": a cache fill */
  *count = 0;
  if (!ctx->dev)
    return FRICL_STATUS_OK;
  if (ctx->dev->ops != &fricl__multi_ops) {
    if (!ctx->dev->ops->child)
      return FRICL_STATUS_OK;
    *count = 1;
    if (capacity) {
      ctx->dev->ops->child->info(ctx->dev, &c);
      describe(&info, &c);
      for (int f = 0; f < FRICL__FEATURE_COUNT; ++f)
        info.share[f] = 1.0;
      fricl__struct_out(out, info_size, &info, sizeof info);
    }
    return FRICL_STATUS_OK;
  }
  fricl__multi *m = (fricl__multi *)ctx->dev;
  *count = m->n;
  double w[FRICL__FEATURE_COUNT][FRICL__MULTI_MAX];
  for (int f = 0; f < FRICL__FEATURE_COUNT; ++f)
    /* Shares of f64 calls (f32 where no device has fp64). */
    fricl__multi_shares(m, (fricl__feature)f,
                        m->base.has_fp64 ? FRICL_F64 : FRICL_F32, w[f]);
  for (size_t d = 0; d < m->n && d < capacity; ++d) {
    m->dev[d].child->info(m->dev[d].be, &c);
    describe(&info, &c);
    for (int f = 0; f < FRICL__FEATURE_COUNT; ++f) {
      info.share[f] = w[f][d];
      info.items_per_second[f] = m->dev[d].rate[f];
    }
    fricl__struct_out(out + d * info_size, info_size, &info, sizeof info);
  }
  return FRICL_STATUS_OK;
}

void fricl__multi_context_transfers(const fricl_context *ctx,
                                    uint64_t *to_device,
                                    uint64_t *from_device) {
  uint64_t in = 0, out = 0;
  const fricl__backend *be = ctx ? ctx->dev : NULL;
  const fricl__multi *m =
      be && be->ops == &fricl__multi_ops ? (const fricl__multi *)be : NULL;
  const size_t n = m ? m->n : be && be->ops->child ? 1 : 0;
  for (size_t d = 0; d < n; ++d) {
    const fricl__backend *child = m ? m->dev[d].be : be;
    fricl__child_info c;
    child->ops->child->info(child, &c);
    in += c.moved_in;
    out += c.moved_out;
  }
  if (to_device)
    *to_device = in;
  if (from_device)
    *from_device = out;
}
