/*
 * bench_lattice.h - a contact scene for the device rows of `fricl bench`
 * (bench_resident.c, bench_multi.c): two layers of a jittered square
 * lattice of vertices, about two contacts per vertex, and contacts between
 * neighbours of the two layers - FV 40 %, EE 30 %, EV 20 %, PV 10 % - so
 * that most are active (N > 0) and vertices are shared by many contacts,
 * as in a cloth. f64, 3-D; deterministic for a contact count.
 */
#ifndef FRICL_BENCH_LATTICE_H
#define FRICL_BENCH_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include "fricl/fricl.h"

#define BENCH_LATTICE_GROUPS 4

typedef struct bench_lattice {
  size_t nv, total;
  fricl_stencil type[BENCH_LATTICE_GROUPS];
  size_t count[BENCH_LATTICE_GROUPS];
  int32_t *vx[BENCH_LATTICE_GROUPS];
  double *X, *R, *vms, *vmk; /* lagged and rest positions, vertex mu */
  double *vel, *dir;         /* velocities, a direction for H p */
  double *pn, *pc;           /* PV planes */
  double kappa, dhat;
} bench_lattice;

/* The build's outputs, host arrays (the inputs of the evaluation). */
typedef struct bench_lattice_out {
  double *beta[BENCH_LATTICE_GROUPS], *P[BENCH_LATTICE_GROUPS],
      *N[BENCH_LATTICE_GROUPS], *gN[BENCH_LATTICE_GROUPS],
      *w[BENCH_LATTICE_GROUPS], *ms[BENCH_LATTICE_GROUPS],
      *mk[BENCH_LATTICE_GROUPS];
  uint8_t *status[BENCH_LATTICE_GROUPS];
} bench_lattice_out;

/* 0, or 1 when out of memory. */
int bench_lattice_make(bench_lattice *s, size_t contacts);
void bench_lattice_free(bench_lattice *s);

/* Allocate the build's outputs; 0, or 1 when out of memory. */
int bench_lattice_out_alloc(const bench_lattice *s, bench_lattice_out *o);
void bench_lattice_out_free(bench_lattice_out *o);

/* The build batch over s writing o (groups: BENCH_LATTICE_GROUPS). */
void bench_lattice_build_batch(const bench_lattice *s, bench_lattice_out *o,
                               fricl_build_batch *b, fricl_build_group *g);

/* Contact groups of the evaluation reading o (no outputs set). */
void bench_lattice_contacts(const bench_lattice *s, const bench_lattice_out *o,
                            fricl_contact_group *g);

/* Bytes of one group's build outputs per contact (all eight). */
size_t bench_lattice_out_bytes(const bench_lattice *s, int g);

#endif
