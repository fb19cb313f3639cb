/* tangential_input.h - the input of `fricl tangential` (and of `fricl-mpi
 * tangential`, which links this file): read a contact set from an .npz
 * archive and check it against the schema, with one line naming the array
 * at fault for every bad input. */
#ifndef FRICL_CLI_TANGENTIAL_INPUT_H
#define FRICL_CLI_TANGENTIAL_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "build_input.h"
#include "fricl/fricl.h"
#include "npz.h"

#define TANGENTIAL_N_TYPES 5

/* One stencil type's contacts, converted to the working precision: owned,
 * or with --build borrowed from the build's outputs. */
typedef struct tangential_group {
  int present;
  int borrowed; /* the arrays belong to tangential_input.build */
  fricl_stencil type;
  const char *tname;
  size_t m, k, nb;
  int32_t *ids;
  void *cp, *basis, *normal, *mu_s, *mu_k, *weight, *aniso;
} tangential_group;

typedef struct tangential_input {
  /* Set by the caller (the rest zeroed) before tangential_input_read. */
  const char *cmd;  /* "fricl tangential": the prefix of messages */
  const char *path; /* the archive */
  fricl_precision precision;
  int with_build; /* --build: a build input plus velocities and eps_v */
  FILE *err;      /* where the message of a bad input goes; NULL: stderr */
  /* Read. */
  npz_archive in;
  int dim;
  size_t n;
  double eps_v;
  void *velocities;
  tangential_group g[TANGENTIAL_N_TYPES]; /* indexed by fricl_stencil */
  build_input build;                      /* --build only */
} tangential_input;

/*
 * Read and check the archive. Names in the NULL-terminated @p extra (may be
 * NULL) are accepted besides the schema and left in t->in for the caller.
 * @return 0, 2 (bad input: one line written to t->err naming the array) or
 * 1 (out of memory).
 */
int tangential_input_read(tangential_input *t, const char *const *extra);

void tangential_input_free(tangential_input *t);

/* The library's group of g's inputs (the caller adds the outputs). */
fricl_contact_group tangential_group_inputs(const tangential_group *g);

#endif
