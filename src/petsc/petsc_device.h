/* petsc_device.h - which OpenCL GPU a rank takes (no PETSc or MPI inside,
 * so that a plain test can check the rule). */
#ifndef FRICL_PETSC_DEVICE_H
#define FRICL_PETSC_DEVICE_H

#include <stddef.h>

#include "fricl/fricl.h"

/* For a rank whose spec is "auto" or "gpu": write
 * "opencl:<platform>:<device>" of GPU number (local_rank mod number of
 * GPUs), counting the GPUs of @p infos in list order, into @p spec and
 * return 1; return 0 when there is no GPU (spec untouched) or local_rank is
 * negative. */
int fpetsc_pick_gpu(const fricl_device_info *infos, size_t count,
                    int local_rank, char *spec, size_t spec_size);

/* Host threads for a rank whose context asks for the default (0): a rank
 * bound by its launcher to some cores (affinity < online) uses those; an
 * unbound rank gets an equal share of the node's cores (online / ranks on
 * the node), at least 1, so that the ranks of a node do not oversubscribe
 * it. */
unsigned fpetsc_threads_per_rank(unsigned online, unsigned affinity,
                                 int node_ranks);

#endif
