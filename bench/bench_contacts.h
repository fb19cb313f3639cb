/*
 * bench_contacts.h - the per-contact tangential rows of `fricl bench`:
 * face-vertex and edge-edge contacts (bench_scene.h), every output mode,
 * f64 and f32. Each row times fricl_tangential_eval on the context under
 * test (host arrays, end to end: what a solver gets), the single-thread C
 * reference on the same batch, and the copy roofline of the backend that
 * ran the row (bench_roof.h), interleaved in one run.
 */
#ifndef FRICL_BENCH_CONTACTS_H
#define FRICL_BENCH_CONTACTS_H

#include <stdio.h>

#include "bench_scene.h"
#include "bench_types.h"

typedef struct bench_contact_row {
  fricl_stencil type;
  fricl_precision prec;
  bench_eval_mode mode;
  size_t count;
  fricl_backend backend; /* what ran it */
  unsigned threads;      /* host threads of that backend; 0 for OpenCL */
  double bytes;          /* compulsory bytes of one evaluation */
  size_t copy_n;         /* elements of the roofline copy */
  bench_stats time, ref, copy;
} bench_contact_row;

#define BENCH_CONTACT_ROWS (2 * 2 * BENCH_EVAL_MODE_COUNT)

typedef struct bench_contacts_result {
  bench_contact_row rows[BENCH_CONTACT_ROWS];
  size_t nrows;
} bench_contacts_result;

/* Time every (stencil, precision, outputs) row over `count` contacts and
 * print the table. 0 on success. */
int bench_contacts_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, size_t count,
                       bench_contacts_result *res);

/* One row of that table on its own (the headline suite): `count` contacts
 * of `type`, precision p, outputs md, with its copy roofline and the C
 * reference (ref). 0 on success. */
int bench_contacts_one(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, fricl_stencil type,
                       fricl_precision p, bench_eval_mode md, size_t count,
                       bench_contact_row *row);

/* "contacts": [...] (a member of the --json object). */
void bench_contacts_json(FILE *f, const bench_contacts_result *res);

#endif
