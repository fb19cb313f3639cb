/*
 * fricl_laws.h - the other friction laws of fricl's sources, batched:
 * Exudyn's StribeckFunction, RegularizedFrictionStep and RegularizedFriction,
 * Modelica's InverseSpeedDependentForce, and the Fortran `friction`
 * library's Coulomb, Stribeck, Maxwell, Modified Stribeck, LuGre and
 * Generalized Maxwell Slip, with per-contact state buffers.
 *
 * Included by <fricl/fricl.h>; needs only <fricl/fricl_base.h>. The normative
 * definition of every law (parameters, comparison operators, signs at +-0,
 * quirks, reference values) is docs/friction-laws.md (installed with the docs);
 * docs/api.md, "Friction laws", summarises it.
 *
 * Contents
 *   fricl_law, fricl_law_name, fricl_law_from_name, fricl_law_get_info,
 *   fricl_law_option_name, fricl_law_option_from_name,
 *   fricl_integrator, fricl_integrator_name, fricl_integrator_from_name,
 *   fricl_law_batch, fricl_law_batch_init, fricl_law_eval, fricl_law_step,
 *   fricl_law_prepare
 *
 * Layouts (all arrays in the working precision, float or double)
 *   per element      n values, element i at [i]
 *   per step         n_steps x n values, step-major: step s of element i
 *                    at [s * n + i] (one step of every element is
 *                    contiguous)
 *   state            n x S values, element i's state at [i * S .. i*S+S):
 *                    S = 2 (x_prev, d_prev) for maxwell and
 *                    modified_stribeck, 1 (z) for lugre, m (z_1..z_m) for
 *                    gms, 0 for the stateless laws
 *   gms parameters   (k_1, b_1, nu_1, ..., k_m, b_m, nu_m): 3 m values for
 *                    the whole batch, or n x 3 m (one row per element)
 *
 * Since 0.2. Thread safety and ownership as in fricl.h.
 */
#ifndef FRICL_LAWS_H
#define FRICL_LAWS_H

#include "fricl/fricl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters per law at most, and GMS elements per contact at most. */
#define FRICL_LAW_MAX_PARAMS 8
#define FRICL_GMS_MAX_ELEMENTS 64

/* The laws (FRICL_LAW_MAP in <fricl/fricl_tables.h>):
 * Exudyn physics.StribeckFunction(vel, muDynamic, muStaticOffset,
 * muViscous=0, expVel=1e-3, regVel=1e-3). Stateless, no normal force.
 *   -> FRICL_LAW_EXUDYN_STRIBECK
 * Exudyn RegularizedFrictionStep(x, x0, h0, x1, h1); `v` holds x.
 *   -> FRICL_LAW_EXUDYN_STEP
 * Exudyn RegularizedFriction(vel, muDynamic, muStaticOffset, velStatic,
 * velDynamic, muViscous=0).
 *   -> FRICL_LAW_EXUDYN_REGULARIZED
 * Modelica/Dyad InverseSpeedDependentForce(f_nominal, v_nominal, v0=0.1,
 * ForceDirection=1). Returns the flange force f; the body gets -f.
 *   -> FRICL_LAW_ISDF
 * friction: coulomb_model (mu_c); needs the normal force.
 *   -> FRICL_LAW_COULOMB
 * friction: stribeck_model (mu_s, mu_c, v_s, b_v).
 *   -> FRICL_LAW_STRIBECK
 * friction: maxwell_model (k, mu_c); reads positions `x`; state
 * (x_prev, d_prev), one call = one sample.
 *   -> FRICL_LAW_MAXWELL
 * friction: modified_stribeck_model (mu_s, mu_c, v_s, b_v, k); reads
 * positions `x` and velocities `v`; state (x_prev, d_prev).
 *   -> FRICL_LAW_MODIFIED_STRIBECK
 * friction: lugre_model (mu_s, mu_c, v_s, sigma0, sigma1, sigma2, alpha);
 * state z.
 *   -> FRICL_LAW_LUGRE
 * friction: generalized_maxwell_slip_model (mu_s, mu_c, C, sigma0, b_v,
 * v_s, alpha) plus (k_i, b_i, nu_i) for m elements; state z_1..z_m.
 *   -> FRICL_LAW_GMS
 */
typedef enum fricl_law {
#define FRICL_LAW_ENUM_(name, value, text) FRICL_LAW_##name = value,
  FRICL_LAW_MAP(FRICL_LAW_ENUM_)
#undef FRICL_LAW_ENUM_
      FRICL_LAW_COUNT = FRICL_TABLE_COUNT(FRICL_LAW_MAP)
} fricl_law;

/* Options (fricl_law_batch.options). Each belongs to one law; setting one
 * on another law is INVALID_ARGUMENT. None is upstream behaviour. */
/* ISDF, ForceDirection = 0: continuous inner branch
 * -f_nominal v_nominal v / v0^2 instead of upstream's -f_nominal v / v0
 * (which jumps at |v| = v0 unless v_nominal == v0). */
#define FRICL_LAW_OPT_ISDF_CONTINUOUS 0x1u
/* Stribeck: viscous term b_v v outside the sign (the formula of the
 * Fortran library's README, odd in v; docs/friction-laws.md section 10)
 * instead of inside it (the Fortran code). */
#define FRICL_LAW_OPT_STRIBECK_ODD 0x2u
/* LuGre: Stribeck shape exp(-(|v|/v_s)^alpha) instead of upstream's
 * rational 1 / (1 + (|v|/v_s)^alpha). */
#define FRICL_LAW_OPT_LUGRE_EXP_SHAPE 0x4u
#define FRICL_LAW_OPT_ALL 0x7u

/* State integrators of fricl_law_step for LuGre and GMS (v and the normal
 * force held over each step). */
/*   EULER  explicit Euler, order 1
 *   RK4    classic Runge-Kutta, order 4
 *   EXP    LuGre only: exact update z_ss + (z - z_ss) exp(-|v| h / g) for
 *          the held v, z_ss = sgn(v) g; unconditionally stable.
 * (FRICL_INTEGRATOR_MAP in <fricl/fricl_tables.h>) */
typedef enum fricl_integrator {
#define FRICL_INTEGRATOR_ENUM_(name, value, text)                              \
  FRICL_INTEGRATOR_##name = value,
  FRICL_INTEGRATOR_MAP(FRICL_INTEGRATOR_ENUM_)
#undef FRICL_INTEGRATOR_ENUM_
} fricl_integrator;

typedef struct fricl_law_param_info {
  const char *name; /* upstream name, e.g. "muDynamic", "stiffness" */
  const char *unit; /* "1", "N", "m/s", "N/m", ... */
  /* Default value; NaN when the parameter is required. */
  double default_value;
  const char *description; /* one line */
} fricl_law_param_info;

typedef struct fricl_law_info {
  uint32_t struct_size;    /* bytes written by fricl_law_get_info */
  const char *name;        /* "exudyn_stribeck", "lugre", ... */
  const char *description; /* one line, with the upstream name */
  int param_count;
  fricl_law_param_info params[FRICL_LAW_MAX_PARAMS];
  int uses_velocity; /* reads `v` */
  int uses_position; /* reads `x` */
  int uses_normal;   /* reads the normal force */
  /* State values per element for m = 1 (GMS: m), 0 when stateless. */
  int state_size;
  int ode_state;    /* 1: LuGre, GMS (integrated by fricl_law_step) */
  uint32_t options; /* FRICL_LAW_OPT_* valid for the law */
} fricl_law_info;

/** @return "lugre" etc., NULL for an unknown law. @since 0.2 */
FRICL_API const char *fricl_law_name(fricl_law law);
/** @return OK or INVALID_ARGUMENT. @since 0.2 */
FRICL_API fricl_status fricl_law_from_name(const char *name, fricl_law *law);
/** Fill @p info, of @p info_size bytes (sizeof(fricl_law_info) as the
 *  caller compiled it): min(info_size, the library's) bytes are written,
 *  the rest zeroed, and struct_size receives the bytes written.
 *  @return OK or INVALID_ARGUMENT for an unknown law, NULL info or an
 *  info_size below 4 (struct_size alone). @since 0.4 */
FRICL_API fricl_status fricl_law_get_info_sized(fricl_law law,
                                                fricl_law_info *info,
                                                size_t info_size);
/** fricl_law_get_info_sized with the 0.2 layout's size; a macro passes the
 *  caller's sizeof(fricl_law_info), as for fricl_devices_list. @since 0.2 */
FRICL_API fricl_status fricl_law_get_info(fricl_law law, fricl_law_info *info);
#define fricl_law_get_info(law, info)                                          \
  fricl_law_get_info_sized((law), (info), sizeof(fricl_law_info))
/** @return "isdf_continuous", "stribeck_odd", "lugre_exp_shape" for one
 *  option bit, NULL otherwise. @since 0.2 */
FRICL_API const char *fricl_law_option_name(uint32_t option);
/** @return OK or INVALID_ARGUMENT. @since 0.2 */
FRICL_API fricl_status fricl_law_option_from_name(const char *name,
                                                  uint32_t *option);
/** @return "euler", "rk4", "exp", NULL if unknown. @since 0.2 */
FRICL_API const char *fricl_integrator_name(fricl_integrator integrator);
/** @return OK or INVALID_ARGUMENT. @since 0.2 */
FRICL_API fricl_status fricl_integrator_from_name(const char *name,
                                                  fricl_integrator *out);

/*
 * A batch of n independent elements (contacts) of one law.
 * Input arrays are borrowed for the call and never written; outputs must
 * not overlap any input or each other, except that state_out may be the
 * very same pointer as state (the documented in-place update).
 */
typedef struct fricl_law_batch {
  /* Set by the _init. Any size from the end of `param` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_law law;
  uint32_t options; /* FRICL_LAW_OPT_* of this law */
  size_t n;         /* elements */
  /* fricl_law_step: samples per element (>= 1). fricl_law_eval: 1. */
  size_t n_steps;
  /* fricl_law_step, LuGre and GMS: the time step (finite, > 0) and the
   * integrator. Ignored by the other laws. */
  double h;
  fricl_integrator integrator;
  /* Velocity (the x of exudyn_step), per step; NULL only when the law does
   * not read it (maxwell) or n == 0. */
  const void *v;
  /* Position, per step: maxwell and modified_stribeck only. */
  const void *x;
  /* Normal force (laws with uses_normal): `normal` per element (or per
   * step when normal_per_step is 1), else the batch scalar normal_force.
   * NaN in the array propagates; the scalar must be set (init: NaN). */
  const void *normal;
  int normal_per_step;
  double normal_force;
  /* The law's parameters in fricl_law_info order: param[k], or
   * param_array[k] (n values) when not NULL. fricl_law_batch_init sets
   * the defaults and NaN for required parameters. */
  double param[FRICL_LAW_MAX_PARAMS];
  const void *param_array[FRICL_LAW_MAX_PARAMS];
  /* GMS: m elements per contact (1..FRICL_GMS_MAX_ELEMENTS) and their
   * (k, b, nu) triples: 3 m values shared by the batch, or n x 3 m when
   * gms_params_per_element is 1. */
  size_t gms_elements;
  const void *gms_params;
  int gms_params_per_element;
  /* State (stateful laws), n x S: `state` is read (NULL: the zero initial
   * state of upstream); `state_out` receives the updated state (NULL: not
   * written, i.e. not committed; == state: updated in place). LuGre and
   * GMS in fricl_law_eval do not advance the state: state_out must be
   * NULL there. */
  const void *state;
  void *state_out;
  /* Forces, per step (may be NULL when state_out or dstate is wanted). */
  void *force;
  /* fricl_law_eval, LuGre and GMS: dz/dt at the given state, n x S. */
  void *dstate;
} fricl_law_batch;

/** Zero @p batch, set struct_size, law, n_steps = 1, the law's defaults
 *  (NaN for required parameters and the normal force). @since 0.2 */
FRICL_API void fricl_law_batch_init(fricl_law_batch *batch, fricl_law law);

/**
 * One sample per element. Stateless laws: force. Maxwell / Modified
 * Stribeck: force and the updated state (state_out), upstream's call
 * sequence with the state explicit. LuGre / GMS: force and dz/dt at the
 * given state (the state is not advanced).
 * Validation (before any work, message naming the parameter and the first
 * bad index): ranges of spec friction-laws.md per law, NULL arrays,
 * options of another law, overlaps. NaN inputs propagate.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED. @since 0.2
 */
FRICL_API fricl_status fricl_law_eval(fricl_context *ctx,
                                      const fricl_law_batch *batch);

/**
 * n_steps samples per element (a sampled trajectory: v, x, force and a
 * per-step normal are n_steps x n, step-major). For each step s the force
 * is that of the state before the step; then the state advances: the call
 * sequence for Maxwell / Modified Stribeck, integration over h with
 * `integrator` (v and N held) for LuGre / GMS. The final state goes to
 * state_out. Stateless laws simply evaluate every sample.
 * @since 0.2
 */
FRICL_API fricl_status fricl_law_step(fricl_context *ctx,
                                      const fricl_law_batch *batch);

/** Build (and cache) the kernel @p batch would use with fricl_law_step
 *  (@p stepping 1) or fricl_law_eval (0). Only which pointers are non-NULL
 *  and the law, options, integrator and m matter. @since 0.2 */
FRICL_API fricl_status fricl_law_prepare(fricl_context *ctx,
                                         const fricl_law_batch *batch,
                                         int stepping);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_LAWS_H */
