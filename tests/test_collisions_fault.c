/*
 * test_collisions_fault.c - the collision build's OpenCL tier under fault
 * injection (fricl_static_fi, see core/fault.h): on an OpenCL fp64
 * context with device_min_candidates = 1, every fallible operation of a
 * build (kernel program build, buffers, launch, read-back) fails once, in
 * turn. The build must return an error status with a message naming the
 * failed step, leave the set passed in empty, and the same context must
 * then build the clean run's set bit for bit. Skipped (77) without an
 * OpenCL fp64 device.
 */
#include "core/fault.h"
#include "opencl/opencl.h"
#include "test_util.h"

#include "collision_util.h"

/* Two 4 x 4 grids of two triangles per cell, 0.05 apart, with a codim.
 * edge and two codim. points between them: every candidate type. */
enum { G = 4, NV = 2 * G * G + 4 };
static double X[NV * 3];
static int32_t E[2 * (2 * 3 * (G - 1) * (G - 1) + 4 * (G - 1)) + 2];
static int32_t F[3 * 2 * 2 * (G - 1) * (G - 1)];
static size_t ne, nf;

static void scene(void) {
  size_t v = 0;
  for (int l = 0; l < 2; ++l)
    for (int r = 0; r < G; ++r)
      for (int c = 0; c < G; ++c, ++v) {
        X[3 * v] = c * 0.3 + 0.01 * l;
        X[3 * v + 1] = r * 0.3 + 0.02 * l;
        X[3 * v + 2] = 0.05 * l;
      }
  for (int l = 0; l < 2; ++l)
    for (int r = 0; r < G; ++r)
      for (int c = 0; c < G; ++c) {
        const int32_t a = (int32_t)(l * G * G + r * G + c);
        if (c < G - 1) {
          E[2 * ne] = a;
          E[2 * ne++ + 1] = a + 1;
        }
        if (r < G - 1) {
          E[2 * ne] = a;
          E[2 * ne++ + 1] = a + G;
        }
        if (r < G - 1 && c < G - 1) {
          E[2 * ne] = a;
          E[2 * ne++ + 1] = a + G + 1;
          const int32_t t[6] = {a, a + 1, a + G + 1, a, a + G + 1, a + G};
          memcpy(F + 3 * nf, t, sizeof t);
          nf += 2;
        }
      }
  const double extra[12] = {0.2, 0.2, 0.02,  0.5,  0.25, 0.03,
                            0.4, 0.4, 0.025, 0.42, 0.41, 0.026};
  memcpy(X + 3 * v, extra, sizeof extra);
  E[2 * ne] = (int32_t)v;
  E[2 * ne++ + 1] = (int32_t)v + 1;
}

static fricl_status run(fricl_context *ctx, const fricl_collision_mesh *m,
                        fricl_collision_set **set) {
  fricl_collisions_options o;
  fricl_collisions_options_init(&o);
  o.dhat = 0.1;
  o.flags = FRICL_COLLISIONS_IMPROVED_MAX_APPROX;
  o.device_min_candidates = 1;
  return fricl_collisions_build(ctx, m, X, &o, set);
}

static size_t total(const fricl_collision_set *s) {
  size_t n = 0;
  for (int t = 0; t < 5; ++t)
    n += fricl_collision_set_count(s, (fricl_stencil)t);
  return n;
}

/* The sets' ids and weights, bit for bit. */
static int same(const fricl_collision_set *a, const fricl_collision_set *b) {
  for (int t = 0; t < 5; ++t) {
    const int32_t *ia, *ib;
    const size_t na = fricl_collision_set_elements(a, (fricl_stencil)t, &ia,
                                                   NULL),
                 nb = fricl_collision_set_elements(b, (fricl_stencil)t, &ib,
                                                   NULL);
    if (na != nb || (na && memcmp(ia, ib, 2 * na * sizeof *ia)))
      return 0;
  }
  const fricl_barrier_group *ga, *gb;
  const size_t n = fricl_collision_set_groups(a, &ga);
  if (n != fricl_collision_set_groups(b, &gb))
    return 0;
  for (size_t g = 0; g < n; ++g)
    if (ga[g].count != gb[g].count ||
        memcmp(ga[g].weight, gb[g].weight, ga[g].count * sizeof(double)))
      return 0;
  return 1;
}

int main(void) {
  scene();
  fricl_device_info inf[8];
  size_t nd = 0;
  fricl_devices_list(inf, 8, &nd);
  char spec[32] = "";
  for (size_t i = 0; i < nd && i < 8 && !spec[0]; ++i)
    if (inf[i].has_fp64)
      snprintf(spec, sizeof spec, "opencl:%d:%d", inf[i].platform_index,
               inf[i].device_index);
  if (!spec[0]) {
    printf("test_collisions_fault: SKIP (no OpenCL fp64 device)\n");
    return 77;
  }
  fricl__fault_disarm();
  fricl_context *ctx = test_context(spec, 0, 0);
  if (!ctx)
    return test_report("test_collisions_fault");
  fricl_collision_mesh *m = mesh_rest(ctx, 3, NV, X, ne, E, nf, F);
  fricl_collision_set *ref = NULL, *set = NULL;
  CHECK(run(ctx, m, &ref) == FRICL_STATUS_OK && total(ref) > 20 &&
            fricl_context_last_backend(ctx) == FRICL_BACKEND_OPENCL,
        "clean run: %s", fricl_context_last_error(ctx));
  for (int t = 0; ref && t < 4; ++t)
    CHECK(fricl_collision_set_count(ref, (fricl_stencil)t) > 0,
          "the scene has no %d collision", t);
  fricl__ocl_program_cache_clear(fricl__ocl_cast(ctx->dev));
  fricl__fault_disarm();
  CHECK(run(ctx, m, &set) == FRICL_STATUS_OK, "clean run");
  const long ops = fricl__fault_count();
  CHECK(ops > 4, "only %ld fallible operations", ops);
  for (long n = 1; n <= ops; ++n) {
    fricl__ocl_program_cache_clear(fricl__ocl_cast(ctx->dev));
    fricl__fault_arm(n);
    const fricl_status st = run(ctx, m, &set);
    const fricl__fault_kind_t kind = fricl__fault_kind();
    fricl__fault_disarm();
    CHECK(kind != FRICL__FAULT_NONE, "op %ld of %ld not reached", n, ops);
    CHECK(st != FRICL_STATUS_OK && fricl_context_last_error(ctx)[0],
          "op %ld (kind %d) failed silently: %s", n, (int)kind,
          fricl_status_string(st));
    CHECK(set && total(set) == 0, "op %ld: the set is not left empty", n);
    CHECK(run(ctx, m, &set) == FRICL_STATUS_OK && ref && same(ref, set),
          "op %ld: no recovery: %s", n, fricl_context_last_error(ctx));
  }
  printf("test_collisions_fault: %ld fallible operations, each failed once\n",
         ops);
  fricl_collision_set_destroy(ref);
  fricl_collision_set_destroy(set);
  fricl_collision_mesh_destroy(m);
  fricl_context_destroy(ctx);
  return test_report("test_collisions_fault");
}
