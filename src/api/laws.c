/* laws.c - the public entry points of the friction laws (host tier):
 * validation (always before any work) into a plan, and dispatch to a
 * backend. The checks the cl_mem tier shares are in laws_checks.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/laws_checks.h"
#include "core/backend.h"

/* " (in float32)" when a batch scalar changed on its way to the working
 * precision (f32 rounding, overflow to inf), for error messages; "" when
 * it did not, NaN included (NaN != NaN is not a conversion). */
static const char *f32_note(double given, double used) {
  return given != used && !(isnan(given) && isnan(used)) ? " (in float32)" : "";
}

void fricl_law_batch_init(fricl_law_batch *batch, fricl_law law) {
  if (fricl__struct_init(batch, sizeof *batch))
    FRICL__LAW_BATCH_DEFAULTS(batch, law);
}

/* ------------------------------------------------------------ values */

#define rule_ok fricl__rule_ok
#define rule_text fricl__rule_text
#define in_precision fricl__in_precision

/* The normal force in an array: NaN propagates, +-inf and the sign rule
 * are rejected. */
static int normal_ok(fricl__law_rule r, double v) {
  if (isnan(v))
    return 1;
  return rule_ok(r, v);
}

#define elem fricl__real_at

/* ------------------------------------------------------- common checks */

#define FAIL(...) fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

fricl_status fricl__law_check_view(fricl_context *ctx, const fricl__law_view *w,
                                   int stepping, fricl__law_plan *pl) {
  if (w->prec != FRICL_F64 && w->prec != FRICL_F32)
    return FAIL("batch.precision %d is not FRICL_F64 or FRICL_F32",
                (int)w->prec);
  const fricl__law_meta *meta = fricl__law_meta_get(w->law);
  if (!meta)
    return FAIL("batch.law %d is not a fricl_law", (int)w->law);
  const fricl_law_info *info = &meta->info;
  const fricl_status pst = fricl__check_precision(ctx, w->prec);
  if (pst != FRICL_STATUS_OK)
    return pst;
  if (w->options & ~info->options) {
    const uint32_t bad = w->options & ~info->options;
    const char *nm = fricl_law_option_name(bad & (~bad + 1u));
    return FAIL("batch.options 0x%x: %s%s is not an option of %s",
                (unsigned)w->options, nm ? "option " : "unknown bits",
                nm ? nm : "", info->name);
  }
  memset(pl, 0, sizeof *pl);
  pl->prec = w->prec;
  pl->law = w->law;
  pl->options = w->options;
  pl->stepping = stepping;
  pl->n = w->n;
  pl->n_steps = stepping ? w->n_steps : 1;
  pl->m = 1;
  pl->nrm_mode = -1;
  if (!stepping && w->n_steps != 1)
    return FAIL("batch.n_steps = %zu: fricl_law_eval takes one sample per "
                "element (n_steps = 1); use fricl_law_step for trajectories",
                w->n_steps);
  if (stepping && w->n_steps < 1)
    return FAIL("batch.n_steps = 0: fricl_law_step needs n_steps >= 1");
  if (info->ode_state && stepping) {
    if ((int)w->integ < 0 || (int)w->integ > FRICL_INTEGRATOR_EXP)
      return FAIL("batch.integrator %d is not euler (0), rk4 (1) or exp (2)",
                  (int)w->integ);
    if (w->integ == FRICL_INTEGRATOR_EXP && w->law != FRICL_LAW_LUGRE)
      return FAIL("batch.integrator exp is the exact LuGre update; %s takes "
                  "euler or rk4",
                  info->name);
    const double h = in_precision(w->prec, w->h);
    if (!(isfinite(h) && h > 0.0))
      return FAIL("batch.h = %g%s is invalid: the time step must be finite "
                  "and > 0",
                  w->h, f32_note(w->h, h));
    pl->h = h;
    pl->integ = (int)w->integ;
  }
  if (w->law == FRICL_LAW_GMS) {
    if (w->gms_elements < 1 || w->gms_elements > FRICL_GMS_MAX_ELEMENTS)
      return FAIL("batch.gms_elements = %zu: GMS needs 1 to %d elements per "
                  "contact",
                  w->gms_elements, FRICL_GMS_MAX_ELEMENTS);
    pl->m = w->gms_elements;
    pl->has_ge = 1;
    pl->ge_per_element = w->ge_per_element != 0;
    if (w->n > 0 && !w->ge)
      return FAIL("batch.gms_params is NULL: GMS needs (k, b, nu) for each "
                  "of its %zu elements",
                  pl->m);
  }
  pl->state = (size_t)info->state_size * (w->law == FRICL_LAW_GMS ? pl->m : 1);
  /* Sizes: every array must be addressable. */
  const size_t esz = fricl__elem_bytes(w->prec);
  const size_t per_elem_max =
      pl->n_steps > pl->state * 3 ? pl->n_steps : pl->state * 3 + 3;
  if (w->n > 0 && (w->n > SIZE_MAX / esz / per_elem_max))
    return FAIL("batch.n = %zu x n_steps = %zu elements do not fit in memory",
                w->n, pl->n_steps);
  /* Inputs the law reads. */
  pl->has_v = info->uses_velocity;
  pl->has_x = info->uses_position;
  if (w->n > 0 && info->uses_velocity && !w->v)
    return FAIL("batch.v is NULL with n = %zu: %s reads velocities", w->n,
                info->name);
  if (w->n > 0 && info->uses_position && !w->x)
    return FAIL("batch.x is NULL with n = %zu: %s reads positions", w->n,
                info->name);
  if (info->uses_normal) {
    if (w->normal) {
      if (w->normal_per_step && !stepping)
        return FAIL("batch.normal_per_step is only for fricl_law_step");
      pl->nrm_mode = w->normal_per_step ? 2 : 1;
    } else {
      pl->nrm_mode = 0;
      const double nf = in_precision(w->prec, w->normal_force);
      if (isnan(w->normal_force))
        return FAIL("batch.normal_force is required by %s: it is NaN, the "
                    "value for \"not given\" (give a finite one or the "
                    "batch.normal array)",
                    info->name);
      if (!rule_ok(meta->normal_rule, nf))
        return FAIL("batch.normal_force = %g%s is invalid for %s: it must be "
                    "%s",
                    w->normal_force, f32_note(w->normal_force, nf), info->name,
                    rule_text(meta->normal_rule));
      pl->normal_force = nf;
    }
  }
  /* Outputs. */
  if (info->state_size == 0 && w->state_out)
    return FAIL("batch.state_out is set but %s has no state", info->name);
  if (info->state_size == 0 && w->state)
    return FAIL("batch.state is set but %s has no state", info->name);
  if (info->ode_state && !stepping && w->state_out)
    return FAIL("batch.state_out must be NULL: fricl_law_eval does not "
                "advance the %s state (use fricl_law_step)",
                info->name);
  if (w->dstate && !(info->ode_state && !stepping))
    return FAIL("batch.dstate is only written by fricl_law_eval for lugre "
                "and gms");
  if (!w->force && !w->state_out && !w->dstate)
    return FAIL("no output: set batch.force%s",
                info->state_size ? ", state_out or dstate" : "");
  pl->has_state = w->state != 0;
  pl->has_state_out = w->state_out != 0;
  pl->in_place = w->same_state;
  pl->has_force = w->force != 0;
  pl->has_dstate = w->dstate != 0;
  /* Batch-scalar parameters (arrays are checked by the host tier). */
  for (int k = 0; k < info->param_count; ++k) {
    if (w->param_array[k]) {
      pl->param_arrays |= 1u << k;
      continue;
    }
    const double raw = w->param[k];
    const double p = in_precision(w->prec, raw);
    const char *nm = info->params[k].name;
    if (isnan(raw) && isnan(info->params[k].default_value))
      return FAIL("parameter %s of %s is NaN, the value for \"not given\": "
                  "it is required (param[%d]; no default) and must be finite",
                  nm, info->name, k);
    if (!rule_ok(meta->rule[k], p))
      return FAIL("parameter %s = %g%s of %s is invalid: it must be %s", nm,
                  raw, f32_note(raw, p), info->name, rule_text(meta->rule[k]));
    pl->param[k] = p;
  }
  for (int k = info->param_count; k < FRICL_LAW_MAX_PARAMS; ++k)
    if (w->param_array[k])
      return FAIL("batch.param_array[%d] is set but %s has %d parameters", k,
                  info->name, info->param_count);
  /* Cross-parameter rule of RegularizedFriction (scalars here). */
  if (w->law == FRICL_LAW_EXUDYN_REGULARIZED && !w->param_array[2] &&
      !w->param_array[3] && pl->param[2] > pl->param[3])
    return FAIL("parameter velStatic = %g > velDynamic = %g of "
                "exudyn_regularized: velStatic must be <= velDynamic",
                pl->param[2], pl->param[3]);
  pl->alpha2 = 0;
  if ((w->law == FRICL_LAW_LUGRE || w->law == FRICL_LAW_GMS) &&
      !w->param_array[6] && pl->param[6] == 2.0)
    pl->alpha2 = 1;
  return FRICL_STATUS_OK;
}

/* -------------------------------------------------------- host arrays */

static fricl_status check_param_arrays(fricl_context *ctx,
                                       const fricl__law_plan *pl,
                                       const fricl_law_batch *b) {
  const fricl__law_meta *meta = fricl__law_meta_get(pl->law);
  const fricl_law_info *info = &meta->info;
  if (pl->n == 0)
    return FRICL_STATUS_OK; /* n = 0 reads no array */
  for (int k = 0; k < info->param_count; ++k) {
    const void *a = b->param_array[k];
    if (!a)
      continue;
    for (size_t i = 0; i < pl->n; ++i) {
      const double p = elem(pl->prec, a, i);
      if (!rule_ok(meta->rule[k], p))
        return FAIL("parameter %s of %s: param_array[%d][%zu] = %g is "
                    "invalid: it must be %s (first bad index)",
                    info->params[k].name, info->name, k, i, p,
                    rule_text(meta->rule[k]));
    }
  }
  if (pl->law == FRICL_LAW_EXUDYN_REGULARIZED &&
      (b->param_array[2] || b->param_array[3])) {
    for (size_t i = 0; i < pl->n; ++i) {
      const double vs = b->param_array[2] ? elem(pl->prec, b->param_array[2], i)
                                          : pl->param[2];
      const double vd = b->param_array[3] ? elem(pl->prec, b->param_array[3], i)
                                          : pl->param[3];
      if (vs > vd)
        return FAIL("parameter velStatic = %g > velDynamic = %g of "
                    "exudyn_regularized at index %zu (first bad index): "
                    "velStatic must be <= velDynamic",
                    vs, vd, i);
    }
  }
  if (pl->nrm_mode == 1 || pl->nrm_mode == 2) {
    const size_t cnt = pl->nrm_mode == 2 ? pl->n * pl->n_steps : pl->n;
    for (size_t i = 0; i < cnt; ++i) {
      const double v = elem(pl->prec, b->normal, i);
      if (!normal_ok(meta->normal_rule, v))
        return FAIL("normal[%zu] = %g is invalid for %s: it must be %s or "
                    "NaN (first bad index)",
                    i, v, info->name, rule_text(meta->normal_rule));
    }
  }
  if (pl->has_ge) {
    const size_t rows = pl->ge_per_element ? pl->n : 1;
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < 3 * pl->m; ++j) {
        const double v = elem(pl->prec, b->gms_params, r * 3 * pl->m + j);
        static const char *const nm[3] = {"k", "b", "nu"};
        const int is_nu = j % 3 == 2;
        if (!(isfinite(v) && (!is_nu || v > 0.0)))
          return FAIL("gms_params[%zu] (%s_%zu%s%zu) = %g is invalid: it "
                      "must be finite%s (first bad index)",
                      r * 3 * pl->m + j, nm[j % 3], j / 3 + 1,
                      pl->ge_per_element ? " of element " : "",
                      pl->ge_per_element ? r : (size_t)0, v,
                      is_nu ? " and > 0" : "");
      }
  }
  return FRICL_STATUS_OK;
}

static fricl_status check_overlaps(fricl_context *ctx,
                                   const fricl__law_plan *pl,
                                   const fricl_law_batch *b) {
  const size_t esz = fricl__elem_bytes(pl->prec);
  const size_t per_step = pl->n * pl->n_steps * esz;
  const size_t per_elem = pl->n * esz;
  const size_t state = pl->n * pl->state * esz;
  struct {
    const void *p;
    size_t bytes;
    const char *name;
  } in[6 + FRICL_LAW_MAX_PARAMS], out[3];
  int nin = 0, nout = 0;
#define ADD(arr, cnt, ptr, sz, nm)                                             \
  do {                                                                         \
    if ((ptr) && (sz) > 0) {                                                   \
      arr[cnt].p = (ptr);                                                      \
      arr[cnt].bytes = (sz);                                                   \
      arr[cnt].name = (nm);                                                    \
      ++cnt;                                                                   \
    }                                                                          \
  } while (0)
  ADD(in, nin, pl->has_v ? b->v : NULL, per_step, "v");
  ADD(in, nin, pl->has_x ? b->x : NULL, per_step, "x");
  ADD(in, nin, pl->nrm_mode > 0 ? b->normal : NULL,
      pl->nrm_mode == 2 ? per_step : per_elem, "normal");
  ADD(in, nin, pl->has_ge ? b->gms_params : NULL,
      (pl->ge_per_element ? pl->n : 1) * 3 * pl->m * esz, "gms_params");
  ADD(in, nin, pl->in_place ? NULL : b->state, state, "state");
  static const char *const pn[FRICL_LAW_MAX_PARAMS] = {
      "param_array[0]", "param_array[1]", "param_array[2]", "param_array[3]",
      "param_array[4]", "param_array[5]", "param_array[6]", "param_array[7]"};
  for (int k = 0; k < FRICL_LAW_MAX_PARAMS; ++k)
    ADD(in, nin, (pl->param_arrays >> k) & 1u ? b->param_array[k] : NULL,
        per_elem, pn[k]);
  ADD(out, nout, b->force, per_step, "force");
  ADD(out, nout, b->state_out, state, "state_out");
  ADD(out, nout, b->dstate, state, "dstate");
#undef ADD
  for (int o = 0; o < nout; ++o) {
    for (int i = 0; i < nin; ++i)
      if (fricl__overlaps(out[o].p, out[o].bytes, in[i].p, in[i].bytes))
        return FAIL("batch.%s overlaps input %s: inputs are never written "
                    "(only state_out == state updates in place)",
                    out[o].name, in[i].name);
    if (pl->in_place && out[o].p != b->state_out &&
        fricl__overlaps(out[o].p, out[o].bytes, b->state, state))
      return FAIL("batch.%s overlaps the state", out[o].name);
    for (int u = o + 1; u < nout; ++u)
      if (fricl__overlaps(out[o].p, out[o].bytes, out[u].p, out[u].bytes))
        return FAIL("batch.%s overlaps batch.%s", out[o].name, out[u].name);
  }
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------- entry points */

/* The host tier's arrays are pointers. */
#define PRESENT(a) ((a) != NULL)
#define SAME(a, b) ((a) == (b))

/* The entry of the host tier: *b read over its law's defaults into *in
 * (and pointed at it), and its view. */
static fricl_status enter(fricl_context *ctx, const fricl_law_batch **b,
                          fricl_law_batch *in, fricl__law_view *w) {
  const fricl_law_batch *caller = *b;
  FRICL__TRY(fricl__enter(ctx, caller, "batch is NULL"));
  FRICL__LAW_STRUCT_IN(ctx, fricl_law_batch, caller, read,
                       FRICL__MIN_LAW_BATCH);
  *in = read;
  *b = in;
  FRICL__LAW_VIEW(w, in, PRESENT, SAME);
  return FRICL_STATUS_OK;
}

static fricl_status run_host(fricl_context *ctx, const fricl_law_batch *b,
                             int stepping) {
  fricl_law_batch in;
  fricl__law_view w;
  FRICL__TRY(enter(ctx, &b, &in, &w));
  fricl__law_plan pl;
  fricl_status st = fricl__law_check_view(ctx, &w, stepping, &pl);
  if (st == FRICL_STATUS_OK)
    st = check_param_arrays(ctx, &pl, b);
  if (st == FRICL_STATUS_OK)
    st = check_overlaps(ctx, &pl, b);
  if (st != FRICL_STATUS_OK || b->n == 0)
    return st;
  const fricl__laws_work work = {&pl, b};
  FRICL__DISPATCH_RUN(ctx, FRICL__FEATURE_LAWS, pl.n * pl.n_steps * pl.m,
                      pl.prec, laws, &work);
}

fricl_status fricl_law_eval(fricl_context *ctx, const fricl_law_batch *batch) {
  return run_host(ctx, batch, 0);
}

fricl_status fricl_law_step(fricl_context *ctx, const fricl_law_batch *batch) {
  return run_host(ctx, batch, 1);
}

fricl_status fricl_law_prepare(fricl_context *ctx, const fricl_law_batch *b,
                               int stepping) {
  fricl_law_batch in;
  fricl__law_view w;
  FRICL__TRY(enter(ctx, &b, &in, &w));
  w.n = 0; /* only the shape matters */
  fricl__law_plan pl;
  FRICL__TRY(fricl__law_check_view(ctx, &w, stepping != 0, &pl));
  /* The backend a large call would run on (small calls need nothing). */
  fricl__backend *be = NULL;
  fricl_status st =
      fricl__dispatch(ctx, FRICL__FEATURE_LAWS, SIZE_MAX - 1, pl.prec, &be);
  if (st != FRICL_STATUS_OK || !be->ops->prepare)
    return st;
  fricl__prepare_work pw;
  memset(&pw, 0, sizeof pw);
  pw.feature = FRICL__FEATURE_LAWS;
  pw.precision = pl.prec;
  pw.law = &pl;
  return be->ops->prepare(be, &pw);
}
