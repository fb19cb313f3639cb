/*
 * fricl_tables.h - the single-source tables of fricl's enumerations: one
 * X-macro list per enumeration generates the public enum (in the feature
 * headers), the name and description lookups (in the library) and the
 * integer codes the kernels and math headers use. The header is plain
 * preprocessor text, so it is valid C, C++ and OpenCL C; the library
 * embeds it with the kernels.
 *
 * Each list is X(NAME, value, "name", ...) with the value pinned: values
 * never change once released; a new entry gets a new value.
 */
#ifndef FRICL_TABLES_H
#define FRICL_TABLES_H

/* The number of entries of a list: FRICL_TABLE_COUNT(FRICL_LAW_MAP). The
 * enums' *_COUNT members are this sum, so that a row added to a list
 * cannot leave a hand-written count behind. Valid for the lists whose
 * values are 0 .. n-1 (all of them but the statuses). */
#define FRICL_TABLE_ONE_(...) +1
#define FRICL_TABLE_COUNT(map) (0 map(FRICL_TABLE_ONE_))

/* Statuses: X(NAME, value, description). */
#define FRICL_STATUS_MAP(X)                                                    \
  X(OK, 0, "success")                                                          \
  X(INVALID_ARGUMENT, -1, "invalid argument")                                  \
  X(OUT_OF_MEMORY, -2, "out of host memory")                                   \
  X(DEVICE_NOT_FOUND, -3, "requested device not found")                        \
  X(NO_FP64, -4, "device does not support double precision")                   \
  X(OPENCL_ERROR, -5, "OpenCL runtime call failed")                            \
  X(BUILD_FAILED, -6, "OpenCL kernel build failed")                            \
  X(UNSUPPORTED, -7, "operation not supported by this context")                \
  X(INTERNAL, -8, "internal error")

/* Backends: X(NAME, value, "name"). */
#define FRICL_BACKEND_MAP(X)                                                   \
  X(REFERENCE, 0, "reference")                                                 \
  X(OPENCL, 1, "opencl")                                                       \
  X(HOST, 2, "host")

/* Floating-point precisions: X(NAME, value, "name"). */
#define FRICL_PRECISION_MAP(X)                                                 \
  X(F64, 0, "f64")                                                             \
  X(F32, 1, "f32")

/* Static-to-kinetic mu profiles of the smooth_mu* terms:
 * X(NAME, value, "name"). */
#define FRICL_MU_PROFILE_MAP(X)                                                \
  X(CUBIC, 0, "cubic")                                                         \
  X(IPCTK, 1, "ipctk")

/* The scalar family's terms, ipctk's Python names and order:
 * X(NAME, value, fn, mu). fn is the math function of the kernels' headers
 * (its name, stringised, is the public name); mu = 1 for the terms that
 * read mu_s, mu_k and the mu profile. */
#define FRICL_TERM_MAP(X)                                                      \
  X(SMOOTH_FRICTION_F0, 0, smooth_friction_f0, 0)                              \
  X(SMOOTH_FRICTION_F1, 1, smooth_friction_f1, 0)                              \
  X(SMOOTH_FRICTION_F2, 2, smooth_friction_f2, 0)                              \
  X(SMOOTH_FRICTION_F1_OVER_X, 3, smooth_friction_f1_over_x, 0)                \
  X(SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3, 4,                                  \
    smooth_friction_f2_x_minus_f1_over_x3, 0)                                  \
  X(SMOOTH_MU, 5, smooth_mu, 1)                                                \
  X(SMOOTH_MU_DERIVATIVE, 6, smooth_mu_derivative, 1)                          \
  X(SMOOTH_MU_F0, 7, smooth_mu_f0, 1)                                          \
  X(SMOOTH_MU_F1, 8, smooth_mu_f1, 1)                                          \
  X(SMOOTH_MU_F2, 9, smooth_mu_f2, 1)                                          \
  X(SMOOTH_MU_F1_OVER_X, 10, smooth_mu_f1_over_x, 1)                           \
  X(SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3, 11,                                    \
    smooth_mu_f2_x_minus_mu_f1_over_x3, 1)

/* Features, the per-feature figures' index: X(NAME, value, "name"). */
#define FRICL_FEATURE_MAP(X)                                                   \
  X(SCALAR, 0, "scalar")                                                       \
  X(TANGENTIAL, 1, "tangential")                                               \
  X(BUILD, 2, "build")                                                         \
  X(LAWS, 3, "laws")                                                           \
  X(BARRIER, 4, "barrier")

/* Contact stencils: X(NAME, value, "name", vertices k, closest-point
 * coordinates nb, 3-D only). Vertex orders are in fricl_tangential.h. */
#define FRICL_STENCIL_MAP(X)                                                   \
  X(VV, 0, "vv", 2, 0, 0)                                                      \
  X(EV, 1, "ev", 3, 1, 0)                                                      \
  X(EE, 2, "ee", 4, 2, 1)                                                      \
  X(FV, 3, "fv", 4, 2, 1)                                                      \
  X(PV, 4, "pv", 1, 0, 0)

/* PSD projections: X(NAME, value, "name"). */
#define FRICL_PSD_MAP(X)                                                       \
  X(NONE, 0, "none")                                                           \
  X(CLAMP, 1, "clamp")                                                         \
  X(ABS, 2, "abs")

/* Mollifier families of the tangential potential: X(NAME, value, "name").
 * FRICTION: ipctk's FrictionPotential (f0, f1, f2); ADHESION: its
 * TangentialAdhesionPotential (a0, a1, a2 on [0, 2 eps_a]). */
#define FRICL_MOLLIFIER_MAP(X)                                                 \
  X(FRICTION, 0, "friction")                                                   \
  X(ADHESION, 1, "adhesion")

/* mu blending rules of the lagged build: X(NAME, value, "name"). */
#define FRICL_MU_BLEND_MAP(X)                                                  \
  X(AVERAGE, 0, "average")                                                     \
  X(MIN, 1, "min")                                                             \
  X(MAX, 2, "max")                                                             \
  X(PRODUCT, 3, "product")                                                     \
  X(HARMONIC, 4, "harmonic")

/* Per-contact statuses of the lagged build: X(NAME, value, "name",
 * description). Their meaning is documented in fricl_build.h. */
#define FRICL_BUILD_STATUS_MAP(X)                                              \
  X(OK, 0, "ok", "ok")                                                         \
  X(INACTIVE, 1, "inactive", "inactive: d >= dmin + dhat, N = 0")              \
  X(INSIDE_DMIN, 2, "inside_dmin", "d <= dmin (penetrating): N = 0")           \
  X(EE_PARALLEL, 3, "ee_parallel",                                             \
    "edge-edge near parallel: skipped (spec 5.4)")                             \
  X(DEGENERATE_COINCIDENT, 4, "degenerate_coincident",                         \
    "vertex-vertex: coincident vertices")                                      \
  X(DEGENERATE_EDGE, 5, "degenerate_edge", "zero-length edge")                 \
  X(DEGENERATE_FACE, 6, "degenerate_face", "zero-area triangle")               \
  X(DEGENERATE_POINT_ON_LINE, 7, "degenerate_point_on_line",                   \
    "edge-vertex (3-D): the point lies on the edge's line")                    \
  X(DEGENERATE_PARALLEL, 8, "degenerate_parallel",                             \
    "edge-edge: exactly parallel edges")                                       \
  X(DEGENERATE_NORMAL, 9, "degenerate_normal",                                 \
    "plane-vertex: zero plane normal")                                         \
  X(NONFINITE, 10, "nonfinite",                                                \
    "finite inputs gave a non-finite result (overflow)")                       \
  X(MU_NEGATIVE, 11, "mu_negative", "blended mu_s or mu_k is negative")        \
  X(MU_NONFINITE, 12, "mu_nonfinite", "blended mu_s or mu_k is not finite")

/* Friction laws: X(NAME, value, "name"). Parameters, defaults and valid
 * ranges are in the library's law table (fricl_law_get_info). */
#define FRICL_LAW_MAP(X)                                                       \
  X(EXUDYN_STRIBECK, 0, "exudyn_stribeck")                                     \
  X(EXUDYN_STEP, 1, "exudyn_step")                                             \
  X(EXUDYN_REGULARIZED, 2, "exudyn_regularized")                               \
  X(ISDF, 3, "isdf")                                                           \
  X(COULOMB, 4, "coulomb")                                                     \
  X(STRIBECK, 5, "stribeck")                                                   \
  X(MAXWELL, 6, "maxwell")                                                     \
  X(MODIFIED_STRIBECK, 7, "modified_stribeck")                                 \
  X(LUGRE, 8, "lugre")                                                         \
  X(GMS, 9, "gms")

/* State integrators of fricl_law_step: X(NAME, value, "name"). */
#define FRICL_INTEGRATOR_MAP(X)                                                \
  X(EULER, 0, "euler")                                                         \
  X(RK4, 1, "rk4")                                                             \
  X(EXP, 2, "exp")

#endif /* FRICL_TABLES_H */
