/* build_input.h - the lagged-build part of the CLI, shared by `fricl build`
 * and `fricl tangential --build`: read the build's input arrays from an
 * .npz archive (schema checks naming the array), run fricl_build, write its
 * per-type output arrays. */
#ifndef FRICL_CLI_BUILD_INPUT_H
#define FRICL_CLI_BUILD_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fricl/fricl.h"
#include "npz.h"

#define BUILD_N_TYPES 5

/* One stencil type's contacts: inputs converted to the working precision
 * and outputs, all owned (NULL when absent). The outputs have exactly the
 * layout of a fricl_contact_group's inputs. */
typedef struct build_type {
  int present;
  fricl_stencil type;
  const char *tname;
  size_t m, k, nb;
  int32_t *ids;
  void *plane_normal, *plane_offset, *dmin, *weight, *mu_s, *mu_k;
  void *cp, *basis, *normal, *weight_out, *mu_s_out, *mu_k_out;
  uint8_t *status;
} build_type;

typedef struct build_input {
  const char *cmd;  /* "fricl build", for messages */
  const char *path; /* the input archive, for messages */
  fricl_precision precision;
  int dim;
  size_t n;
  void *lagged, *rest;
  double kappa, dhat, dmin, mu_s, mu_k;
  void *vertex_mu_s, *vertex_mu_k;
  build_type g[BUILD_N_TYPES];
  fricl_build_report report;
} build_input;

/*
 * Read and check the build input of @p in into @p b, which the caller has
 * zeroed and given cmd, path and precision. Names in the NULL-terminated @p
 * extra are accepted (and ignored) besides the build schema; any other name is
 * an error. Output arrays are allocated.
 * @return 0, 2 (bad input, one line on stderr naming the array) or 1 (out
 * of memory).
 */
int build_input_read(build_input *b, const npz_archive *in,
                     const char *const *extra);

/* Run fricl_build on every present type (b->report is filled). */
fricl_status build_input_run(fricl_context *ctx, build_input *b,
                             fricl_mu_blend blend, int physical_barrier);

/* The batch build_input_run passes (groups: BUILD_N_TYPES entries, the
 * present types first; the report is b->report). */
void build_input_batch(build_input *b, fricl_mu_blend blend,
                       int physical_barrier, fricl_build_batch *batch,
                       fricl_build_group *groups);

/* Append the output arrays (per present type T: T, T_closest_point,
 * T_tangent_basis, T_normal_force, T_mu_s, T_mu_k, T_weight, T_status; then
 * status_counts). */
npy_status build_input_write(npz_writer *w, const build_input *b,
                             npy_error *err);

/* One line per status other than ok that some contact has (verbose). */
void build_input_report(const build_input *b, FILE *f);

void build_input_free(build_input *b);

#endif
