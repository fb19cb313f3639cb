/* petsc_context.c - fricl_petsc_context_create: one device and a share of
 * the node's cores per rank. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "petsc_internal.h"

/* The rank's rank among the ranks of its node (shared memory), and their
 * number. */
static PetscErrorCode node_local_rank(MPI_Comm comm, int *local_rank,
                                      int *node_ranks) {
  MPI_Comm node;
  PetscFunctionBegin;
  PetscCallMPI(
      MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, local_rank));
  PetscCallMPI(MPI_Comm_size(node, node_ranks));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(0);
}

/* CPUs this process may run on (its affinity mask), 0 if unknown. */
static unsigned affinity_cpus(void) {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return (unsigned)CPU_COUNT(&set);
#endif
  return 0;
}

static unsigned online_cpus(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1u;
}

PetscErrorCode fricl_petsc_context_create(MPI_Comm comm,
                                          const fricl_context_params *params,
                                          fricl_context **ctx) {
  fpetsc_err e;
  fricl_context_params p;
  char spec[64], msg[512] = "";
  int local_rank = 0, node_ranks = 1;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  PetscCall(node_local_rank(comm, &local_rank, &node_ranks)); /* collective */
  if (!ctx) {
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL, "ctx is NULL");
  } else {
    *ctx = NULL;
    if (params)
      p = *params;
    else
      fricl_context_params_init(&p);
    const char *want = p.device;
    if (!want || !*want)
      want = getenv("FRICL_DEVICE");
    if (!want || !*want)
      want = "auto";
    if (strcmp(want, "auto") == 0 || strcmp(want, "gpu") == 0) {
      fricl_device_info infos[64];
      size_t count = 0;
      if (fricl_devices_list(infos, 64, &count) == FRICL_STATUS_OK &&
          fpetsc_pick_gpu(infos, count < 64 ? count : 64, local_rank, spec,
                          sizeof spec))
        p.device = spec;
    }
    const char *env_threads = getenv("FRICL_THREADS");
    if (p.threads == 0 && !(env_threads && *env_threads))
      p.threads =
          fpetsc_threads_per_rank(online_cpus(), affinity_cpus(), node_ranks);
    p.error_buffer = msg;
    p.error_buffer_size = sizeof msg;
    const fricl_status st = fricl_context_create(ctx, &p);
    if (st != FRICL_STATUS_OK)
      fpetsc_err_set(&e,
                     st == FRICL_STATUS_INVALID_ARGUMENT ? PETSC_ERR_ARG_WRONG
                                                         : PETSC_ERR_LIB,
                     "fricl_context_create (device '%s'): %s: %s",
                     p.device ? p.device : want, fricl_status_string(st), msg);
    if (st != FRICL_STATUS_OK && params && params->error_buffer &&
        params->error_buffer_size)
      snprintf(params->error_buffer, params->error_buffer_size, "%s", msg);
  }
  /* All or none: a rank whose context was created releases it when
   * another rank failed. */
  PetscBool any = PETSC_FALSE;
  PetscCall(fpetsc_any_failed(comm, &e, &any));
  if (any && ctx && *ctx) {
    fricl_context_destroy(*ctx);
    *ctx = NULL;
  }
  PetscCall(fpetsc_agree(comm, &e));
  PetscFunctionReturn(0);
}
