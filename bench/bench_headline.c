/* bench_headline.c - see bench_headline.h. The rows:
 *   tangential FV f64, potential + gradient + global Hessian (PSD clamp,
 *     plan reused) at --contacts contacts (default 10^6): throughput, % of
 *     the copy roofline of the backend that ran it, x the C reference;
 *   the same at 10 contacts: the per-call latency (a small Newton step);
 *   the barrier, FV f64, potential + gradient + global Hessian (PSD clamp)
 *     at --contacts contacts, x the C reference.
 * The tangential rows are those of the contacts suite (bench_contacts.c),
 * the barrier row that of the barrier suite (bench_barrier.c). */
#include "bench_headline.h"

#include <stdio.h>

#include "bench_barrier.h"
#include "bench_contacts.h"
#include "bench_json.h"

#define HL_LATENCY_CONTACTS 10

static void hl_time(char *buf, size_t size, double s) {
  if (s < 1e-3)
    snprintf(buf, size, "%.1f us", s * 1e6);
  else if (s < 1)
    snprintf(buf, size, "%.2f ms", s * 1e3);
  else
    snprintf(buf, size, "%.2f s", s);
}

static void hl_print(const bench_options *o, const char *what, size_t count,
                     const char *ran_on, double t, double pct_copy,
                     double x_ref) {
  char tb[32], pc[16], xr[16];
  hl_time(tb, sizeof tb, t);
  if (pct_copy > 0)
    snprintf(pc, sizeof pc, "%.1f", pct_copy);
  else
    snprintf(pc, sizeof pc, "-");
  snprintf(xr, sizeof xr, "%.2f", x_ref);
  if (o->markdown)
    printf("| %s | %zu | %s | %s | %.3g | %s | %s |\n", what, count, ran_on, tb,
           (double)count / t, pc, xr);
  else
    printf("%-40s %9zu %-9s %10s %11.3g %7s %8s\n", what, count, ran_on, tb,
           (double)count / t, pc, xr);
  fflush(stdout);
}

int bench_headline_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref) {
  const size_t n = o->contacts;
  fprintf(stderr, "fricl bench headline: %zu contacts, %d repeats\n", n,
          o->repeats);
  printf("\n%sHeadline (%s, f64, PSD clamp; %% copy: of the copy roofline "
         "on the backend that ran the row; x C ref: the single-thread C "
         "reference's time over this one's):\n%s",
         o->markdown ? "### " : "", fricl_context_device_name(ctx),
         o->markdown ? "\n" : "");
  if (o->markdown)
    printf("| row | contacts | ran on | time/call | contacts/s | %% copy | "
           "x C ref |\n|:--|--:|:--|--:|--:|--:|--:|\n");
  else
    printf("%-40s %9s %-9s %10s %11s %7s %8s\n", "row", "contacts", "ran on",
           "time/call", "contacts/s", "% copy", "x C ref");
  if (!fricl_context_has_fp64(ctx)) {
    printf("(no rows: %s has no fp64)\n", fricl_context_device_name(ctx));
    return 0;
  }
  const size_t sizes[2] = {n, HL_LATENCY_CONTACTS};
  for (int i = 0; i < 2; ++i) {
    bench_contact_row r;
    if (bench_contacts_one(o, ctx, ref, FRICL_STENCIL_FV, FRICL_F64,
                           BENCH_EVAL_GLOBAL, sizes[i], &r))
      return 1;
    const double esz = 8;
    const double gbs = r.bytes / r.time.median * 1e-9;
    const double copy = 2.0 * (double)r.copy_n * esz / r.copy.median * 1e-9;
    char ran[24];
    if (r.backend == FRICL_BACKEND_HOST)
      snprintf(ran, sizeof ran, "host/%u", r.threads);
    else
      snprintf(ran, sizeof ran, "%s", bench_backend_label(r.backend));
    hl_print(o,
             i == 0 ? "tangential FV pot+grad+global H"
                    : "tangential FV pot+grad+global H latency",
             r.count, ran, r.time.median, i == 0 ? 100 * gbs / copy : 0,
             r.ref.median / r.time.median);
  }
  const int repeats = o->repeats > 0 ? o->repeats : 3;
  double tb = 0, tr = 0;
  if (bench_barrier_global(ctx, FRICL_STENCIL_FV, n, repeats, &tb))
    return 1;
  char ran[24];
  snprintf(ran, sizeof ran, "%s",
           bench_backend_label(fricl_context_last_backend(ctx)));
  if (bench_barrier_global(ref, FRICL_STENCIL_FV, n, repeats, &tr))
    return 1;
  hl_print(o, "barrier FV pot+grad+global H", n, ran, tb, 0, tr / tb);
  return 0;
}
