/* barrier_input.h - the input of `fricl barrier`: the build schema with
 * positions in place of lagged_positions, read from an .npz archive with
 * every array checked (one line naming the array on bad input). */
#ifndef FRICL_CLI_BARRIER_INPUT_H
#define FRICL_CLI_BARRIER_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "fricl/fricl_barrier.h"
#include "npz.h"

#define BARRIER_N_TYPES 5

typedef struct barrier_type {
  int present;
  fricl_stencil type;
  const char *tname;
  size_t m, k, nb; /* nb: unused, the schema reader sets it */
  int32_t *ids;
  void *weight, *dmin, *plane_normal, *plane_offset; /* NULL: absent */
  int8_t *dtype;                                     /* NULL: absent */
} barrier_type;

typedef struct barrier_input {
  const char *path; /* for messages */
  fricl_precision precision;
  int dim;
  size_t n;
  void *positions, *rest;
  double dhat, kappa, dmin;
  /* --function adhesion's parameters (0: absent) */
  double dhat_p, Y, eps_c;
  barrier_type g[BARRIER_N_TYPES];
} barrier_input;

/* Read @p in into @p b (zeroed by the caller, path and precision set).
 * @return 0, 2 (bad input, one line on stderr) or 1 (out of memory). */
int barrier_input_read(barrier_input *b, const npz_archive *in);

void barrier_input_free(barrier_input *b);

#endif
