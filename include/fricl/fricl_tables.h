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
