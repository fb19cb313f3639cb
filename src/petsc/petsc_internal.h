/* petsc_internal.h - fricl_petsc's private declarations: the plan, and the
 * error handling that makes every rank fail together. */
#ifndef FRICL_PETSC_INTERNAL_H
#define FRICL_PETSC_INTERNAL_H

#include <stdint.h>

#include "fricl/fricl_petsc.h"
#include "petsc_device.h"

#if defined(PETSC_USE_COMPLEX)
#error "fricl_petsc needs a real PETSc build (PetscScalar = PetscReal)"
#endif
#if defined(PETSC_USE_REAL_DOUBLE)
#define FPETSC_PRECISION FRICL_F64
#elif defined(PETSC_USE_REAL_SINGLE)
#define FPETSC_PRECISION FRICL_F32
#else
#error "fricl_petsc needs PetscReal double or single"
#endif

/* ------------------------------------------------------------- errors */

/* The first error of a rank's local phase: a PETSc error code and its
 * message. code 0: none. */
typedef struct fpetsc_err {
  PetscErrorCode code;
  char msg[1024];
} fpetsc_err;

/* Record an error (the first one wins). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
void fpetsc_err_set(fpetsc_err *e, PetscErrorCode code, const char *fmt, ...);

/* Record a fricl failure: "what: <status>: <context message>". */
void fpetsc_err_fricl(fpetsc_err *e, const fricl_context *ctx, fricl_status st,
                      const char *what);

/* PETSc calls of a local phase run between capture_begin and capture_end:
 * their errors are recorded in e (message included) instead of going to
 * the error handler, so that the ranks can agree before raising one. */
void fpetsc_capture_begin(fpetsc_err *e);
void fpetsc_capture_end(void);

/* Run a PETSc call inside a captured phase unless an error is recorded;
 * record its failure. */
#define FPETSC_TRY(e, call)                                                    \
  do {                                                                         \
    if (!(e)->code) {                                                          \
      const PetscErrorCode fpetsc_ierr_ = (call);                              \
      if (fpetsc_ierr_)                                                        \
        fpetsc_err_set((e), fpetsc_ierr_, "%s failed", #call);                 \
    }                                                                          \
  } while (0)

/* Collective: when any rank recorded an error, every rank raises the first
 * failing rank's error ("rank r: message") with SETERRQ; else returns 0. */
PetscErrorCode fpetsc_agree(MPI_Comm comm, const fpetsc_err *e);

/* Collective, for a rank that lacks the object naming the call's
 * communicator (a NULL plan or layout): it still has to meet the other
 * ranks in their agreement, or they would wait for it forever. The
 * communicator is that of the first non-NULL of the @p n objects (the
 * caller's other PETSc arguments, which live on the same communicator),
 * else PETSC_COMM_WORLD's. Takes part in fpetsc_agree with @p e (an error
 * recorded) and returns the error every rank raises. */
PetscErrorCode fpetsc_agree_without_comm(PetscInt n, const PetscObject *objs,
                                         const fpetsc_err *e);

/* Collective: whether any rank recorded an error (to release what the
 * ranks that succeeded allocated, before fpetsc_agree raises). */
PetscErrorCode fpetsc_any_failed(MPI_Comm comm, const fpetsc_err *e,
                                 PetscBool *any);

/* Collective: every rank must pass the same @p mask (which optional
 * arguments it gives, its flags); otherwise every rank raises an error
 * naming @p what. */
PetscErrorCode fpetsc_agree_mask(MPI_Comm comm, unsigned mask,
                                 const char *what);

/* ---------------------------------------------------------------- plan */

struct fricl_petsc_plan {
  MPI_Comm comm;
  fricl_context *ctx; /* borrowed */
  int dim;
  PetscLayout map;       /* the dof layout (a reference) */
  PetscInt n_global;     /* vertices */
  PetscInt vstart, vend; /* owned vertex range */
  /* The caller's topology, to check the evaluation's groups against. */
  size_t n_groups;
  fricl_stencil types[FRICL_MAX_GROUPS];
  size_t counts[FRICL_MAX_GROUPS];
  uint64_t checksum; /* of the caller's vertex arrays */
  size_t n_contacts;
  int32_t *compact; /* all groups' vertices in the compact numbering */
  /* The compact numbering: nl vertices, gv[r] ascending; rows [r0, r1) are
   * owned, the others are ghosts. */
  PetscInt nl, r0, r1;
  PetscInt *gv;
  PetscInt *own_row; /* per owned vertex: its compact row, or -1 */
  fricl_tangential_plan *fplan;
  size_t nnz_blocks;
  const int64_t *row_ptr; /* fricl's BSR (owned by fplan) */
  const int32_t *cols;
  PetscInt *gcols;  /* the BSR's block columns in global numbers */
  PetscInt max_row; /* longest BSR row, in blocks */
  /* The exchange (petsc_exchange.c). Per owned vertex i: the union of all
   * ranks' block columns in its row, u_cols[u_ptr[i] .. u_ptr[i + 1]), and
   * the slots of the blocks (ext_ptr) and gradient blocks (gext_ptr) that
   * other ranks send to it. */
  PetscSF hsf, gsf; /* ghost blocks / ghost gradient blocks -> slots */
  MPI_Datatype hunit, gunit;
  PetscInt *ext_ptr, *gext_ptr;
  PetscInt *u_ptr, *u_cols, max_urow;
  PetscInt *own_pos;    /* own blocks (owned rows, BSR order) -> column
                           in the row's union */
  PetscInt *ext_pos;    /* slot -> column in its row's union */
  PetscInt *ext_order;  /* slots by row, then sending rank */
  PetscInt *gext_row;   /* gradient slot -> owned vertex */
  PetscInt *gext_order; /* gradient slots by row, then sending rank */
  PetscInt n_grows;     /* owned vertices with a gradient block */
  PetscInt *grows;      /* ... their global numbers */
  PetscInt *own_grow;   /* owned vertex -> index in grows, or -1 */
  PetscReal *ext_vals, *gext_vals;
  PetscReal *acc, *gacc; /* one shared row's sum; the owned gradient */
  /* The direct path (petsc_direct.c): per union block, its block in the
   * diagonal part (>= 0) or -1 - its block in the off-diagonal part of the
   * matrix last seen (id, nonzero state). */
  PetscInt *direct_off;
  PetscBool direct_valid;
  PetscObjectId direct_id;
  PetscObjectState direct_state;
  /* Preallocation per owned block row (vend - vstart entries). */
  PetscInt *dnz, *onz, *dnzu, *onzu;
  PetscBool *has_diag;
  PetscInt n_owned_blocks;
  /* Evaluation. */
  Vec xloc; /* the velocities of the nl vertices (sequential, bs dim) */
  VecScatter scatter;
  PetscReal *grad, *bsr, *rowbuf;
};

/* Collective: the exchange of ghost rows with their owners, the union of
 * the owned rows' patterns and the preallocation counts
 * (petsc_exchange.c). */
PetscErrorCode fpetsc_plan_exchange(fricl_petsc_plan *plan);
void fpetsc_exchange_free(fricl_petsc_plan *plan);

/* 64-bit checksum of the groups' types, counts and vertex arrays. */
uint64_t fpetsc_topology_checksum(size_t n_groups,
                                  const fricl_contact_group *groups);

/* Compare @p map with the plan's dof layout; on a mismatch record an error
 * naming @p what. */
void fpetsc_check_layout(const fricl_petsc_plan *plan, PetscLayout map,
                         const char *what, fpetsc_err *e);

/* ----------------------------------------------------------- evaluation
 * The steps every potential's evaluation shares (petsc_assemble.c). */

/* Local: the caller's groups have the plan's types, counts and vertices. */
void fpetsc_check_groups(const fricl_petsc_plan *p, size_t n_groups,
                         const fricl_contact_group *groups, fpetsc_err *e);

/* Local: a matrix's row and column layouts and block size fit the plan;
 * the message names it @p what. */
void fpetsc_check_matrix(const fricl_petsc_plan *p, Mat A, const char *what,
                         fpetsc_err *e);

/* Local: x (required), gradient and hessian (optional) fit the plan. */
void fpetsc_check_targets(const fricl_petsc_plan *p, Vec x, Vec gradient,
                          Mat hessian, fpetsc_err *e);

/* The caller's groups with the plan's compact vertex arrays (n_groups
 * entries of @p out). */
void fpetsc_compact_groups(const fricl_petsc_plan *p,
                           const fricl_contact_group *groups,
                           fricl_contact_group *out);

/* Collective: the values of x at the plan's vertices, into p->xloc. */
PetscErrorCode fpetsc_gather(fricl_petsc_plan *p, Vec x);

/* Collective: send the ghost rows' gradient (p->grad) and Hessian blocks
 * (p->bsr) to their owners' slots. */
PetscErrorCode fpetsc_exchange_values(fricl_petsc_plan *p, PetscBool gradient,
                                      PetscBool hessian);

/* Local: sum each owned row's own and received values in a fixed order and
 * add them with VecSetValuesBlocked / MatSetValuesBlocked (ADD_VALUES);
 * gradient and hessian may be NULL. */
void fpetsc_add(fricl_petsc_plan *p, Vec gradient, Mat hessian, fpetsc_err *e);

/* Collective: assemble gradient and hessian (unless
 * FRICL_PETSC_EVAL_NO_ASSEMBLY) and sum the ranks' potentials. */
PetscErrorCode fpetsc_finish(fricl_petsc_plan *p, PetscReal local,
                             PetscReal *potential, Vec gradient, Mat hessian,
                             unsigned flags);

/* ---------------------------------------------------------- direct path
 * Adding owned rows straight into an assembled MATSEQBAIJ / MATMPIBAIJ's
 * storage (petsc_direct.c). Local. */
typedef struct fpetsc_direct {
  PetscBool on; /* else: MatSetValuesBlocked */
  Mat parts[2];
  PetscScalar *ad, *ao;
} fpetsc_direct;

/* Use the direct path for H if it can (type, assembled, every block of the
 * plan stored); dst->on says whether it does. */
PetscErrorCode fpetsc_direct_begin(fricl_petsc_plan *p, Mat H,
                                   fpetsc_direct *dst);
/* Add one owned row's n blocks (fricl's layout) at union position u0. */
void fpetsc_direct_add_row(const fricl_petsc_plan *p, const fpetsc_direct *dst,
                           PetscInt u0, PetscInt n, const PetscReal *blk);
PetscErrorCode fpetsc_direct_end(fpetsc_direct *dst);

#endif
