/* petsc_context.c - fricl_petsc_context_create: one device per rank. */
#include <stdlib.h>
#include <string.h>

#include "petsc_internal.h"

/* The rank's rank among the ranks of its node (shared memory). */
static PetscErrorCode node_local_rank(MPI_Comm comm, int *local_rank) {
  MPI_Comm node;
  PetscFunctionBegin;
  PetscCallMPI(
      MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, local_rank));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_context_create(MPI_Comm comm,
                                          const fricl_context_params *params,
                                          fricl_context **ctx) {
  fpetsc_err e;
  fricl_context_params p;
  char spec[64], msg[512] = "";
  int local_rank = 0;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  PetscCall(node_local_rank(comm, &local_rank)); /* collective */
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
